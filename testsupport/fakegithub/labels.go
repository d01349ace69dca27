package fakegithub

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// label is a repository label.
type label struct {
	id          int64
	name        string
	color       string
	description string
}

// label returns the repository's label called name (case-insensitively), or
// nil.
func (st *repoState) label(name string) *label {
	for _, l := range st.labels {
		if strings.EqualFold(l.name, name) {
			return l
		}
	}
	return nil
}

// ensureLabel returns the label called name, creating it (grey, as GitHub
// does when a label is added to an issue) if needed.
func (s *Server) ensureLabel(st *repoState, name string) *label {
	if l := st.label(name); l != nil {
		return l
	}
	l := &label{id: s.newID(), name: name, color: "ededed"}
	st.labels = append(st.labels, l)
	return l
}

// addLabels adds labels to is, creating the missing ones.
func (s *Server) addLabels(st *repoState, is *issue, names []string) {
	for _, name := range names {
		l := s.ensureLabel(st, name)
		has := false
		for _, n := range is.labels {
			has = has || strings.EqualFold(n, l.name)
		}
		if !has {
			is.labels = append(is.labels, l.name)
		}
	}
	is.updated = now()
}

// AddLabels puts labels on issue (or pull request) number, creating the
// repository labels that do not exist.
func (r *Repo) AddLabels(number int, names ...string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	is := r.st.issues[number]
	if is == nil {
		r.s.fatalf("fakegithub: AddLabels: no issue %s#%d", r.FullName(), number)
	}
	r.s.addLabels(r.st, is, names)
}

// Labels returns the names of the labels on issue (or pull request) number,
// in the order they were added.
func (r *Repo) Labels(number int) []string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if is := r.st.issues[number]; is != nil {
		return append([]string(nil), is.labels...)
	}
	return nil
}

// RepoLabels returns the names of the repository's labels.
func (r *Repo) RepoLabels() []string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	var out []string
	for _, l := range r.st.labels {
		out = append(out, l.name)
	}
	return out
}

func (c *call) labelJSON(l *label) map[string]any {
	var desc any
	if l.description != "" {
		desc = l.description
	}
	return map[string]any{
		"id":          l.id,
		"node_id":     nodeID("LA_", l.id),
		"url":         c.repoAPI() + "/labels/" + url.PathEscape(l.name),
		"name":        l.name,
		"color":       l.color,
		"description": desc,
		"default":     false,
	}
}

func (c *call) labelsJSON(names []string) []any {
	out := []any{}
	for _, n := range names {
		if l := c.repo.label(n); l != nil {
			out = append(out, c.labelJSON(l))
		}
	}
	return out
}

// labelNames reads the label names of an add or set labels body, in any of
// the forms GitHub accepts: {"labels": ["a"]}, {"labels": [{"name": "a"}]},
// ["a"], or "a".
func labelNames(body []byte) ([]string, error) {
	if len(body) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, errors.New("Problems parsing JSON")
	}
	if m, isObject := v.(map[string]any); isObject {
		v = m["labels"]
	}
	var items []any
	switch x := v.(type) {
	case nil:
	case string:
		items = []any{x}
	case []any:
		items = x
	default:
		return nil, errors.New("Invalid request.\n\nlabels must be an array")
	}
	var names []string
	for _, it := range items {
		switch x := it.(type) {
		case string:
			names = append(names, x)
		case map[string]any:
			name, _ := x["name"].(string)
			if name == "" {
				return nil, errors.New("Invalid request.\n\nlabel name is missing")
			}
			names = append(names, name)
		default:
			return nil, errors.New("Invalid request.\n\nlabels must be strings or objects with a name")
		}
	}
	return names, nil
}

func listIssueLabels(c *call) reply {
	is, rep, found := c.issue()
	if !found {
		return rep
	}
	all := c.labelsJSON(is.labels)
	start, end, header := c.page(len(all))
	return reply{status: http.StatusOK, body: all[start:end], header: header}
}

func addIssueLabels(c *call) reply {
	is, rep, found := c.issue()
	if !found {
		return rep
	}
	names, err := labelNames(c.body)
	if err != nil {
		return errorReply(http.StatusUnprocessableEntity, err.Error())
	}
	c.s.addLabels(c.repo, is, names)
	return ok(c.labelsJSON(is.labels))
}

func setIssueLabels(c *call) reply {
	is, rep, found := c.issue()
	if !found {
		return rep
	}
	names, err := labelNames(c.body)
	if err != nil {
		return errorReply(http.StatusUnprocessableEntity, err.Error())
	}
	is.labels = nil
	c.s.addLabels(c.repo, is, names)
	return ok(c.labelsJSON(is.labels))
}

func removeIssueLabel(c *call) reply {
	is, rep, found := c.issue()
	if !found {
		return rep
	}
	name := c.params["name"]
	for i, n := range is.labels {
		if strings.EqualFold(n, name) {
			is.labels = append(is.labels[:i], is.labels[i+1:]...)
			is.updated = now()
			return ok(c.labelsJSON(is.labels))
		}
	}
	return errorReply(http.StatusNotFound, "Label does not exist")
}

func listRepoLabels(c *call) reply {
	all := []any{}
	for _, l := range c.repo.labels {
		all = append(all, c.labelJSON(l))
	}
	start, end, header := c.page(len(all))
	return reply{status: http.StatusOK, body: all[start:end], header: header}
}

func createRepoLabel(c *call) reply {
	var req struct {
		Name        string `json:"name"`
		Color       string `json:"color"`
		Description string `json:"description"`
	}
	if rep, good := c.decode(&req); !good {
		return rep
	}
	if c.repo.label(req.Name) != nil {
		return validationFailed("Label", "name", "already_exists", "")
	}
	color := strings.TrimPrefix(req.Color, "#")
	if color == "" {
		color = "ededed"
	}
	l := &label{id: c.s.newID(), name: req.Name, color: color, description: req.Description}
	c.repo.labels = append(c.repo.labels, l)
	rep := created(c.labelJSON(l))
	rep.header = http.Header{"Location": {c.repoAPI() + "/labels/" + url.PathEscape(l.name)}}
	return rep
}
