package job

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/bot/round"
)

// MaxJobLogBytes bounds what JobLog keeps of a job's log: its end, where
// a failing step stops the job.
const MaxJobLogBytes = 4 << 20

// maxPages bounds the pages a list reads (100 items each): a busy commit's
// check runs or a workflow's jobs, never an endless list.
const maxPages = 10

// PullRequestCommits implements GitHub.
func (r *Repository) PullRequestCommits(ctx context.Context, pull int) ([]Commit, error) {
	return listPages(maxPages, func(opts github.ListOptions) ([]Commit, *github.Response, error) {
		list, resp, err := r.gh.PullRequests.ListCommits(ctx, r.owner, r.name, pull, &opts)
		out := make([]Commit, 0, len(list))
		for _, c := range list {
			out = append(out, Commit{SHA: c.GetSHA(), Message: c.GetCommit().GetMessage()})
		}
		return out, resp, err
	})
}

// CheckRuns implements GitHub.
func (r *Repository) CheckRuns(ctx context.Context, sha string) ([]CheckRun, error) {
	return listPages(maxPages, func(opts github.ListOptions) ([]CheckRun, *github.Response, error) {
		res, resp, err := r.gh.Checks.ListCheckRunsForRef(ctx, r.owner, r.name, sha,
			&github.ListCheckRunsOptions{Filter: github.Ptr("latest"), ListOptions: opts})
		out := make([]CheckRun, 0, len(res.GetCheckRuns()))
		for _, c := range res.GetCheckRuns() {
			out = append(out, CheckRun{
				ID: c.GetID(), Name: c.GetName(), App: c.GetApp().GetSlug(),
				Status: c.GetStatus(), Conclusion: c.GetConclusion(),
				Title: c.GetOutput().GetTitle(), Summary: c.GetOutput().GetSummary(), Text: c.GetOutput().GetText(),
				Annotations: c.GetOutput().GetAnnotationsCount(),
			})
		}
		return out, resp, err
	})
}

// Annotations implements GitHub: the first page, 50 annotations, which
// is more than a round's task shows.
func (r *Repository) Annotations(ctx context.Context, checkRun int64) ([]round.Annotation, error) {
	list, _, err := r.gh.Checks.ListCheckRunAnnotations(ctx, r.owner, r.name, checkRun, &github.ListOptions{PerPage: 50})
	if err != nil {
		return nil, notFound(err)
	}
	out := make([]round.Annotation, 0, len(list))
	for _, a := range list {
		out = append(out, round.Annotation{
			Path: a.GetPath(), Line: a.GetStartLine(), Level: a.GetAnnotationLevel(), Title: a.GetTitle(), Message: a.GetMessage(),
		})
	}
	return out, nil
}

// WorkflowJobs implements GitHub.
func (r *Repository) WorkflowJobs(ctx context.Context, run int64) ([]WorkflowJob, error) {
	return listPages(maxPages, func(opts github.ListOptions) ([]WorkflowJob, *github.Response, error) {
		res, resp, err := r.gh.Actions.ListWorkflowJobs(ctx, r.owner, r.name, run,
			&github.ListWorkflowJobsOptions{Filter: "latest", ListOptions: opts})
		out := make([]WorkflowJob, 0, len(res.GetJobs()))
		for _, j := range res.GetJobs() {
			out = append(out, WorkflowJob{ID: j.GetID(), Name: j.GetName(), Conclusion: j.GetConclusion()})
		}
		return out, resp, err
	})
}

// JobLog implements GitHub: GitHub answers with a redirect to a
// short-lived download, which is followed here.
func (r *Repository) JobLog(ctx context.Context, job int64) (string, error) {
	link, resp, err := r.gh.Actions.GetWorkflowJobLogs(ctx, r.owner, r.name, job, 3)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		// go-github reports a download's 404 as an error of its own.
		return "", fmt.Errorf("the log of job %d: %w (GitHub answered 404: it may have expired)", job, ErrNotFound)
	}
	if err != nil {
		return "", err
	}
	body, err := r.download(ctx, link.String())
	if err != nil {
		return "", err
	}
	defer body.Close()
	return lastBytes(body, MaxJobLogBytes)
}

// download fetches a file GitHub redirected to, with the Download client.
func (r *Repository) download(ctx context.Context, link string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return nil, err
	}
	client := r.Download
	if client == nil {
		client = &http.Client{Timeout: downloadTimeout}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, &downloadError{code: resp.StatusCode, status: resp.Status}
	}
	return resp.Body, nil
}

// lastBytes reads r to its end and keeps its last n bytes at most, from
// the start of a line, saying so when it cut.
func lastBytes(r io.Reader, n int) (string, error) {
	var kept []byte
	buf := make([]byte, 64<<10)
	cut := false
	for {
		m, err := r.Read(buf)
		kept = append(kept, buf[:m]...)
		if len(kept) > 2*n {
			kept, cut = append(kept[:0], kept[len(kept)-n:]...), true
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("read the log: %w", err)
		}
	}
	if len(kept) > n {
		kept, cut = kept[len(kept)-n:], true
	}
	s := string(kept)
	if cut {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		s = "[... the start of the log is cut ...]\n" + s
	}
	return strings.ToValidUTF8(s, ""), nil
}
