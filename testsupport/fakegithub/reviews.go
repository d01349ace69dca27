package fakegithub

import (
	"fmt"
	"net/http"
	"sort"
	"time"
	"unicode/utf8"
)

// review is a submitted pull request review.
type review struct {
	id        int64
	user      string
	state     string // APPROVED, CHANGES_REQUESTED or COMMENTED
	body      string
	commitID  string
	submitted time.Time
}

// reviewComment is a comment on a line of a pull request's diff, part of a
// review; a reply belongs to the thread of the comment it answers.
type reviewComment struct {
	id               int64
	reviewID         int64
	inReplyTo        int64
	user, body       string
	path             string
	line             int
	side             string
	diffHunk         string
	commitID         string
	created, updated time.Time
}

// Review is a pull request review to seed with AddReview, or one read back.
type Review struct {
	ID    int64
	User  string
	State string // APPROVED, CHANGES_REQUESTED or COMMENTED (the default)
	Body  string
	// CommitID is the head the review saw; empty means the pull request's
	// head now.
	CommitID string
	Comments []ReviewComment
}

// ReviewComment is a review comment to seed as part of a Review, or one read
// back with ReviewComments.
type ReviewComment struct {
	ID        int64
	ReviewID  int64
	InReplyTo int64 // the thread's first comment, for a reply
	User      string
	Path      string
	Line      int
	Side      string // RIGHT (the default) or LEFT
	DiffHunk  string
	Body      string
	CommitID  string
}

// AddReview submits a review with its line comments on pull request number
// and returns it with the ids the fake gave it and its comments.
func (r *Repo) AddReview(number int, rv Review) Review {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	is := r.st.issues[number]
	if is == nil || is.pull == nil {
		r.s.fatalf("fakegithub: AddReview: no pull request %s#%d", r.FullName(), number)
	}
	r.st.refresh(is.pull)
	if rv.State == "" {
		rv.State = "COMMENTED"
	}
	if rv.CommitID == "" {
		rv.CommitID = is.pull.headSHA
	}
	r.s.userID(rv.User)
	t := now()
	rv.ID = r.s.newID()
	is.pull.reviews = append(is.pull.reviews, &review{id: rv.ID, user: rv.User, state: rv.State, body: rv.Body, commitID: rv.CommitID, submitted: t})
	for i := range rv.Comments {
		cm := &rv.Comments[i]
		cm.ID, cm.ReviewID, cm.User, cm.CommitID = r.s.newID(), rv.ID, rv.User, rv.CommitID
		if cm.Side == "" {
			cm.Side = "RIGHT"
		}
		is.pull.comments = append(is.pull.comments, &reviewComment{
			id: cm.ID, reviewID: rv.ID, user: rv.User, body: cm.Body, path: cm.Path, line: cm.Line,
			side: cm.Side, diffHunk: cm.DiffHunk, commitID: rv.CommitID, created: t, updated: t,
		})
	}
	is.updated = t
	return rv
}

// ReviewComments returns the review comments of pull request number,
// replies included, in the order they were made.
func (r *Repo) ReviewComments(number int) []ReviewComment {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	is := r.st.issues[number]
	if is == nil || is.pull == nil {
		return nil
	}
	out := make([]ReviewComment, 0, len(is.pull.comments))
	for _, cm := range is.pull.comments {
		out = append(out, ReviewComment{
			ID: cm.id, ReviewID: cm.reviewID, InReplyTo: cm.inReplyTo, User: cm.user, Path: cm.path, Line: cm.line,
			Side: cm.side, DiffHunk: cm.diffHunk, Body: cm.body, CommitID: cm.commitID,
		})
	}
	return out
}

// findReviewComment returns the pull request holding review comment id.
func (st *repoState) findReviewComment(id int64) (*issue, *reviewComment) {
	for _, is := range st.issues {
		if is.pull == nil {
			continue
		}
		for _, cm := range is.pull.comments {
			if cm.id == id {
				return is, cm
			}
		}
	}
	return nil, nil
}

// reviewCommentJSON is a pull-request-review-comment, which also meets the
// description's review-comment (the shape of a review's own list).
func (c *call) reviewCommentJSON(is *issue, cm *reviewComment) map[string]any {
	api := c.repoAPI() + fmt.Sprintf("/pulls/comments/%d", cm.id)
	prAPI := c.repoAPI() + fmt.Sprintf("/pulls/%d", is.number)
	html := fmt.Sprintf("%s/%s/%s/pull/%d#discussion_r%d", c.s.webBase(), c.repo.owner, c.repo.name, is.number, cm.id)
	href := func(u string) map[string]any { return map[string]any{"href": u} }
	out := map[string]any{
		"url":                    api,
		"id":                     cm.id,
		"node_id":                nodeID("PRRC_", cm.id),
		"pull_request_review_id": cm.reviewID,
		"diff_hunk":              cm.diffHunk,
		"path":                   cm.path,
		"position":               cm.line,
		"original_position":      cm.line,
		"commit_id":              cm.commitID,
		"original_commit_id":     cm.commitID,
		"user":                   c.s.userJSON(cm.user),
		"body":                   cm.body,
		"created_at":             timeJSON(cm.created),
		"updated_at":             timeJSON(cm.updated),
		"html_url":               html,
		"pull_request_url":       prAPI,
		"author_association":     c.repo.association(cm.user),
		"_links":                 map[string]any{"self": href(api), "html": href(html), "pull_request": href(prAPI)},
		"line":                   cm.line,
		"original_line":          cm.line,
		"side":                   cm.side,
		"subject_type":           "line",
	}
	if cm.inReplyTo != 0 {
		out["in_reply_to_id"] = cm.inReplyTo
	}
	return out
}

func (c *call) reviewJSON(is *issue, rv *review) map[string]any {
	prAPI := c.repoAPI() + fmt.Sprintf("/pulls/%d", is.number)
	html := fmt.Sprintf("%s/%s/%s/pull/%d#pullrequestreview-%d", c.s.webBase(), c.repo.owner, c.repo.name, is.number, rv.id)
	href := func(u string) map[string]any { return map[string]any{"href": u} }
	return map[string]any{
		"id":                 rv.id,
		"node_id":            nodeID("PRR_", rv.id),
		"user":               c.s.userJSON(rv.user),
		"body":               rv.body,
		"state":              rv.state,
		"commit_id":          rv.commitID,
		"submitted_at":       timeJSON(rv.submitted),
		"html_url":           html,
		"pull_request_url":   prAPI,
		"_links":             map[string]any{"html": href(html), "pull_request": href(prAPI)},
		"author_association": c.repo.association(rv.user),
	}
}

func listReviewComments(c *call) reply {
	is, rep, found := c.pull()
	if !found {
		return rep
	}
	all := append([]*reviewComment(nil), is.pull.comments...)
	sort.Slice(all, func(i, j int) bool { return all[i].id < all[j].id })
	start, end, header := c.page(len(all))
	out := []any{}
	for _, cm := range all[start:end] {
		out = append(out, c.reviewCommentJSON(is, cm))
	}
	return reply{status: http.StatusOK, body: out, header: header}
}

func getReviewComment(c *call) reply {
	is, cm := c.repo.findReviewComment(c.intParam("comment_id"))
	if cm == nil {
		return notFound()
	}
	return ok(c.reviewCommentJSON(is, cm))
}

// createReviewReply answers a review comment in its thread. GitHub takes
// replies to a thread's first comment only.
func createReviewReply(c *call) reply {
	is, rep, found := c.pull()
	if !found {
		return rep
	}
	var to *reviewComment
	for _, cm := range is.pull.comments {
		if cm.id == c.intParam("comment_id") {
			to = cm
		}
	}
	if to == nil {
		return notFound()
	}
	if to.inReplyTo != 0 {
		return validationFailed("PullRequestReviewComment", "in_reply_to", "invalid", "in_reply_to must be the thread's first comment: replies to replies are not supported")
	}
	var req struct {
		Body string `json:"body"`
	}
	if rep, good := c.decode(&req); !good {
		return rep
	}
	if utf8.RuneCountInString(req.Body) > maxBody {
		return bodyTooLong("PullRequestReviewComment")
	}
	t := now()
	// A reply is a review of its own, as on GitHub.
	rv := &review{id: c.s.newID(), user: c.actor.login, state: "COMMENTED", commitID: to.commitID, submitted: t}
	is.pull.reviews = append(is.pull.reviews, rv)
	cm := &reviewComment{
		id: c.s.newID(), reviewID: rv.id, inReplyTo: to.id, user: c.actor.login, body: req.Body,
		path: to.path, line: to.line, side: to.side, diffHunk: to.diffHunk, commitID: to.commitID, created: t, updated: t,
	}
	is.pull.comments = append(is.pull.comments, cm)
	is.updated = t
	rep = created(c.reviewCommentJSON(is, cm))
	rep.header = http.Header{"Location": {c.repoAPI() + fmt.Sprintf("/pulls/comments/%d", cm.id)}}
	return rep
}

func (c *call) review() (*issue, *review, reply, bool) {
	is, rep, found := c.pull()
	if !found {
		return nil, nil, rep, false
	}
	for _, rv := range is.pull.reviews {
		if rv.id == c.intParam("review_id") {
			return is, rv, reply{}, true
		}
	}
	return nil, nil, notFound(), false
}

func getReview(c *call) reply {
	is, rv, rep, found := c.review()
	if !found {
		return rep
	}
	return ok(c.reviewJSON(is, rv))
}

// listReviewCommentsOfReview lists one review's comments, in the
// description's review-comment shape.
func listReviewCommentsOfReview(c *call) reply {
	is, rv, rep, found := c.review()
	if !found {
		return rep
	}
	var mine []*reviewComment
	for _, cm := range is.pull.comments {
		if cm.reviewID == rv.id {
			mine = append(mine, cm)
		}
	}
	start, end, header := c.page(len(mine))
	out := []any{}
	for _, cm := range mine[start:end] {
		out = append(out, c.reviewCommentJSON(is, cm))
	}
	return reply{status: http.StatusOK, body: out, header: header}
}
