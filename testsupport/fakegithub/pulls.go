package fakegithub

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// pull is the pull request part of an issue. Heads are branches of the same
// repository (the fake has no forks).
type pull struct {
	head, base       string // branch names
	headSHA, baseSHA string // as last seen, for when a branch is deleted
	draft            bool
	maintainerCanMod bool
	reviews          []*review
	comments         []*reviewComment // review comments and their replies
}

// PullRequest is a pull request of a fake repository.
type PullRequest struct {
	Number              int
	Title               string
	Body                string
	User                string
	State               string
	Head                string // branch name
	HeadSHA             string
	Base                string
	Draft               bool
	MaintainerCanModify bool
	Labels              []string
}

// refresh follows the head and base branches, as GitHub does while they
// exist.
func (st *repoState) refresh(p *pull) {
	if sha, ok := st.refs["refs/heads/"+p.head]; ok {
		p.headSHA = sha
	}
	if sha, ok := st.refs["refs/heads/"+p.base]; ok {
		p.baseSHA = sha
	}
}

// PullRequests returns the repository's pull requests by number.
func (r *Repo) PullRequests() []PullRequest {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	var out []PullRequest
	for _, is := range r.st.sortedIssues() {
		if is.pull == nil {
			continue
		}
		r.st.refresh(is.pull)
		out = append(out, PullRequest{
			Number:              is.number,
			Title:               is.title,
			Body:                is.body,
			User:                is.user,
			State:               is.state,
			Head:                is.pull.head,
			HeadSHA:             is.pull.headSHA,
			Base:                is.pull.base,
			Draft:               is.pull.draft,
			MaintainerCanModify: is.pull.maintainerCanMod,
			Labels:              append([]string(nil), is.labels...),
		})
	}
	return out
}

func (st *repoState) sortedIssues() []*issue {
	out := make([]*issue, 0, len(st.issues))
	for _, is := range st.issues {
		out = append(out, is)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].number < out[j].number })
	return out
}

// commitsBetween counts the commits reachable from head but not from base.
func (st *repoState) commitsBetween(base, head string) int { return len(st.commitsFrom(base, head)) }

// changedFiles counts the paths that differ between two commits.
func (st *repoState) changedFiles(base, head string) int {
	a := st.flatten(st.objects[base].commit.tree)
	b := st.flatten(st.objects[head].commit.tree)
	n := 0
	for p, l := range a {
		if b[p] != l {
			n++
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			n++
		}
	}
	return n
}

func (c *call) branchJSON(branch, sha string) map[string]any {
	return map[string]any{
		"label": c.repo.owner + ":" + branch,
		"ref":   branch,
		"sha":   sha,
		"user":  c.s.userJSON(c.repo.owner),
		"repo":  c.s.repoJSON(c.repo),
	}
}

func (c *call) pullJSON(is *issue) map[string]any {
	st, p := c.repo, is.pull
	st.refresh(p)
	api := c.repoAPI() + fmt.Sprintf("/pulls/%d", is.number)
	issueAPI := c.repoAPI() + fmt.Sprintf("/issues/%d", is.number)
	html := fmt.Sprintf("%s/%s/%s/pull/%d", c.s.webBase(), st.owner, st.name, is.number)
	var closed any
	if is.closed != nil {
		closed = timeJSON(*is.closed)
	}
	href := func(u string) map[string]any { return map[string]any{"href": u} }
	return map[string]any{
		"url":                 api,
		"id":                  is.id,
		"node_id":             nodeID("PR_", is.id),
		"html_url":            html,
		"diff_url":            html + ".diff",
		"patch_url":           html + ".patch",
		"issue_url":           issueAPI,
		"commits_url":         api + "/commits",
		"review_comments_url": api + "/comments",
		"review_comment_url":  c.repoAPI() + "/pulls/comments{/number}",
		"comments_url":        issueAPI + "/comments",
		"statuses_url":        c.repoAPI() + "/statuses/" + p.headSHA,
		"number":              is.number,
		"state":               is.state,
		"locked":              false,
		"title":               is.title,
		"user":                c.s.userJSON(is.user),
		"body":                is.body,
		"labels":              c.labelsJSON(is.labels),
		"milestone":           nil,
		"created_at":          timeJSON(is.created),
		"updated_at":          timeJSON(is.updated),
		"closed_at":           closed,
		"merged_at":           nil,
		"merge_commit_sha":    nil,
		"assignee":            nil,
		"assignees":           []any{},
		"requested_reviewers": []any{},
		"requested_teams":     []any{},
		"head":                c.branchJSON(p.head, p.headSHA),
		"base":                c.branchJSON(p.base, p.baseSHA),
		"_links": map[string]any{
			"self":            href(api),
			"html":            href(html),
			"issue":           href(issueAPI),
			"comments":        href(issueAPI + "/comments"),
			"review_comments": href(api + "/comments"),
			"review_comment":  href(c.repoAPI() + "/pulls/comments{/number}"),
			"commits":         href(api + "/commits"),
			"statuses":        href(c.repoAPI() + "/statuses/" + p.headSHA),
		},
		"author_association":    st.association(is.user),
		"auto_merge":            nil,
		"draft":                 p.draft,
		"merged":                false,
		"mergeable":             nil,
		"mergeable_state":       "unknown",
		"merged_by":             nil,
		"comments":              len(is.comments),
		"review_comments":       len(p.comments),
		"maintainer_can_modify": p.maintainerCanMod,
		"commits":               st.commitsBetween(p.baseSHA, p.headSHA),
		"additions":             0,
		"deletions":             0,
		"changed_files":         st.changedFiles(p.baseSHA, p.headSHA),
	}
}

// headBranch reads a head of "owner:branch" or "branch" in this repository.
func (c *call) headBranch(head string) (string, bool) {
	owner, branch, qualified := strings.Cut(head, ":")
	if !qualified {
		return head, true
	}
	return branch, strings.EqualFold(owner, c.repo.owner)
}

// openPullFor returns the open pull request from head into base, if any.
func (st *repoState) openPullFor(head, base string, except int) *issue {
	for _, is := range st.issues {
		if is.pull != nil && is.state == "open" && is.number != except && is.pull.head == head && is.pull.base == base {
			return is
		}
	}
	return nil
}

func createPull(c *call) reply {
	var req struct {
		Title               string `json:"title"`
		Head                string `json:"head"`
		Base                string `json:"base"`
		Body                string `json:"body"`
		Draft               bool   `json:"draft"`
		MaintainerCanModify *bool  `json:"maintainer_can_modify"`
	}
	if rep, good := c.decode(&req); !good {
		return rep
	}
	st := c.repo
	if req.Title == "" {
		return validationFailed("PullRequest", "title", "missing_field", "")
	}
	if utf8.RuneCountInString(req.Body) > maxBody {
		return validationFailed("PullRequest", "body", "custom", fmt.Sprintf("body is too long (maximum is %d characters)", maxBody))
	}
	head, sameRepo := c.headBranch(req.Head)
	headSHA, headOK := st.refs["refs/heads/"+head]
	if !sameRepo || !headOK {
		return validationFailed("PullRequest", "head", "invalid", "")
	}
	baseSHA, baseOK := st.refs["refs/heads/"+req.Base]
	if !baseOK {
		return validationFailed("PullRequest", "base", "invalid", "")
	}
	if st.openPullFor(head, req.Base, 0) != nil {
		return validationFailed("PullRequest", "", "custom", fmt.Sprintf("A pull request already exists for %s:%s.", st.owner, head))
	}
	if st.isAncestor(headSHA, baseSHA) {
		return validationFailed("PullRequest", "", "custom", fmt.Sprintf("No commits between %s and %s", req.Base, head))
	}
	mcm := true
	if req.MaintainerCanModify != nil {
		mcm = *req.MaintainerCanModify
	}
	t := now()
	is := &issue{
		id: c.s.newID(), number: st.nextNumber(), title: req.Title, body: req.Body, user: c.actor.login,
		state: "open", created: t, updated: t,
		pull: &pull{head: head, base: req.Base, headSHA: headSHA, baseSHA: baseSHA, draft: req.Draft, maintainerCanMod: mcm},
	}
	st.issues[is.number] = is
	rep := created(c.pullJSON(is))
	rep.header = http.Header{"Location": {c.repoAPI() + fmt.Sprintf("/pulls/%d", is.number)}}
	return rep
}

func listPulls(c *call) reply {
	st := c.repo
	state := c.query.Get("state")
	if state == "" {
		state = "open"
	}
	// GitHub silently ignores a head filter without its "owner:" (see
	// github.com/orgs/community/discussions/24354), and so does the fake.
	var head string
	if h := c.query.Get("head"); strings.Contains(h, ":") {
		branch, sameRepo := c.headBranch(h)
		if !sameRepo {
			return ok([]any{})
		}
		head = branch
	}
	base := c.query.Get("base")
	var all []*issue
	for _, is := range st.issues {
		if is.pull == nil || (state != "all" && is.state != state) ||
			(head != "" && is.pull.head != head) || (base != "" && is.pull.base != base) {
			continue
		}
		all = append(all, is)
	}
	sortKey := func(is *issue) time.Time {
		if c.query.Get("sort") == "updated" {
			return is.updated
		}
		return is.created
	}
	// GitHub sorts newest first by default, but ascending for sorts other
	// than "created" unless told otherwise.
	desc := true
	if dir := c.query.Get("direction"); dir != "" {
		desc = dir == "desc"
	} else if sortBy := c.query.Get("sort"); sortBy != "" && sortBy != "created" {
		desc = false
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := sortKey(all[i]), sortKey(all[j])
		if !a.Equal(b) {
			return a.After(b) == desc
		}
		return (all[i].number > all[j].number) == desc
	})
	start, end, header := c.page(len(all))
	out := []any{}
	for _, is := range all[start:end] {
		out = append(out, c.pullJSON(is))
	}
	return reply{status: http.StatusOK, body: out, header: header}
}

func (c *call) pull() (*issue, reply, bool) {
	is := c.repo.issues[int(c.intParam("pull_number"))]
	if is == nil || is.pull == nil {
		return nil, notFound(), false
	}
	return is, reply{}, true
}

func getPull(c *call) reply {
	is, rep, found := c.pull()
	if !found {
		return rep
	}
	return ok(c.pullJSON(is))
}

func updatePull(c *call) reply {
	is, rep, found := c.pull()
	if !found {
		return rep
	}
	var req struct {
		Title               *string `json:"title"`
		Body                *string `json:"body"`
		State               *string `json:"state"`
		Base                *string `json:"base"`
		MaintainerCanModify *bool   `json:"maintainer_can_modify"`
	}
	if rep, good := c.decode(&req); !good {
		return rep
	}
	st, p := c.repo, is.pull
	if req.Body != nil && utf8.RuneCountInString(*req.Body) > maxBody {
		return validationFailed("PullRequest", "body", "custom", fmt.Sprintf("body is too long (maximum is %d characters)", maxBody))
	}
	if req.Base != nil {
		if _, exists := st.refs["refs/heads/"+*req.Base]; !exists {
			return validationFailed("PullRequest", "base", "invalid", "")
		}
	}
	base := p.base
	if req.Base != nil {
		base = *req.Base
	}
	if req.State != nil && *req.State == "open" && (is.state == "closed" || base != p.base) &&
		st.openPullFor(p.head, base, is.number) != nil {
		return validationFailed("PullRequest", "", "custom", fmt.Sprintf("A pull request already exists for %s:%s.", st.owner, p.head))
	}
	t := now()
	if req.Title != nil {
		is.title = *req.Title
	}
	if req.Body != nil {
		is.body = *req.Body
	}
	if req.Base != nil {
		p.base = *req.Base
	}
	if req.MaintainerCanModify != nil {
		p.maintainerCanMod = *req.MaintainerCanModify
	}
	if req.State != nil && *req.State != is.state {
		is.state = *req.State
		if is.state == "closed" {
			is.closed = &t
		} else {
			is.closed = nil
		}
	}
	is.updated = t
	return ok(c.pullJSON(is))
}
