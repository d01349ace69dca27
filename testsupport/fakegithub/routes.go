package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// authKind says which credentials an endpoint takes.
type authKind int

const (
	authToken authKind = iota // an installation token or a WithToken token
	authJWT                   // the App's JWT
)

// endpoint is one operation the fake implements.
type endpoint struct {
	auth   authKind
	handle func(*call) reply
}

// endpoints maps "METHOD /template" of the description to its handler. An
// operation in the description but not here is valid but unimplemented.
var endpoints = map[string]endpoint{
	"GET /app":               {authJWT, getApp},
	"GET /app/installations": {authJWT, listInstallations},
	"GET /app/installations/{installation_id}":                {authJWT, getInstallation},
	"POST /app/installations/{installation_id}/access_tokens": {authJWT, createInstallationToken},
	"GET /repos/{owner}/{repo}/installation":                  {authJWT, getRepoInstallation},
	"GET /installation/repositories":                          {authToken, listInstallationRepos},

	"GET /repos/{owner}/{repo}":                                     {authToken, getRepo},
	"GET /repos/{owner}/{repo}/branches/{branch}":                   {authToken, getBranch},
	"GET /repos/{owner}/{repo}/contents/{path}":                     {authToken, getContents},
	"GET /repos/{owner}/{repo}/tarball/{ref}":                       {authToken, getTarball},
	"GET /repos/{owner}/{repo}/collaborators/{username}/permission": {authToken, getPermission},

	"GET /repos/{owner}/{repo}/git/ref/{ref}":            {authToken, getRef},
	"GET /repos/{owner}/{repo}/git/matching-refs/{ref}":  {authToken, listMatchingRefs},
	"POST /repos/{owner}/{repo}/git/refs":                {authToken, createRef},
	"PATCH /repos/{owner}/{repo}/git/refs/{ref}":         {authToken, updateRef},
	"DELETE /repos/{owner}/{repo}/git/refs/{ref}":        {authToken, deleteRef},
	"POST /repos/{owner}/{repo}/git/blobs":               {authToken, createBlob},
	"GET /repos/{owner}/{repo}/git/blobs/{file_sha}":     {authToken, getBlob},
	"POST /repos/{owner}/{repo}/git/trees":               {authToken, createTree},
	"GET /repos/{owner}/{repo}/git/trees/{tree_sha}":     {authToken, getTree},
	"POST /repos/{owner}/{repo}/git/commits":             {authToken, createCommit},
	"GET /repos/{owner}/{repo}/git/commits/{commit_sha}": {authToken, getCommit},

	"GET /repos/{owner}/{repo}/issues/{issue_number}":                  {authToken, getIssue},
	"GET /repos/{owner}/{repo}/issues/{issue_number}/comments":         {authToken, listComments},
	"POST /repos/{owner}/{repo}/issues/{issue_number}/comments":        {authToken, createComment},
	"GET /repos/{owner}/{repo}/issues/comments/{comment_id}":           {authToken, getComment},
	"PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}":         {authToken, updateComment},
	"DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}":        {authToken, deleteComment},
	"GET /repos/{owner}/{repo}/issues/{issue_number}/labels":           {authToken, listIssueLabels},
	"POST /repos/{owner}/{repo}/issues/{issue_number}/labels":          {authToken, addIssueLabels},
	"PUT /repos/{owner}/{repo}/issues/{issue_number}/labels":           {authToken, setIssueLabels},
	"DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}": {authToken, removeIssueLabel},
	"GET /repos/{owner}/{repo}/labels":                                 {authToken, listRepoLabels},
	"POST /repos/{owner}/{repo}/labels":                                {authToken, createRepoLabel},

	"GET /repos/{owner}/{repo}/pulls":                 {authToken, listPulls},
	"POST /repos/{owner}/{repo}/pulls":                {authToken, createPull},
	"GET /repos/{owner}/{repo}/pulls/{pull_number}":   {authToken, getPull},
	"PATCH /repos/{owner}/{repo}/pulls/{pull_number}": {authToken, updatePull},

	"GET /repos/{owner}/{repo}/pulls/{pull_number}/commits":                        {authToken, listPullCommits},
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/comments":                       {authToken, listReviewComments},
	"GET /repos/{owner}/{repo}/pulls/comments/{comment_id}":                        {authToken, getReviewComment},
	"POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies": {authToken, createReviewReply},
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}":            {authToken, getReview},
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments":   {authToken, listReviewCommentsOfReview},

	"GET /repos/{owner}/{repo}/commits/{ref}/check-runs":                 {authToken, listCheckRunsForRef},
	"GET /repos/{owner}/{repo}/check-suites/{check_suite_id}/check-runs": {authToken, listCheckRunsInSuite},
	"GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations":    {authToken, listAnnotations},
	"GET /repos/{owner}/{repo}/actions/runs":                             {authToken, listWorkflowRuns},
	"GET /repos/{owner}/{repo}/actions/runs/{run_id}":                    {authToken, getWorkflowRun},
	"GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs":               {authToken, listJobsForRun},
	"GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs":               {authToken, getJobLogs},
}

// call is one authenticated request being handled, with the server locked.
type call struct {
	s      *Server
	r      *http.Request
	params map[string]string
	query  url.Values
	body   []byte
	actor  *actor
	repo   *repoState // for /repos/{owner}/{repo}/... endpoints
}

// intParam returns the integer path parameter name. The description has
// already checked that it is one.
func (c *call) intParam(name string) int64 {
	n, _ := strconv.ParseInt(c.params[name], 10, 64)
	return n
}

// decode unmarshals the JSON body into v.
func (c *call) decode(v any) (reply, bool) {
	if len(c.body) == 0 {
		return reply{}, true
	}
	if err := json.Unmarshal(c.body, v); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON"), false
	}
	return reply{}, true
}

// page slices n items by the per_page and page query parameters and returns
// the bounds with the Link header GitHub would send.
func (c *call) page(n int) (start, end int, header http.Header) {
	perPage := 30
	if v, err := strconv.Atoi(c.query.Get("per_page")); err == nil && v > 0 {
		perPage = min(v, 100)
	}
	page := 1
	if v, err := strconv.Atoi(c.query.Get("page")); err == nil && v > 0 {
		page = v
	}
	last := max((n+perPage-1)/perPage, 1)
	start = min((page-1)*perPage, n)
	end = min(start+perPage, n)
	link := func(p int, rel string) string {
		q := url.Values{}
		for k, vs := range c.query {
			q[k] = vs
		}
		q.Set("page", strconv.Itoa(p))
		q.Set("per_page", strconv.Itoa(perPage))
		return fmt.Sprintf("<%s%s?%s>; rel=%q", c.s.apiBase(), c.r.URL.EscapedPath()[len(c.s.cfg.prefix):], q.Encode(), rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(page-1, "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"))
	}
	header = http.Header{}
	if len(links) > 0 {
		v := links[0]
		for _, l := range links[1:] {
			v += ", " + l
		}
		header.Set("Link", v)
	}
	return start, end, header
}

func ok(body any) reply      { return reply{status: http.StatusOK, body: body} }
func created(body any) reply { return reply{status: http.StatusCreated, body: body} }
func noContent() reply       { return reply{status: http.StatusNoContent} }
func notFound() reply        { return errorReply(http.StatusNotFound, "Not Found") }
