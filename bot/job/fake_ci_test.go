package job

import (
	"context"
	"slices"

	"github.com/capsulehq/capsule/bot/round"
)

// fakeCI is what CI reported, in the fake: check runs by commit, their
// annotations, workflow runs' jobs and the jobs' logs.
type fakeCI struct {
	checkRuns   map[string][]CheckRun // commit -> its latest check runs
	annotations map[int64][]round.Annotation
	jobs        map[int64][]WorkflowJob // workflow run -> its jobs
	logs        map[int64]string        // job -> its log
}

// addCheckRun records a completed check run on commit sha with its
// annotations, and returns its id, which a GitHub Actions job shares.
func (f *fakeGitHub) addCheckRun(sha string, c CheckRun, notes ...round.Annotation) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ci.checkRuns == nil {
		f.ci = fakeCI{checkRuns: map[string][]CheckRun{}, annotations: map[int64][]round.Annotation{},
			jobs: map[int64][]WorkflowJob{}, logs: map[int64]string{}}
	}
	f.nextID++
	c.ID, c.Annotations = f.nextID, len(notes)
	if c.Status == "" {
		c.Status = "completed"
	}
	f.ci.checkRuns[sha] = append(f.ci.checkRuns[sha], c)
	f.ci.annotations[c.ID] = notes
	return c.ID
}

// addActionsJob records a GitHub Actions job of workflow run run on
// commit sha: its check run, the job and its log.
func (f *fakeGitHub) addActionsJob(sha string, run int64, name, conclusion, log string, notes ...round.Annotation) int64 {
	id := f.addCheckRun(sha, CheckRun{Name: name, App: actionsApp, Conclusion: conclusion}, notes...)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ci.jobs[run] = append(f.ci.jobs[run], WorkflowJob{ID: id, Name: name, Conclusion: conclusion})
	f.ci.logs[id] = log
	return id
}

func (f *fakeGitHub) PullRequestCommits(_ context.Context, pull int) ([]Commit, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("PullRequestCommits"); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(f.pulls, func(p fakePull) bool { return p.Number == pull })
	if i < 0 {
		return nil, notFoundf("pull request %d", pull)
	}
	var out []Commit
	for sha := f.heads[f.pulls[i].Head]; sha != f.heads[f.defaultBranch]; {
		c, ok := f.commit(sha)
		if !ok {
			break
		}
		out = append(out, Commit{SHA: c.SHA, Message: c.Message})
		sha = c.Parent
	}
	slices.Reverse(out)
	return out, nil
}

func (f *fakeGitHub) CheckRuns(_ context.Context, sha string) ([]CheckRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("CheckRuns"); err != nil {
		return nil, err
	}
	return slices.Clone(f.ci.checkRuns[sha]), nil
}

func (f *fakeGitHub) Annotations(_ context.Context, checkRun int64) ([]round.Annotation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("Annotations"); err != nil {
		return nil, err
	}
	return slices.Clone(f.ci.annotations[checkRun]), nil
}

func (f *fakeGitHub) WorkflowJobs(_ context.Context, run int64) ([]WorkflowJob, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("WorkflowJobs"); err != nil {
		return nil, err
	}
	jobs, ok := f.ci.jobs[run]
	if !ok {
		return nil, notFoundf("workflow run %d", run)
	}
	return slices.Clone(jobs), nil
}

func (f *fakeGitHub) JobLog(_ context.Context, job int64) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("JobLog"); err != nil {
		return "", err
	}
	log, ok := f.ci.logs[job]
	if !ok {
		return "", notFoundf("the log of job %d", job)
	}
	return log, nil
}
