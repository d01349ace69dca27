package server

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
)

// panicsOnce is a solver whose first job panics and whose later jobs
// solve the issue.
type panicsOnce struct{ calls atomic.Int32 }

func (p *panicsOnce) Solve(_ context.Context, t repo.Task) (*repo.Outcome, error) {
	if p.calls.Add(1) == 1 {
		var stats []int
		_ = stats[3] // index out of range
	}
	return solved(t), nil
}

// solved is the outcome of a solver that fixed the calculator's issue t
// at its first attempt.
func solved(t repo.Task) *repo.Outcome {
	return &repo.Outcome{
		Log:   &attemptlog.Log{TaskID: t.ID, TestCommand: "pytest", Solved: true, Outcome: attemptlog.Solved, AttemptIndex: 0},
		Edits: []edits.Edit{{Path: "calc/stats.py", Content: calculatortest.RightStats}},
	}
}

// TestPanickingJob: a job that panics ends failed, with the reason in its
// status comment, and the server answers the next delivery and runs its
// job.
func TestPanickingJob(t *testing.T) {
	w := newWorld(t, nil, worldOptions{solver: &panicsOnce{}})
	w.start()
	w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
	jobs := w.wait()
	if len(jobs) != 1 || jobs[0].State != work.Failed || !strings.Contains(jobs[0].Reason, "index out of range") {
		t.Fatalf("jobs = %+v, want one failed by the panic", jobs)
	}
	comments := w.comments()
	if len(comments) != 1 || !strings.HasPrefix(comments[0], report.Marker) ||
		!strings.Contains(comments[0], "**Capsule: failed.**") || !strings.Contains(comments[0], "internal error: runtime error: index out of range") {
		t.Errorf("status comment does not say the job failed and why: %q", comments)
	}
	if labels := w.repo.Labels(issueNumber); !slices.Contains(labels, job.LabelFailed) || slices.Contains(labels, job.LabelInProgress) {
		t.Errorf("labels = %q", labels)
	}

	if code, answer := w.send("issue_comment", "", w.retry(maintainer), secret); code != http.StatusAccepted {
		t.Fatalf("the next delivery was answered %d %s", code, answer)
	}
	jobs = w.wait()
	if len(jobs) != 2 || jobs[0].State != work.Done {
		t.Fatalf("jobs = %+v, want the retry done", jobs)
	}
	if n := len(w.repo.PullRequests()); n != 1 {
		t.Errorf("%d pull requests, want the retry's", n)
	}
	if c := w.comments(); len(c) != 1 || !strings.Contains(c[0], "Solved") {
		t.Errorf("status comment after the retry: %q", c)
	}
}
