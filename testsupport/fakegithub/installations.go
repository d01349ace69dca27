package fakegithub

import (
	"maps"
	"net/http"
	"slices"
)

// grants are the permissions and webhook events of the App or of one of
// its installations. An installation holds what its owner accepted, which
// lags behind the App's when the App asks for more.
type grants struct {
	permissions map[string]string // e.g. "checks": "read"
	events      []string
}

// capsuleGrants are what the App asks for by default: everything Capsule
// uses, for issues and for the rounds on its pull requests.
func capsuleGrants() grants {
	return grants{
		permissions: map[string]string{
			"contents":      "write",
			"issues":        "write",
			"pull_requests": "write",
			"metadata":      "read",
			"checks":        "read",
			"actions":       "read",
		},
		events: []string{"issues", "issue_comment", "pull_request", "pull_request_review",
			"pull_request_review_comment", "check_suite", "workflow_run"},
	}
}

// newGrants copies permissions and events.
func newGrants(permissions map[string]string, events []string) grants {
	return grants{permissions: maps.Clone(permissions), events: slices.Clone(events)}
}

// WithAppGrants sets the permissions (such as "checks": "read") and events
// the App asks for, instead of everything Capsule uses. Installations hold
// the same unless SetInstallationGrants says otherwise.
func WithAppGrants(permissions map[string]string, events []string) Option {
	return func(c *config) {
		g := newGrants(permissions, events)
		c.appGrants = &g
	}
}

// appGrants is what the App asks for.
func (s *Server) appGrants() grants {
	if s.cfg.appGrants != nil {
		return *s.cfg.appGrants
	}
	return capsuleGrants()
}

// SetInstallationGrants sets the permissions and events installation id
// holds, as when its owner has not accepted what the App asks for since.
// It does nothing for an unknown installation.
func (s *Server) SetInstallationGrants(id int64, permissions map[string]string, events []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inst := s.installations[id]; inst != nil {
		g := newGrants(permissions, events)
		inst.grants = &g
	}
}

// grantsOf is what inst holds: its own grants, else the App's.
func (s *Server) grantsOf(inst *installation) grants {
	if inst.grants != nil {
		return *inst.grants
	}
	return s.appGrants()
}

// listInstallations answers GET /app/installations: the App's
// installations that are not revoked, by id, a page at a time.
func listInstallations(c *call) reply {
	ids := slices.Sorted(maps.Keys(c.s.installations))
	var all []any
	for _, id := range ids {
		if inst := c.s.installations[id]; !inst.revoked {
			all = append(all, c.s.installationJSON(inst))
		}
	}
	start, end, header := c.page(len(all))
	return reply{status: http.StatusOK, header: header, body: append([]any{}, all[start:end]...)}
}
