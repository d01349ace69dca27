package fakegithub

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// appSlug is the App's slug: its bot login without "[bot]".
func (s *Server) appSlug() string { return strings.TrimSuffix(s.cfg.botLogin, "[bot]") }

func getApp(c *call) reply {
	s := c.s
	return ok(map[string]any{
		"id":           s.cfg.appID,
		"slug":         s.appSlug(),
		"node_id":      nodeID("App", s.cfg.appID),
		"name":         s.appSlug(),
		"description":  "",
		"owner":        s.userJSON("capsulehq"),
		"external_url": s.webBase(),
		"html_url":     s.webBase() + "/apps/" + s.appSlug(),
		"created_at":   "2024-01-01T00:00:00Z",
		"updated_at":   "2024-01-01T00:00:00Z",
		"permissions":  s.appGrants().permissions,
		"events":       s.appGrants().events,
	})
}

func (s *Server) installationJSON(inst *installation) map[string]any {
	return map[string]any{
		"id":                   inst.id,
		"app_id":               s.cfg.appID,
		"app_slug":             s.appSlug(),
		"client_id":            fmt.Sprintf("Iv1.%016x", s.cfg.appID),
		"target_id":            s.userID(inst.account),
		"target_type":          "Organization",
		"account":              s.userJSON(inst.account),
		"repository_selection": "selected",
		"access_tokens_url":    fmt.Sprintf("%s/app/installations/%d/access_tokens", s.apiBase(), inst.id),
		"repositories_url":     s.apiBase() + "/installation/repositories",
		"html_url":             fmt.Sprintf("%s/organizations/%s/settings/installations/%d", s.webBase(), inst.account, inst.id),
		"permissions":          s.grantsOf(inst).permissions,
		"events":               s.grantsOf(inst).events,
		"created_at":           timeJSON(inst.created),
		"updated_at":           timeJSON(inst.created),
		"single_file_name":     nil,
		"suspended_by":         nil,
		"suspended_at":         nil,
	}
}

func getInstallation(c *call) reply {
	inst := c.s.installations[c.intParam("installation_id")]
	if inst == nil || inst.revoked {
		return notFound()
	}
	return ok(c.s.installationJSON(inst))
}

func getRepoInstallation(c *call) reply {
	key := strings.ToLower(c.repo.owner + "/" + c.repo.name)
	for _, inst := range c.s.installations {
		if !inst.revoked && inst.repos[key] {
			return ok(c.s.installationJSON(inst))
		}
	}
	return notFound()
}

func createInstallationToken(c *call) reply {
	s := c.s
	id := c.intParam("installation_id")
	inst := s.installations[id]
	if inst == nil || inst.revoked {
		return notFound()
	}
	var req struct {
		Repositories []string `json:"repositories"`
	}
	if rep, good := c.decode(&req); !good {
		return rep
	}
	t := &token{inst: inst, expires: time.Now().Add(time.Hour).UTC().Truncate(time.Second)}
	body := map[string]any{
		"expires_at":           timeJSON(t.expires),
		"permissions":          s.grantsOf(inst).permissions,
		"repository_selection": "selected",
	}
	if len(req.Repositories) > 0 {
		t.repos = map[string]bool{}
		var repos []any
		for _, name := range req.Repositories {
			key := strings.ToLower(inst.account + "/" + name)
			st := s.repos[key]
			if !inst.repos[key] || st == nil {
				return errorReply(http.StatusUnprocessableEntity,
					"There is at least one repository that does not exist or is not accessible to the parent installation.")
			}
			t.repos[key] = true
			repos = append(repos, s.repoJSON(st))
		}
		body["repositories"] = repos
	}
	value := newToken()
	s.tokens[value] = t
	s.minted[id]++
	body["token"] = value
	return created(body)
}

func listInstallationRepos(c *call) reply {
	a := c.actor
	if a.kind != actorInstallation {
		return errorReply(http.StatusForbidden, "This endpoint can only be accessed with an installation access token")
	}
	var all []any
	for _, r := range a.inst.order {
		key := strings.ToLower(r)
		if st := c.s.repos[key]; st != nil && (a.tok.repos == nil || a.tok.repos[key]) {
			all = append(all, c.s.repoJSON(st))
		}
	}
	start, end, header := c.page(len(all))
	return reply{status: http.StatusOK, header: header, body: map[string]any{
		"total_count":          len(all),
		"repositories":         append([]any{}, all[start:end]...),
		"repository_selection": "selected",
	}}
}
