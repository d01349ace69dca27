package fakegithub

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// CheckRun is a check run to seed with AddCheckRun, as a CI service would
// report it on a commit.
type CheckRun struct {
	ID      int64 // set by AddCheckRun
	SuiteID int64 // set by AddCheckRun: each run gets a suite of its own
	Name    string
	HeadSHA string
	// Status is queued, in_progress or completed (the default).
	Status string
	// Conclusion is success, failure, neutral, cancelled, skipped,
	// timed_out or action_required; empty for a run not completed.
	Conclusion           string
	Title, Summary, Text string
	Annotations          []Annotation
	// App is the slug of the App that made it; none when empty.
	App string
}

// Annotation is a check run's note on a line of a file.
type Annotation struct {
	Path               string
	StartLine, EndLine int
	Level              string // notice, warning or failure
	Title, Message     string
	RawDetails         string
}

// WorkflowRun is a GitHub Actions run to seed with AddWorkflowRun.
type WorkflowRun struct {
	ID         int64 // set by AddWorkflowRun
	Name       string
	Path       string // the workflow file; .github/workflows/ci.yml when empty
	HeadBranch string
	HeadSHA    string
	Event      string // push when empty
	Status     string // completed when empty
	Conclusion string
	Jobs       []WorkflowJob
}

// WorkflowJob is one job of a WorkflowRun, with the log its logs endpoint
// serves.
type WorkflowJob struct {
	ID         int64 // set by AddWorkflowRun
	Name       string
	Conclusion string
	Steps      []WorkflowStep
	Log        string
}

// WorkflowStep is a step of a WorkflowJob.
type WorkflowStep struct {
	Name       string
	Conclusion string
}

// AddCheckRun records a check run on a commit and returns it with its ids.
func (r *Repo) AddCheckRun(cr CheckRun) CheckRun {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if cr.Status == "" {
		cr.Status = "completed"
	}
	cr.ID, cr.SuiteID = r.s.newID(), r.s.newID()
	cr.Annotations = append([]Annotation(nil), cr.Annotations...)
	r.st.checkRuns = append(r.st.checkRuns, &cr)
	return cr
}

// AddWorkflowRun records a workflow run with its jobs and returns it with
// their ids.
func (r *Repo) AddWorkflowRun(run WorkflowRun) WorkflowRun {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if run.Path == "" {
		run.Path = ".github/workflows/ci.yml"
	}
	if run.Event == "" {
		run.Event = "push"
	}
	if run.Status == "" {
		run.Status = "completed"
	}
	run.ID = r.s.newID()
	run.Jobs = append([]WorkflowJob(nil), run.Jobs...)
	for i := range run.Jobs {
		run.Jobs[i].ID = r.s.newID()
	}
	r.st.workflowRuns = append(r.st.workflowRuns, &run)
	return run
}

// checkRunJSON is a check-run.
func (c *call) checkRunJSON(cr *CheckRun) map[string]any {
	api := c.repoAPI() + fmt.Sprintf("/check-runs/%d", cr.ID)
	html := fmt.Sprintf("%s/%s/%s/runs/%d", c.s.webBase(), c.repo.owner, c.repo.name, cr.ID)
	var conclusion, completed any
	if cr.Status == "completed" {
		conclusion, completed = cr.Conclusion, timeJSON(initialDate.Add(time.Hour))
	}
	return map[string]any{
		"id":           cr.ID,
		"node_id":      nodeID("CR_", cr.ID),
		"head_sha":     cr.HeadSHA,
		"name":         cr.Name,
		"external_id":  "",
		"url":          api,
		"html_url":     html,
		"details_url":  html,
		"status":       cr.Status,
		"conclusion":   conclusion,
		"started_at":   timeJSON(initialDate),
		"completed_at": completed,
		"check_suite":  map[string]any{"id": cr.SuiteID},
		"output": map[string]any{
			"title":             cr.Title,
			"summary":           cr.Summary,
			"text":              cr.Text,
			"annotations_count": len(cr.Annotations),
			"annotations_url":   api + "/annotations",
		},
		"app":           c.checkRunApp(cr),
		"pull_requests": []any{},
	}
}

func (c *call) checkRunsReply(keep func(*CheckRun) bool) reply {
	var runs []*CheckRun
	for _, cr := range c.repo.checkRuns {
		if keep(cr) && (c.query.Get("check_name") == "" || c.query.Get("check_name") == cr.Name) &&
			(c.query.Get("status") == "" || c.query.Get("status") == cr.Status) {
			runs = append(runs, cr)
		}
	}
	start, end, header := c.page(len(runs))
	out := []any{}
	for _, cr := range runs[start:end] {
		out = append(out, c.checkRunJSON(cr))
	}
	return reply{status: http.StatusOK, body: map[string]any{"total_count": len(runs), "check_runs": out}, header: header}
}

func listCheckRunsForRef(c *call) reply {
	sha, found := c.repo.resolve(c.params["ref"])
	if !found {
		return notFound()
	}
	return c.checkRunsReply(func(cr *CheckRun) bool { return cr.HeadSHA == sha })
}

func listCheckRunsInSuite(c *call) reply {
	id := c.intParam("check_suite_id")
	return c.checkRunsReply(func(cr *CheckRun) bool { return cr.SuiteID == id })
}

func (c *call) checkRun() *CheckRun {
	for _, cr := range c.repo.checkRuns {
		if cr.ID == c.intParam("check_run_id") {
			return cr
		}
	}
	return nil
}

func listAnnotations(c *call) reply {
	cr := c.checkRun()
	if cr == nil {
		return notFound()
	}
	start, end, header := c.page(len(cr.Annotations))
	out := []any{}
	for _, a := range cr.Annotations[start:end] {
		out = append(out, map[string]any{
			"path":             a.Path,
			"blob_href":        fmt.Sprintf("%s/%s/%s/blob/%s/%s", c.s.webBase(), c.repo.owner, c.repo.name, cr.HeadSHA, a.Path),
			"start_line":       a.StartLine,
			"end_line":         a.EndLine,
			"start_column":     nil,
			"end_column":       nil,
			"annotation_level": a.Level,
			"title":            a.Title,
			"message":          a.Message,
			"raw_details":      a.RawDetails,
		})
	}
	return reply{status: http.StatusOK, body: out, header: header}
}

// workflowRunJSON is a workflow-run.
func (c *call) workflowRunJSON(run *WorkflowRun) map[string]any {
	api := c.repoAPI() + fmt.Sprintf("/actions/runs/%d", run.ID)
	var conclusion any
	if run.Status == "completed" {
		conclusion = run.Conclusion
	}
	var headCommit any
	if c.repo.objects[run.HeadSHA] != nil {
		g := c.gitCommitJSON(run.HeadSHA)
		headCommit = map[string]any{
			"id":        run.HeadSHA,
			"tree_id":   g["tree"].(map[string]any)["sha"],
			"message":   g["message"],
			"timestamp": g["committer"].(map[string]any)["date"],
			"author":    map[string]any{"name": g["author"].(map[string]any)["name"], "email": g["author"].(map[string]any)["email"]},
			"committer": map[string]any{"name": g["committer"].(map[string]any)["name"], "email": g["committer"].(map[string]any)["email"]},
		}
	}
	repo := c.s.repoJSON(c.repo)
	return map[string]any{
		"id":                   run.ID,
		"node_id":              nodeID("WFR_", run.ID),
		"name":                 run.Name,
		"head_branch":          run.HeadBranch,
		"head_sha":             run.HeadSHA,
		"path":                 run.Path,
		"display_title":        run.Name,
		"run_number":           run.ID,
		"event":                run.Event,
		"status":               run.Status,
		"conclusion":           conclusion,
		"workflow_id":          1,
		"url":                  api,
		"html_url":             fmt.Sprintf("%s/%s/%s/actions/runs/%d", c.s.webBase(), c.repo.owner, c.repo.name, run.ID),
		"pull_requests":        []any{},
		"created_at":           timeJSON(initialDate),
		"updated_at":           timeJSON(initialDate.Add(time.Hour)),
		"jobs_url":             api + "/jobs",
		"logs_url":             api + "/logs",
		"check_suite_url":      c.repoAPI() + fmt.Sprintf("/check-suites/%d", run.ID),
		"artifacts_url":        api + "/artifacts",
		"cancel_url":           api + "/cancel",
		"rerun_url":            api + "/rerun",
		"workflow_url":         c.repoAPI() + "/actions/workflows/1",
		"head_commit":          headCommit,
		"repository":           repo,
		"head_repository":      repo,
		"run_attempt":          1,
		"run_started_at":       timeJSON(initialDate),
		"triggering_actor":     c.s.userJSON(c.repo.owner),
		"actor":                c.s.userJSON(c.repo.owner),
		"referenced_workflows": []any{},
	}
}

func listWorkflowRuns(c *call) reply {
	var runs []*WorkflowRun
	for _, run := range c.repo.workflowRuns {
		q := c.query
		if (q.Get("branch") == "" || q.Get("branch") == run.HeadBranch) && (q.Get("head_sha") == "" || q.Get("head_sha") == run.HeadSHA) &&
			(q.Get("event") == "" || q.Get("event") == run.Event) && (q.Get("status") == "" || q.Get("status") == run.Status || q.Get("status") == run.Conclusion) {
			runs = append(runs, run)
		}
	}
	start, end, header := c.page(len(runs))
	out := []any{}
	for _, run := range runs[start:end] {
		out = append(out, c.workflowRunJSON(run))
	}
	return reply{status: http.StatusOK, body: map[string]any{"total_count": len(runs), "workflow_runs": out}, header: header}
}

func (c *call) workflowRun() *WorkflowRun {
	for _, run := range c.repo.workflowRuns {
		if run.ID == c.intParam("run_id") {
			return run
		}
	}
	return nil
}

func getWorkflowRun(c *call) reply {
	run := c.workflowRun()
	if run == nil {
		return notFound()
	}
	return ok(c.workflowRunJSON(run))
}

// jobJSON is a job.
func (c *call) jobJSON(run *WorkflowRun, j *WorkflowJob) map[string]any {
	api := c.repoAPI() + fmt.Sprintf("/actions/jobs/%d", j.ID)
	steps := []any{}
	for i, st := range j.Steps {
		steps = append(steps, map[string]any{
			"name": st.Name, "status": "completed", "conclusion": st.Conclusion, "number": i + 1,
			"started_at": timeJSON(initialDate), "completed_at": timeJSON(initialDate.Add(time.Minute)),
		})
	}
	var conclusion any
	if run.Status == "completed" {
		conclusion = j.Conclusion
	}
	return map[string]any{
		"id":                j.ID,
		"node_id":           nodeID("J_", j.ID),
		"run_id":            run.ID,
		"run_url":           c.repoAPI() + fmt.Sprintf("/actions/runs/%d", run.ID),
		"run_attempt":       1,
		"head_sha":          run.HeadSHA,
		"head_branch":       run.HeadBranch,
		"workflow_name":     run.Name,
		"name":              j.Name,
		"url":               api,
		"html_url":          fmt.Sprintf("%s/%s/%s/actions/runs/%d/job/%d", c.s.webBase(), c.repo.owner, c.repo.name, run.ID, j.ID),
		"status":            run.Status,
		"conclusion":        conclusion,
		"created_at":        timeJSON(initialDate),
		"started_at":        timeJSON(initialDate),
		"completed_at":      timeJSON(initialDate.Add(time.Hour)),
		"check_run_url":     c.repoAPI() + fmt.Sprintf("/check-runs/%d", j.ID),
		"steps":             steps,
		"labels":            []any{"ubuntu-latest"},
		"runner_id":         1,
		"runner_name":       "GitHub Actions 1",
		"runner_group_id":   1,
		"runner_group_name": "GitHub Actions",
	}
}

func listJobsForRun(c *call) reply {
	run := c.workflowRun()
	if run == nil {
		return notFound()
	}
	start, end, header := c.page(len(run.Jobs))
	out := []any{}
	for i := range run.Jobs[start:end] {
		out = append(out, c.jobJSON(run, &run.Jobs[start+i]))
	}
	return reply{status: http.StatusOK, body: map[string]any{"total_count": len(run.Jobs), "jobs": out}, header: header}
}

// getJobLogs redirects, as GitHub does, to a short-lived download of the
// job's log: {server}/_codeload/{owner}/{repo}/job-logs/{job_id}.
func getJobLogs(c *call) reply {
	if c.repo.job(c.intParam("job_id")) == nil {
		return notFound()
	}
	loc := fmt.Sprintf("%s%s%s/%s/job-logs/%d", c.s.srv.URL, codeloadPrefix, c.repo.owner, c.repo.name, c.intParam("job_id"))
	return reply{status: http.StatusFound, header: http.Header{"Location": {loc}}}
}

// job finds a workflow job by id.
func (st *repoState) job(id int64) *WorkflowJob {
	for _, run := range st.workflowRuns {
		for i := range run.Jobs {
			if run.Jobs[i].ID == id {
				return &run.Jobs[i]
			}
		}
	}
	return nil
}

// serveJobLog answers a download of a job's log made by getJobLogs.
func (s *Server) serveJobLog(w http.ResponseWriter, r *http.Request, owner, repo, id string) {
	log, found := s.jobLog(owner, repo, id)
	if !found {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(log))
}

// jobLog is the log of job id; found is false for an unknown repository
// or job.
func (s *Server) jobLog(owner, repo, id string) (log string, found bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.repos[strings.ToLower(owner+"/"+repo)]
	n, err := strconv.ParseInt(id, 10, 64)
	if st == nil || err != nil {
		return "", false
	}
	if j := st.job(n); j != nil {
		return j.Log, true
	}
	return "", false
}
