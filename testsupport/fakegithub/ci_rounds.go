package fakegithub

import "net/http"

// What a CI round on a pull request reads besides checks.go's: a pull
// request's commits, and GitHub Actions jobs as the check runs they are.

// actionsSlug is the slug of the GitHub Actions App.
const actionsSlug = "github-actions"

// AddActionsRun records a GitHub Actions workflow run as AddWorkflowRun
// does, and each of its jobs as the check run GitHub makes of it: on the
// run's head commit, made by the github-actions App, with the job's name,
// conclusion and id (GitHub Actions gives a job and its check run one id).
func (r *Repo) AddActionsRun(run WorkflowRun) WorkflowRun {
	run = r.AddWorkflowRun(run)
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	for _, j := range run.Jobs {
		r.st.checkRuns = append(r.st.checkRuns, &CheckRun{
			ID: j.ID, SuiteID: run.ID, Name: j.Name, HeadSHA: run.HeadSHA, App: actionsSlug,
			Status: run.Status, Conclusion: j.Conclusion,
		})
	}
	return run
}

// checkRunApp is the App of a check run, for its JSON: null when the
// check run names none.
func (c *call) checkRunApp(cr *CheckRun) any {
	if cr.App == "" {
		return nil
	}
	return map[string]any{
		"id":           c.s.userID(cr.App),
		"slug":         cr.App,
		"node_id":      nodeID("App", c.s.userID(cr.App)),
		"name":         cr.App,
		"description":  "",
		"owner":        c.s.userJSON("github"),
		"external_url": c.s.webBase(),
		"html_url":     c.s.webBase() + "/apps/" + cr.App,
		"created_at":   "2024-01-01T00:00:00Z",
		"updated_at":   "2024-01-01T00:00:00Z",
		"permissions":  map[string]any{},
		"events":       []any{},
	}
}

// commitsFrom lists the commits reachable from head but not from base,
// each after its parents.
func (st *repoState) commitsFrom(base, head string) []string {
	inBase := map[string]bool{}
	stack := []string{base}
	for len(stack) > 0 {
		sha := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if inBase[sha] || st.object(sha, "commit") == nil {
			continue
		}
		inBase[sha] = true
		stack = append(stack, st.objects[sha].commit.parents...)
	}
	var out []string
	seen := map[string]bool{}
	var visit func(sha string)
	visit = func(sha string) {
		if inBase[sha] || seen[sha] || st.object(sha, "commit") == nil {
			return
		}
		seen[sha] = true
		for _, p := range st.objects[sha].commit.parents {
			visit(p)
		}
		out = append(out, sha)
	}
	visit(head)
	return out
}

// maxPullCommits is the most commits GitHub lists of a pull request.
const maxPullCommits = 250

// listPullCommits lists a pull request's commits, oldest first.
func listPullCommits(c *call) reply {
	is, rep, found := c.pull()
	if !found {
		return rep
	}
	c.repo.refresh(is.pull)
	shas := c.repo.commitsFrom(is.pull.baseSHA, is.pull.headSHA)
	shas = shas[:min(len(shas), maxPullCommits)]
	start, end, header := c.page(len(shas))
	out := []any{}
	for _, sha := range shas[start:end] {
		out = append(out, c.s.commitJSON(c.repo, sha))
	}
	return reply{status: http.StatusOK, body: out, header: header}
}
