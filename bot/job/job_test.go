package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repo"
)

// solverFunc is a Solver in a function.
type solverFunc func(context.Context, repo.Task) (*repo.Outcome, error)

func (f solverFunc) Solve(ctx context.Context, t repo.Task) (*repo.Outcome, error) {
	return f(ctx, t)
}

// fix is the change the fake solver makes: it fixes add.
var fix = edits.Edit{Path: "calc/ops.py", Content: "def add(a, b):\n    return a + b\n"}

// outcome is a loop's outcome of kind o with changes es.
func outcome(o attemptlog.Outcome, es ...edits.Edit) *repo.Outcome {
	l := &attemptlog.Log{TaskID: "issue-12", TestCommand: "pytest", Outcome: o, Solved: o != attemptlog.NotSolved, AttemptIndex: 1}
	if o == attemptlog.NotSolved {
		l.AttemptIndex, l.Stopped = -1, "the tests do not pass after 6 attempts"
	}
	return &repo.Outcome{Log: l, Edits: es}
}

// stoppedBeforeModel is the outcome of a job whose test command was not
// found: it stopped after the baseline, before any model call.
func stoppedBeforeModel() *repo.Outcome {
	e := &attemptlog.Environment{Phase: "baseline", What: "`nosuchrunner` was not found (exit status 127)", Command: "nosuchrunner -q",
		Tail: "sh: 1: nosuchrunner: not found", Fix: "name a test command the image can run (`test:`)"}
	return &repo.Outcome{Log: &attemptlog.Log{TaskID: "issue-12", TestCommand: "nosuchrunner -q", Outcome: attemptlog.NotSolved, AttemptIndex: -1,
		Environment: e, Stopped: e.Text()}}
}

// solves is a solver that checks its task (the issue's text, the fetched
// tree), reports a failed and a passing attempt, and returns o.
func solves(o *repo.Outcome) solverFunc {
	return func(_ context.Context, t repo.Task) (*repo.Outcome, error) {
		if t.Title != "add subtracts" || t.Body != "add(1, 2) gives -1" || t.ID != "issue-12" {
			return nil, fmt.Errorf("task = %+v, not the issue's", t)
		}
		// The tree is the default branch's head: its set-up inputs are
		// trusted as they are.
		if t.Repository != fakeOwner+"/"+fakeName || t.TrustedInput != nil {
			return nil, fmt.Errorf("repository %q, trusted input %v; want the default branch's tree", t.Repository, t.TrustedInput != nil)
		}
		if data, err := os.ReadFile(filepath.Join(t.Dir, "calc", "ops.py")); err != nil || !strings.Contains(string(data), "a - b") {
			return nil, fmt.Errorf("the tree lacks calc/ops.py: %q %v", data, err)
		}
		t.Progress(pipeline.Event{Attempt: 0, Of: 5, Summary: "1 failed"})
		t.Progress(pipeline.Event{Attempt: 1, Of: 5, Passed: o.Solved(), Summary: "1 passed"})
		return o, nil
	}
}

// fails is a solver that fails with err.
func fails(err error) solverFunc {
	return func(context.Context, repo.Task) (*repo.Outcome, error) { return nil, err }
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// labelled is the target of the trigger label added by alice, a
// maintainer.
func labelled() work.Request {
	return work.Request{Owner: fakeOwner, Repo: fakeName, Issue: fakeIssue, Sender: "alice", Trigger: work.TriggerLabel, Label: "capsule", Delivery: "d-1"}
}

// setUp returns the fake, changed by prepare, and labelled(), changed by
// change; either may be nil.
func setUp(t *testing.T, prepare func(*fakeGitHub), change func(*work.Request)) (*fakeGitHub, work.Request) {
	f := newFakeGitHub(t)
	if prepare != nil {
		prepare(f)
	}
	target := labelled()
	if change != nil {
		change(&target)
	}
	return f, target
}

// firstRun leaves on f what a first run for the issue left: Capsule's one
// commit on the issue's branch, and its draft pull request 7 whose body is
// body.
func firstRun(f *fakeGitHub, body string) {
	sha := "00000000000000000000000000000000000000aa"
	f.commits = append(f.commits, fakeCommit{SHA: sha, Parent: fakeBase, Message: withTrailers("Fix #12: add subtracts", fakeIssue, ""), Files: []File{fix1}})
	f.heads[work.Branch(fakeIssue)] = sha
	f.pulls = append(f.pulls, fakePull{NewPullRequest: NewPullRequest{Title: "old", Body: body, Head: work.Branch(fakeIssue), Base: "main", Draft: true}, Number: 7, Open: true})
}

// fix1 is the first run's change on the branch.
var fix1 = File{Path: "calc/ops.py", Content: "def add(a, b):\n    return b + a\n", Mode: "100644"}

// TestRunDecisions table-tests what a job does on GitHub for each way it
// can go, against the port's fake: no HTTP, no Docker, no model.
func TestRunDecisions(t *testing.T) {
	tests := []struct {
		name    string
		target  func(*work.Request)
		runner  func(*Runner)
		prepare func(*fakeGitHub)
		solver  solverFunc // nil: the job must not reach the solver
		hooks   Hooks

		state   work.State
		errIs   error  // the error Run must return (nil: none)
		reason  string // in Result.Reason
		status  string // in the one status comment; "" for no status comment
		labels  []string
		pulls   int // pull requests open after the run
		draft   bool
		comment string // in a comment that is not the status comment
		check   func(t *testing.T, f *fakeGitHub, res Result)
	}{
		{
			name:   "a proven fix opens a pull request ready for review",
			solver: solves(outcome(attemptlog.Solved, fix)),
			state:  work.Done, status: "**Capsule: done.** Solved", labels: []string{LabelDone}, pulls: 1,
			check: func(t *testing.T, f *fakeGitHub, res Result) {
				if len(f.commits) != 1 || f.commits[0].Parent != fakeBase || !strings.HasPrefix(f.commits[0].Message, "Fix #12: add subtracts") ||
					trailer(f.commits[0].Message, TrailerIssue) != "12" {
					t.Errorf("commits = %+v", f.commits)
				}
				if f.heads[work.Branch(fakeIssue)] != f.commits[0].SHA {
					t.Errorf("branch %s at %q, want the commit", work.Branch(fakeIssue), f.heads[work.Branch(fakeIssue)])
				}
				if p := f.pulls[0]; p.Base != "main" || p.Head != work.Branch(fakeIssue) || !strings.Contains(p.Body, "#12") {
					t.Errorf("pull request = %+v", p)
				}
				if res.PullRequest != 100 || !strings.HasSuffix(res.PullRequestURL, "/pull/100") || res.StatusComment == 0 || res.HeadSHA != f.commits[0].SHA {
					t.Errorf("result = %+v", res)
				}
			},
		},
		{
			name:   "an unproven fix is a draft",
			solver: solves(outcome(attemptlog.Unproven, fix)),
			state:  work.Done, status: "done, unproven", labels: []string{LabelUnproven}, pulls: 1, draft: true,
			check: func(t *testing.T, f *fakeGitHub, _ Result) {
				if !strings.HasPrefix(f.commits[0].Message, "Unproven fix for #12") {
					t.Errorf("commit message = %q", f.commits[0].Message)
				}
			},
		},
		{
			name:   "no passing attempt opens a draft by default",
			solver: solves(outcome(attemptlog.NotSolved, fix)),
			state:  work.Failed, reason: "the tests do not pass after 6 attempts", status: "**Capsule: failed.**",
			labels: []string{LabelFailed}, pulls: 1, draft: true,
		},
		{
			name:    "no passing attempt with on_failure: comment opens nothing",
			prepare: func(f *fakeGitHub) { f.files[".github/capsule.yml"] = "on_failure: comment\n" },
			solver:  solves(outcome(attemptlog.NotSolved, fix)),
			state:   work.Failed, reason: "the tests do not pass", status: "**Capsule: failed.**", labels: []string{LabelFailed},
		},
		{
			name:   "a passing answer that changes nothing opens no pull request",
			solver: solves(outcome(attemptlog.Solved)),
			state:  work.Done, status: "**Capsule: done.**", labels: []string{LabelDone},
		},
		{
			name:   "a sender below the minimum gets one polite note and no run",
			target: func(t *work.Request) { t.Sender = "tri" },
			state:  work.Skipped, reason: "tri has triage permission; write is needed",
			comment: "@tri, thank you for the request",
			check: func(t *testing.T, f *fakeGitHub, _ Result) {
				if got := f.wrote(); !slices.Equal(got, []string{"CreateComment"}) {
					t.Errorf("writes = %q, want one comment", got)
				}
			},
		},
		{
			name:   "a stranger has no permission",
			target: func(t *work.Request) { t.Sender = "mallory" },
			state:  work.Skipped, reason: "mallory has none permission", comment: "you have `none`",
		},
		{
			name:   "the minimum permission is the runner's",
			target: func(t *work.Request) { t.Sender = "tri" },
			runner: func(r *Runner) { r.MinPermission = "triage" },
			solver: solves(outcome(attemptlog.Solved, fix)),
			state:  work.Done, status: "Solved", labels: []string{LabelDone}, pulls: 1,
		},
		{
			name:   "another label is not Capsule's: nothing is written",
			target: func(t *work.Request) { t.Label = "bug" },
			state:  work.Skipped, reason: `label "bug" is not the trigger label "capsule"`,
			check: func(t *testing.T, f *fakeGitHub, _ Result) {
				if got := f.wrote(); len(got) != 0 {
					t.Errorf("writes = %q, want none", got)
				}
			},
		},
		{
			name:    "the repository's label is the trigger",
			prepare: func(f *fakeGitHub) { f.files[".github/capsule.yml"] = "label: fix-me\n" },
			state:   work.Skipped, reason: `label "capsule" is not the trigger label "fix-me"`,
		},
		{
			name:    "the runner's label wins over the repository's",
			prepare: func(f *fakeGitHub) { f.files[".github/capsule.yml"] = "label: fix-me\n" },
			runner:  func(r *Runner) { r.Label = "Capsule" },
			solver:  solves(outcome(attemptlog.Solved, fix)),
			state:   work.Done, status: "Solved", labels: []string{LabelDone}, pulls: 1,
		},
		{
			name:    "a configuration error fails the job with the message, before the model",
			prepare: func(f *fakeGitHub) { f.files[".github/capsule.yml"] = "max_attempts: 3\ncolour: blue\n" },
			state:   work.Failed, reason: "The configuration is not valid", status: "colour", labels: []string{LabelFailed},
		},
		{
			name:    "a broken configuration's own label still decides who hears of it",
			prepare: func(f *fakeGitHub) { f.files[".github/capsule.yml"] = "label: fix-me\ncolour: blue\n" },
			state:   work.Skipped, reason: `not the trigger label "fix-me"`,
		},
		{
			name:    "the alternative configuration path is read",
			prepare: func(f *fakeGitHub) { f.files[".github/capsule.yaml"] = "label: fix-me\n" },
			state:   work.Skipped, reason: `not the trigger label "fix-me"`,
		},
		{
			name:   "a retry runs whatever the label",
			target: func(t *work.Request) { t.Trigger, t.Label = work.TriggerRetry, "" },
			solver: solves(outcome(attemptlog.Solved, fix)),
			state:  work.Done, status: "Solved", labels: []string{LabelDone}, pulls: 1,
		},
		{
			name:   "a retry moves the branch and updates the open pull request",
			target: func(t *work.Request) { t.Trigger, t.Label = work.TriggerRetry, "" },
			prepare: func(f *fakeGitHub) {
				firstRun(f, "old")
				f.labels[fakeIssue] = []string{LabelFailed, "bug"}
				f.comments = []fakeComment{{Comment{ID: 5, Body: report.Marker + "\n**Capsule: failed.**"}, fakeIssue}}
			},
			solver: solves(outcome(attemptlog.Unproven, fix)),
			state:  work.Done, status: "done, unproven", labels: []string{"bug", LabelUnproven}, pulls: 1, draft: true,
			check: func(t *testing.T, f *fakeGitHub, res Result) {
				if f.heads[work.Branch(fakeIssue)] != f.commits[1].SHA || f.commits[1].Parent != fakeBase || f.pulls[0].Title == "old" || res.PullRequest != 7 || res.HeadSHA != f.commits[1].SHA {
					t.Errorf("branch %s, pull request %+v, result %+v", f.heads[work.Branch(fakeIssue)], f.pulls[0], res)
				}
				if res.StatusComment != 5 {
					t.Errorf("status comment %d, want the previous run's, 5", res.StatusComment)
				}
			},
		},
		{
			name: "a deleted status comment is written again",
			prepare: func(f *fakeGitHub) {
				f.comments = []fakeComment{{Comment{ID: 5, Body: report.Marker + "\nold"}, fakeIssue}}
				f.failOnce["EditComment"] = notFoundf("comment 5")
			},
			solver: solves(outcome(attemptlog.Solved, fix)),
			state:  work.Done, labels: []string{LabelDone}, pulls: 1,
			check: func(t *testing.T, f *fakeGitHub, _ Result) {
				if b := f.bodies(fakeIssue); len(b) != 2 || !strings.Contains(b[1], "Solved") {
					t.Errorf("comments = %q, want the old one and a new status", b)
				}
			},
		},
		{
			name:   "a second trigger is noted in the status comment",
			hooks:  Hooks{Busy: func() bool { return true }},
			solver: solves(outcome(attemptlog.Solved, fix)),
			state:  work.Done, status: "arrived while this job was active", labels: []string{LabelDone}, pulls: 1,
		},
		{
			name:   "a model endpoint that is down makes the job wait",
			hooks:  Hooks{WaitForModel: func(error) bool { return true }},
			solver: fails(fmt.Errorf("generation: %w", programmer.ErrUnreachable)),
			state:  work.Queued, errIs: ErrWaitingForModel, status: "queued.** The job waits for the model endpoint",
			labels: []string{LabelInProgress},
		},
		{
			name:   "a model endpoint down for too long fails the job",
			hooks:  Hooks{WaitForModel: func(error) bool { return false }},
			solver: fails(fmt.Errorf("generation: %w", programmer.ErrUnavailable)),
			state:  work.Failed, errIs: programmer.ErrUnavailable, status: "**Capsule: failed.**", labels: []string{LabelFailed},
		},
		{
			name:   "tests that cannot run end the job before the model, with no pull request",
			solver: solves(stoppedBeforeModel()),
			state:  work.Failed, reason: "The tests cannot run in the sandbox, so no model was asked",
			status: "**Capsule: failed before any model call.**", labels: []string{LabelFailed},
			check: func(t *testing.T, f *fakeGitHub, _ Result) {
				if b := f.bodies(fakeIssue); len(b) == 0 || !strings.Contains(b[len(b)-1], "Command: `nosuchrunner -q`") || !strings.Contains(b[len(b)-1], "sh: 1: nosuchrunner: not found") {
					t.Errorf("status comments = %q", b)
				}
			},
		},
		{
			name:   "a solver error fails the job with the reason",
			solver: fails(errors.New("the engine went away")),
			state:  work.Failed, reason: "the engine went away", status: "the engine went away", labels: []string{LabelFailed},
		},
		{
			name:   "no test command is a configuration failure",
			solver: fails(fmt.Errorf("%w: no test command found: set test_command", repo.ErrConfig)),
			state:  work.Failed, errIs: repo.ErrConfig, status: "no test command found", labels: []string{LabelFailed},
		},
		{
			name:    "a repository the token cannot see fails at once",
			prepare: func(f *fakeGitHub) { f.fail["DefaultBranch"] = notFoundf("repository") },
			state:   work.Failed, errIs: ErrNotFound, reason: "read the repository",
		},
		{
			name:    "a failed permission check fails the job",
			prepare: func(f *fakeGitHub) { f.fail["Permission"] = errors.New("502 Bad Gateway") },
			state:   work.Failed, reason: "read alice's permission: 502",
		},
		{
			name:    "a failed pull request fails the job, saying so",
			prepare: func(f *fakeGitHub) { f.fail["CreatePullRequest"] = errors.New("422 Validation Failed") },
			solver:  solves(outcome(attemptlog.Solved, fix)),
			state:   work.Failed, reason: "open the pull request: 422", status: "open the pull request", labels: []string{LabelFailed},
		},
		{
			name:    "an archive that cannot be fetched fails the job",
			prepare: func(f *fakeGitHub) { f.fail["Archive"] = errors.New("download: 502 Bad Gateway") },
			state:   work.Failed, reason: "fetch the archive of " + fakeBase, status: "502 Bad Gateway", labels: []string{LabelFailed},
		},
		{
			name:    "labels GitHub refuses stop the job before the model",
			prepare: func(f *fakeGitHub) { f.fail["AddLabels"] = errors.New("403 Forbidden") },
			state:   work.Failed, reason: "label the issue capsule:in-progress: 403", status: "**Capsule: running.**",
		},
		{
			name:    "a deleted issue fails the job",
			prepare: func(f *fakeGitHub) { delete(f.issues, fakeIssue) },
			state:   work.Failed, errIs: ErrNotFound, status: "read the issue", labels: []string{LabelFailed},
		},
		{
			name: "an executable keeps its mode, a deletion is a deletion",
			solver: solves(outcome(attemptlog.Solved, fix, edits.Edit{Path: "run.sh", Content: "pytest -q\n"},
				edits.Edit{Path: "old.py", Delete: true})),
			state: work.Done, status: "Solved", labels: []string{LabelDone}, pulls: 1,
			check: func(t *testing.T, f *fakeGitHub, _ Result) {
				want := []File{
					{Path: "calc/ops.py", Content: fix.Content, Mode: "100644"},
					{Path: "run.sh", Content: "pytest -q\n", Mode: "100755"},
					{Path: "old.py", Mode: "100644", Delete: true},
				}
				if !slices.Equal(f.commits[0].Files, want) {
					t.Errorf("commit files = %+v, want %+v", f.commits[0].Files, want)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, target := setUp(t, tt.prepare, tt.target)
			r := &Runner{Version: "test", Logger: quiet(), WorkDir: t.TempDir()}
			r.Solver = solverFunc(func(context.Context, repo.Task) (*repo.Outcome, error) {
				t.Error("the solver ran")
				return nil, errors.New("the solver must not run")
			})
			if tt.solver != nil {
				r.Solver = tt.solver
			}
			if tt.runner != nil {
				tt.runner(r)
			}
			res, err := runJob(context.Background(), r, f, target, tt.hooks)

			if res.State != tt.state {
				t.Errorf("state = %s, want %s (reason %q, err %v)", res.State, tt.state, res.Reason, err)
			}
			switch {
			case tt.errIs != nil && !errors.Is(err, tt.errIs):
				t.Errorf("err = %v, want %v", err, tt.errIs)
			case tt.errIs == nil && err != nil && tt.reason == "" && tt.state != work.Failed:
				t.Errorf("err = %v, want none", err)
			}
			if !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("reason = %q, want it to contain %q", res.Reason, tt.reason)
			}
			var status, others []string
			for _, b := range f.bodies(fakeIssue) {
				if strings.HasPrefix(b, report.Marker) {
					status = append(status, b)
				} else {
					others = append(others, b)
				}
			}
			if tt.status != "" && (len(status) != 1 || !strings.Contains(status[0], tt.status)) {
				t.Errorf("status comments = %q, want one with %q", status, tt.status)
			}
			if tt.status == "" && tt.check == nil && len(status) != 0 {
				t.Errorf("status comments = %q, want none", status)
			}
			if tt.comment != "" && (len(others) != 1 || !strings.Contains(others[0], tt.comment)) {
				t.Errorf("other comments = %q, want one with %q", others, tt.comment)
			}
			if tt.comment == "" && len(others) != 0 && tt.check == nil {
				t.Errorf("other comments = %q, want none", others)
			}
			if got := f.labels[fakeIssue]; !slices.Equal(got, tt.labels) {
				t.Errorf("labels = %q, want %q", got, tt.labels)
			}
			if len(f.pulls) != tt.pulls || (tt.pulls > 0 && (f.pulls[0].Draft != tt.draft || res.Draft != tt.draft)) {
				t.Errorf("pull requests = %+v, result draft %v; want %d, draft %v", f.pulls, res.Draft, tt.pulls, tt.draft)
			}
			if tt.check != nil {
				tt.check(t, f, res)
			}
		})
	}
}

// TestRunStoppedLeavesGitHub: a job whose context ends (shutdown) leaves
// the issue as it was in the run, for a later run to resume.
func TestRunStoppedLeavesGitHub(t *testing.T) {
	f := newFakeGitHub(t)
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{Logger: quiet(), WorkDir: t.TempDir(), Solver: solverFunc(func(ctx context.Context, _ repo.Task) (*repo.Outcome, error) {
		cancel()
		return nil, ctx.Err()
	})}
	res, err := runJob(ctx, r, f, labelled(), Hooks{})
	if !errors.Is(err, context.Canceled) || res.State != work.Failed {
		t.Fatalf("Run = %+v, %v; want failed with the context's error", res, err)
	}
	if b := f.bodies(fakeIssue); len(b) != 1 || !strings.Contains(b[0], "running") {
		t.Errorf("comments = %q, want the running status alone", b)
	}
	if got := f.labels[fakeIssue]; !slices.Equal(got, []string{LabelInProgress}) {
		t.Errorf("labels = %q, want in progress", got)
	}
}

// TestRunInWorkspace: with a checkout (the Action's), the job reads the
// configuration at its commit and fetches no archive.
func TestRunInWorkspace(t *testing.T) {
	f := newFakeGitHub(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "calc"), 0o755)
	os.WriteFile(filepath.Join(dir, "calc", "ops.py"), []byte(f.files["calc/ops.py"]), 0o644)
	f.heads["main"] = "00000000000000000000000000000000000000cc" // the checkout's commit, as File checks
	r := &Runner{Logger: quiet(), Workspace: dir, WorkspaceCommit: f.heads["main"], Solver: solves(outcome(attemptlog.Solved, fix))}
	res, err := runJob(context.Background(), r, f, labelled(), Hooks{})
	if err != nil || res.State != work.Done {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if slices.Contains(f.calls, "Archive") || f.commits[0].Parent != r.WorkspaceCommit {
		t.Errorf("calls = %q, commit parent %s; want no archive and the checkout's commit", f.calls, f.commits[0].Parent)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the workspace was removed: %v", err)
	}
}

func TestAnnounce(t *testing.T) {
	tests := []struct {
		name    string
		target  func(*work.Request)
		prepare func(*fakeGitHub)
		waiting string
		want    []string // the issue's comments after
	}{
		{name: "a queued job says it waits for its turn", want: []string{"**Capsule: queued.** The job waits for its turn."}},
		{name: "and what else it waits for", waiting: ModelWaiting, want: []string{"The job waits for the model endpoint"}},
		{name: "another label says nothing", target: func(t *work.Request) { t.Label = "bug" }},
		{name: "a sender below the minimum hears it from the run", target: func(t *work.Request) { t.Sender = "tri" }},
		{
			name: "a previous status comment is edited",
			prepare: func(f *fakeGitHub) {
				f.comments = []fakeComment{{Comment{ID: 5, Body: report.Marker + "\nold"}, fakeIssue}}
			},
			want: []string{"queued"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, target := setUp(t, tt.prepare, tt.target)
			r := &Runner{Logger: quiet()}
			if err := r.Announce(context.Background(), f, target, tt.waiting); err != nil {
				t.Fatal(err)
			}
			got := f.bodies(fakeIssue)
			if len(got) != len(tt.want) {
				t.Fatalf("comments = %q, want %d", got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i], report.Marker) || !strings.Contains(got[i], w) {
					t.Errorf("comment %d = %q, want a status with %q", i, got[i], w)
				}
			}
		})
	}
}

func TestConcerns(t *testing.T) {
	tests := []struct {
		name   string
		label  string // the runner's
		config string
		target func(*work.Request)
		want   bool
	}{
		{name: "the default label", want: true},
		{name: "another label", target: func(t *work.Request) { t.Label = "bug" }},
		{name: "the repository's label", config: "label: bug\n", target: func(t *work.Request) { t.Label = "bug" }, want: true},
		{name: "the runner's label, whatever the repository says", label: "bug", config: "label: capsule\n", target: func(t *work.Request) { t.Label = "bug" }, want: true},
		{name: "a retry", config: "label: bug\n", target: func(t *work.Request) { t.Trigger, t.Label = work.TriggerRetry, "" }, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, target := setUp(t, func(f *fakeGitHub) {
				if tt.config != "" {
					f.files[".github/capsule.yml"] = tt.config
				}
			}, tt.target)
			r := &Runner{Label: tt.label, Logger: quiet()}
			ok, why, err := r.Concerns(context.Background(), f, target)
			if err != nil || ok != tt.want || ok == (why != "") {
				t.Errorf("Concerns = %v, %q, %v; want %v", ok, why, err, tt.want)
			}
			if len(f.wrote()) != 0 {
				t.Errorf("Concerns wrote: %q", f.wrote())
			}
		})
	}
}

func TestNoteBusy(t *testing.T) {
	f := newFakeGitHub(t)
	ctx := context.Background()
	if err := NoteBusy(ctx, f, labelled()); err != nil || len(f.wrote()) != 0 {
		t.Fatalf("NoteBusy without a status comment: %v, writes %q", err, f.wrote())
	}
	f.comments = []fakeComment{
		{Comment{ID: 4, Body: "a human's comment"}, fakeIssue},
		{Comment{ID: 5, Body: report.StatusComment(report.Status{State: work.Running, Attempt: -1})}, fakeIssue},
	}
	for range 2 {
		if err := NoteBusy(ctx, f, labelled()); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.wrote(); !slices.Equal(got, []string{"EditComment"}) {
		t.Errorf("writes = %q, want one edit", got)
	}
	if b := f.bodies(fakeIssue); b[0] != "a human's comment" || strings.Count(b[1], "arrived while") != 1 {
		t.Errorf("comments = %q", b)
	}
}

// TestFail: a job the server gave up on says it failed, in the status
// comment it had, with the reason.
func TestFail(t *testing.T) {
	f := newFakeGitHub(t)
	f.comments = []fakeComment{{Comment{ID: 5, Body: report.StatusComment(report.Status{State: work.Running, Attempt: 1, Of: 5})}, fakeIssue}}
	f.labels[fakeIssue] = []string{LabelInProgress}
	r := &Runner{Logger: quiet()}
	id, err := r.Fail(context.Background(), f, labelled(), "Capsule stopped on an internal error: boom")
	if err != nil || id != 5 {
		t.Fatalf("Fail = %d, %v; want the status comment 5", id, err)
	}
	if b := f.bodies(fakeIssue); len(b) != 1 || !strings.Contains(b[0], "**Capsule: failed.**") || !strings.Contains(b[0], "internal error: boom") {
		t.Errorf("comments = %q", b)
	}
	if got := f.labels[fakeIssue]; !slices.Equal(got, []string{LabelFailed}) {
		t.Errorf("labels = %q", got)
	}
}

// TestRunTellsThePullRequest: the hook hears the pull request's number as
// soon as GitHub has it, before the job ends (its done label is not on the
// issue yet), for the App's store to record.
func TestRunTellsThePullRequest(t *testing.T) {
	f := newFakeGitHub(t)
	r := &Runner{Logger: quiet(), WorkDir: t.TempDir(), Solver: solves(outcome(attemptlog.Solved, fix))}
	var told []int
	res, err := runJob(context.Background(), r, f, labelled(), Hooks{PullRequest: func(n int) {
		told = append(told, n)
		if slices.Contains(f.labels[fakeIssue], LabelDone) {
			t.Error("the hook was told after the job ended")
		}
	}})
	if err != nil || res.State != work.Done {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if !slices.Equal(told, []int{res.PullRequest}) || res.PullRequest == 0 {
		t.Errorf("the hook heard %v, want [%d]", told, res.PullRequest)
	}
}
