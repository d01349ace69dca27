package fakegithub

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// userID returns the stable id of login, giving new logins the next id.
func (s *Server) userID(login string) int64 {
	key := strings.ToLower(login)
	if id, ok := s.users[key]; ok {
		return id
	}
	s.nextID++
	s.users[key] = s.nextID
	return s.nextID
}

// newID returns a fresh id for an issue, comment, label or repository.
func (s *Server) newID() int64 {
	s.nextID++
	return s.nextID
}

func nodeID(kind string, id int64) string {
	return base64.RawStdEncoding.EncodeToString(fmt.Appendf(nil, "%s%d", kind, id))
}

func timeJSON(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// userJSON is a simple-user.
func (s *Server) userJSON(login string) map[string]any {
	id := s.userID(login)
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	api := s.apiBase() + "/users/" + login
	return map[string]any{
		"login":               login,
		"id":                  id,
		"node_id":             nodeID("U", id),
		"avatar_url":          fmt.Sprintf("%s/avatars/u/%d", s.webBase(), id),
		"gravatar_id":         "",
		"url":                 api,
		"html_url":            s.webBase() + "/" + login,
		"followers_url":       api + "/followers",
		"following_url":       api + "/following{/other_user}",
		"gists_url":           api + "/gists{/gist_id}",
		"starred_url":         api + "/starred{/owner}{/repo}",
		"subscriptions_url":   api + "/subscriptions",
		"organizations_url":   api + "/orgs",
		"repos_url":           api + "/repos",
		"events_url":          api + "/events{/privacy}",
		"received_events_url": api + "/received_events",
		"type":                typ,
		"site_admin":          false,
	}
}

// repoJSON is a repository; completeResponse adds the many URL templates
// the description also requires.
func (s *Server) repoJSON(st *repoState) map[string]any {
	full := st.owner + "/" + st.name
	visibility := "public"
	if st.private {
		visibility = "private"
	}
	return map[string]any{
		"id":                st.id,
		"node_id":           nodeID("R", st.id),
		"name":              st.name,
		"full_name":         full,
		"owner":             s.userJSON(st.owner),
		"private":           st.private,
		"visibility":        visibility,
		"html_url":          s.webBase() + "/" + full,
		"url":               s.apiBase() + "/repos/" + full,
		"clone_url":         s.webBase() + "/" + full + ".git",
		"git_url":           "git://" + strings.TrimPrefix(s.webBase(), "http://") + "/" + full + ".git",
		"ssh_url":           "git@" + strings.TrimPrefix(s.webBase(), "http://") + ":" + full + ".git",
		"svn_url":           s.webBase() + "/" + full,
		"default_branch":    st.defaultBranch,
		"description":       nil,
		"fork":              false,
		"archived":          false,
		"disabled":          false,
		"has_issues":        true,
		"size":              0,
		"created_at":        timeJSON(st.created),
		"updated_at":        timeJSON(st.created),
		"pushed_at":         timeJSON(st.created),
		"open_issues_count": st.openIssues(),
		"open_issues":       st.openIssues(),
	}
}
