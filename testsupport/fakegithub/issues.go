package fakegithub

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// maxBody is GitHub's limit on issue, comment and pull request bodies, in
// characters.
const maxBody = 65536

// issue is an issue or, when pull is set, a pull request.
type issue struct {
	id               int64
	number           int
	title, body      string
	user             string
	state            string // "open" or "closed"
	labels           []string
	comments         []*comment
	created, updated time.Time
	closed           *time.Time
	pull             *pull
}

// comment is an issue comment.
type comment struct {
	id               int64
	body, user       string
	created, updated time.Time
}

// Issue is an issue (or pull request) of a fake repository.
type Issue struct {
	Number        int
	Title         string
	Body          string
	User          string
	State         string
	Labels        []string
	IsPullRequest bool
}

// Comment is an issue comment of a fake repository.
type Comment struct {
	ID        int64
	Issue     int
	User      string
	Body      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

func now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// AddIssue opens issue number in owner/repo, written by "octocat".
func (s *Server) AddIssue(owner, repo string, number int, title, body string) {
	s.Repo(owner, repo).AddIssue(number, "octocat", title, body)
}

// AddIssue opens issue number, written by author. Pull requests the fake
// creates take numbers after the highest one in use.
func (r *Repo) AddIssue(number int, author, title, body string) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.st.issues[number] != nil || number <= 0 {
		r.s.fatalf("fakegithub: AddIssue: %s#%d already exists or is not positive", r.FullName(), number)
	}
	r.s.userID(author)
	t := now()
	r.st.issues[number] = &issue{id: r.s.newID(), number: number, title: title, body: body, user: author, state: "open", created: t, updated: t}
}

// AddComment comments on issue as user and returns the comment's id.
func (r *Repo) AddComment(number int, user, body string) int64 {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	is := r.st.issues[number]
	if is == nil {
		r.s.fatalf("fakegithub: AddComment: no issue %s#%d", r.FullName(), number)
	}
	r.s.userID(user)
	t := now()
	cm := &comment{id: r.s.newID(), body: body, user: user, created: t, updated: t}
	is.comments = append(is.comments, cm)
	return cm.id
}

// Issue returns issue (or pull request) number.
func (r *Repo) Issue(number int) (Issue, bool) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	is := r.st.issues[number]
	if is == nil {
		return Issue{}, false
	}
	return Issue{
		Number:        is.number,
		Title:         is.title,
		Body:          is.body,
		User:          is.user,
		State:         is.state,
		Labels:        append([]string(nil), is.labels...),
		IsPullRequest: is.pull != nil,
	}, true
}

// Comments returns the comments on issue (or pull request) number, oldest
// first.
func (r *Repo) Comments(number int) []Comment {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	is := r.st.issues[number]
	if is == nil {
		return nil
	}
	var out []Comment
	for _, cm := range is.comments {
		out = append(out, Comment{ID: cm.id, Issue: number, User: cm.user, Body: cm.body, CreatedAt: cm.created, UpdatedAt: cm.updated})
	}
	return out
}

func (st *repoState) openIssues() int {
	n := 0
	for _, is := range st.issues {
		if is.state == "open" {
			n++
		}
	}
	return n
}

// nextNumber is the number a new pull request gets.
func (st *repoState) nextNumber() int {
	n := 0
	for k := range st.issues {
		n = max(n, k)
	}
	return n + 1
}

// findComment returns comment id and its issue.
func (st *repoState) findComment(id int64) (*issue, int) {
	for _, is := range st.issues {
		for i, cm := range is.comments {
			if cm.id == id {
				return is, i
			}
		}
	}
	return nil, -1
}

// association is the author_association of login on the repository.
func (st *repoState) association(login string) string {
	if strings.EqualFold(login, st.owner) {
		return "OWNER"
	}
	if role, ok := st.perms[strings.ToLower(login)]; ok && role != "none" {
		return "COLLABORATOR"
	}
	return "NONE"
}

func (c *call) issueJSON(is *issue) map[string]any {
	api := c.repoAPI() + fmt.Sprintf("/issues/%d", is.number)
	kind := "issues"
	if is.pull != nil {
		kind = "pull"
	}
	html := fmt.Sprintf("%s/%s/%s/%s/%d", c.s.webBase(), c.repo.owner, c.repo.name, kind, is.number)
	var closed any
	if is.closed != nil {
		closed = timeJSON(*is.closed)
	}
	out := map[string]any{
		"id":                 is.id,
		"node_id":            nodeID("I_", is.id),
		"url":                api,
		"repository_url":     c.repoAPI(),
		"labels_url":         api + "/labels{/name}",
		"comments_url":       api + "/comments",
		"events_url":         api + "/events",
		"html_url":           html,
		"number":             is.number,
		"state":              is.state,
		"title":              is.title,
		"body":               is.body,
		"user":               c.s.userJSON(is.user),
		"labels":             c.labelsJSON(is.labels),
		"assignee":           nil,
		"assignees":          []any{},
		"milestone":          nil,
		"locked":             false,
		"comments":           len(is.comments),
		"created_at":         timeJSON(is.created),
		"updated_at":         timeJSON(is.updated),
		"closed_at":          closed,
		"author_association": c.repo.association(is.user),
	}
	if is.pull != nil {
		pr := c.repoAPI() + fmt.Sprintf("/pulls/%d", is.number)
		out["pull_request"] = map[string]any{
			"url": pr, "html_url": html, "diff_url": html + ".diff", "patch_url": html + ".patch", "merged_at": nil,
		}
	}
	return out
}

func (c *call) issue() (*issue, reply, bool) {
	is := c.repo.issues[int(c.intParam("issue_number"))]
	if is == nil {
		return nil, notFound(), false
	}
	return is, reply{}, true
}

func getIssue(c *call) reply {
	is, rep, found := c.issue()
	if !found {
		return rep
	}
	return ok(c.issueJSON(is))
}

func (c *call) commentJSON(is *issue, cm *comment) map[string]any {
	return map[string]any{
		"id":                 cm.id,
		"node_id":            nodeID("IC_", cm.id),
		"url":                c.repoAPI() + fmt.Sprintf("/issues/comments/%d", cm.id),
		"html_url":           fmt.Sprintf("%s/%s/%s/issues/%d#issuecomment-%d", c.s.webBase(), c.repo.owner, c.repo.name, is.number, cm.id),
		"issue_url":          c.repoAPI() + fmt.Sprintf("/issues/%d", is.number),
		"body":               cm.body,
		"user":               c.s.userJSON(cm.user),
		"created_at":         timeJSON(cm.created),
		"updated_at":         timeJSON(cm.updated),
		"author_association": c.repo.association(cm.user),
	}
}

func listComments(c *call) reply {
	is, rep, found := c.issue()
	if !found {
		return rep
	}
	var since time.Time
	if v := c.query.Get("since"); v != "" {
		since, _ = time.Parse(time.RFC3339, v) // the description checked the format
	}
	var all []*comment
	for _, cm := range is.comments {
		if !cm.updated.Before(since) {
			all = append(all, cm)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].id < all[j].id })
	start, end, header := c.page(len(all))
	out := []any{}
	for _, cm := range all[start:end] {
		out = append(out, c.commentJSON(is, cm))
	}
	return reply{status: http.StatusOK, body: out, header: header}
}

// bodyTooLong is GitHub's answer to a body over maxBody characters.
func bodyTooLong(resource string) reply {
	return validationFailed(resource, "data", "unprocessable", fmt.Sprintf("Body is too long (maximum is %d characters)", maxBody))
}

func createComment(c *call) reply {
	is, rep, found := c.issue()
	if !found {
		return rep
	}
	var req struct {
		Body string `json:"body"`
	}
	if rep, good := c.decode(&req); !good {
		return rep
	}
	if utf8.RuneCountInString(req.Body) > maxBody {
		return bodyTooLong("IssueComment")
	}
	t := now()
	cm := &comment{id: c.s.newID(), body: req.Body, user: c.actor.login, created: t, updated: t}
	is.comments = append(is.comments, cm)
	is.updated = t
	rep = created(c.commentJSON(is, cm))
	rep.header = http.Header{"Location": {c.repoAPI() + fmt.Sprintf("/issues/comments/%d", cm.id)}}
	return rep
}

func getComment(c *call) reply {
	is, i := c.repo.findComment(c.intParam("comment_id"))
	if is == nil {
		return notFound()
	}
	return ok(c.commentJSON(is, is.comments[i]))
}

func updateComment(c *call) reply {
	is, i := c.repo.findComment(c.intParam("comment_id"))
	if is == nil {
		return notFound()
	}
	var req struct {
		Body string `json:"body"`
	}
	if rep, good := c.decode(&req); !good {
		return rep
	}
	if utf8.RuneCountInString(req.Body) > maxBody {
		return bodyTooLong("IssueComment")
	}
	cm := is.comments[i]
	cm.body, cm.updated = req.Body, now()
	return ok(c.commentJSON(is, cm))
}

func deleteComment(c *call) reply {
	is, i := c.repo.findComment(c.intParam("comment_id"))
	if is == nil {
		return notFound()
	}
	is.comments = append(is.comments[:i], is.comments[i+1:]...)
	return noContent()
}
