package job

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/round"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
)

// actionsLog is a GitHub Actions job's log whose pytest step failed, and
// which printed a token.
const actionsLog = `2026-11-24T10:00:00.0000000Z ##[group]Run actions/checkout@v4
2026-11-24T10:00:01.0000000Z Syncing repository: octo/calc
2026-11-24T10:00:02.0000000Z ##[endgroup]
2026-11-24T10:00:03.0000000Z ##[group]Run python -m pytest -q
2026-11-24T10:00:04.0000000Z GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB
2026-11-24T10:00:05.0000000Z FAILED tests/test_ops.py::test_add - assert -1 == 3
2026-11-24T10:00:05.0000000Z 1 failed, 3 passed in 0.05s
2026-11-24T10:00:06.0000000Z ##[error]Process completed with exit code 1.
2026-11-24T10:00:07.0000000Z ##[group]Run actions/cache/save@v4
2026-11-24T10:00:08.0000000Z Cache saved
`

// ciPull is the pull request of the fake's CI tests.
const ciPull = 100

// ciFake is the fake with Capsule's pull request for issue 12: the first
// commit Capsule pushed on its branch, and then one commit per message
// given. It returns the fake and the branch's head.
func ciFake(t *testing.T, messages ...string) (*fakeGitHub, string) {
	f := newFakeGitHub(t)
	head := f.pushCommit(work.Branch(fakeIssue), withTrailers("Fix #12: add subtracts", fakeIssue, ""))
	for _, m := range messages {
		head = f.pushCommit(work.Branch(fakeIssue), m)
	}
	f.pulls = append(f.pulls, fakePull{NewPullRequest: NewPullRequest{Title: "Fix #12", Head: work.Branch(fakeIssue), Base: "main"}, Number: ciPull, Open: true})
	return f, head
}

// pushCommit adds a commit with message on branch, made from the default
// branch's head when the branch does not exist, and returns it.
func (f *fakeGitHub) pushCommit(branch, message string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	parent, ok := f.heads[branch]
	if !ok {
		parent = f.heads[f.defaultBranch]
	}
	sha := fmt.Sprintf("%07x%033d", len(f.commits)+2, 0)
	f.commits = append(f.commits, fakeCommit{SHA: sha, Parent: parent, Message: message})
	f.heads[branch] = sha
	return sha
}

// roundStatus adds the status comment of a round on the pull request.
func (f *fakeGitHub) roundStatus(key string, state work.State) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	body := report.StatusComment(report.Status{State: state, Round: &report.Round{Number: 2, Key: key, Cause: "the failing checks"}})
	f.comments = append(f.comments, fakeComment{Comment{ID: f.nextID, Body: body}, ciPull})
}

// ciRequest is the CI round a failing workflow run on head asks for.
func ciRequest(key, head string) work.Request {
	return work.Request{
		Delivery: "d-ci", Event: "workflow_run", Trigger: work.TriggerCI, Owner: fakeOwner, Repo: fakeName,
		Issue: fakeIssue, Sender: "alice", PullRequest: ciPull, Round: key, HeadSHA: head,
	}
}

func TestCIRound(t *testing.T) {
	const run = 7001
	failedTest := round.Annotation{Path: ".github/workflows/ci.yml", Line: 12, Level: "failure", Message: "Process completed with exit code 1."}
	lint := round.Annotation{Path: "calc/ops.py", Line: 2, Level: "failure", Title: "F841", Message: "local variable 'x' is assigned to but never used"}
	testCheck := round.Check{Name: "test", Conclusion: "failure", Annotations: []round.Annotation{failedTest}}
	tests := []struct {
		name    string
		config  string   // .github/capsule.yml, when set
		rounds  []string // the commit messages after Capsule's first
		max     int      // Runner.MaxCIRounds
		key     string   // the round's key; run:7001 when empty
		setup   func(f *fakeGitHub, head string, req *work.Request)
		want    []round.Check // Log compared as "contains the failing step" (see below)
		skip    string        // a part of the skip text
		err     string        // a part of the error
		noCalls []string      // methods that must not be called
	}{
		{
			name: "a failing Actions job: its failing step, redacted, and its annotation",
			setup: func(f *fakeGitHub, head string, _ *work.Request) {
				f.addActionsJob(head, run, "test", "failure", actionsLog, failedTest)
				f.addActionsJob(head, run, "build", "success", "all good\n")
			},
			want: []round.Check{testCheck},
		},
		{
			name: "a timed-out job and a third-party check, with its output and annotations, but no log",
			setup: func(f *fakeGitHub, head string, _ *work.Request) {
				f.addActionsJob(head, run, "test", "timed_out", actionsLog)
				f.addCheckRun(head, CheckRun{Name: "lint", App: "ruff-ci", Conclusion: "failure", Title: "1 error", Summary: "ruff found 1 error"}, lint)
				f.addCheckRun(head, CheckRun{Name: "docs", App: "readthedocs", Conclusion: "neutral"})
				f.addCheckRun(head, CheckRun{Name: "slow", App: "ruff-ci", Status: "in_progress"})
			},
			want: []round.Check{
				{Name: "test", Conclusion: "timed_out"},
				{Name: "lint", Conclusion: "failure", Summary: "1 error\n\nruff found 1 error", Annotations: []round.Annotation{lint}},
			},
		},
		{
			name: "a check suite's round: GitHub Actions' checks known by their app",
			key:  "suite:31",
			setup: func(f *fakeGitHub, head string, _ *work.Request) {
				f.addActionsJob(head, run, "test", "failure", actionsLog, failedTest)
			},
			want:    []round.Check{testCheck},
			noCalls: []string{"WorkflowJobs"},
		},
		{
			name: "a log that cannot be read leaves the check without it",
			setup: func(f *fakeGitHub, head string, _ *work.Request) {
				f.addActionsJob(head, run, "test", "failure", actionsLog)
				f.fail["JobLog"] = notFoundf("the log expired")
			},
			want: []round.Check{{Name: "test", Conclusion: "failure"}},
		},
		{
			name:   "the checks that fail on the default branch too are not the round's",
			config: "ci_rounds: 1\n",
			setup: func(f *fakeGitHub, head string, _ *work.Request) {
				f.addActionsJob(head, run, "test", "failure", actionsLog, failedTest)
				f.addCheckRun(head, CheckRun{Name: "lint", Conclusion: "failure"})
				f.addCheckRun(fakeBase, CheckRun{Name: "lint", Conclusion: "failure"})
				f.addCheckRun(fakeBase, CheckRun{Name: "test", Conclusion: "success"})
			},
			want: []round.Check{testCheck},
		},
		{
			name: "every failing check fails on the default branch too",
			setup: func(f *fakeGitHub, head string, _ *work.Request) {
				f.addActionsJob(head, run, "test", "failure", actionsLog)
				f.addCheckRun(fakeBase, CheckRun{Name: "test", Conclusion: "timed_out"})
			},
			skip:    `The failing checks ("test") fail on the default branch's head too, so the failure is not Capsule's`,
			noCalls: []string{"WorkflowJobs", "JobLog"},
		},
		{
			name: "no check failed",
			setup: func(f *fakeGitHub, head string, _ *work.Request) {
				f.addActionsJob(head, run, "test", "success", "ok\n")
			},
			skip: noneFailed,
		},
		{
			name:    "ci_rounds: 0",
			config:  "ci_rounds: 0\n",
			skip:    "CI rounds are off for this repository (ci_rounds: 0 in .github/capsule.yml)",
			noCalls: []string{"PullRequestCommits", "CheckRuns"},
		},
		{
			name:    "the operator allows none",
			max:     -1,
			skip:    "CI rounds are off on this Capsule (its operator allows none)",
			noCalls: []string{"PullRequestCommits", "CheckRuns"},
		},
		{
			name: "two CI rounds made: the default ci_rounds is used up (a review's round does not count)",
			rounds: []string{
				withTrailers("Round 2", fakeIssue, "run:1"),
				withTrailers("Round 3", fakeIssue, "review:5"),
				withTrailers("Round 4", fakeIssue, "suite:2"),
			},
			skip:    "Capsule has made 2 CI rounds on this pull request, the most ci_rounds allows (2)",
			noCalls: []string{"CheckRuns"},
		},
		{
			name:   "one CI round made, of two: the round runs",
			rounds: []string{withTrailers("Round 2", fakeIssue, "run:1"), withTrailers("Round 3", fakeIssue, "comment:9")},
			setup: func(f *fakeGitHub, head string, _ *work.Request) {
				f.addActionsJob(head, run, "test", "failure", actionsLog, failedTest)
			},
			want: []round.Check{testCheck},
		},
		{
			name:   "a CI round that failed counts by its status comment; the round being run does not",
			rounds: []string{withTrailers("Round 2", fakeIssue, "suite:2")},
			setup: func(f *fakeGitHub, _ string, req *work.Request) {
				f.roundStatus("run:1", work.Failed)
				f.roundStatus("suite:2", work.Done)
				f.roundStatus("review:5", work.Failed)
				f.roundStatus(req.Round, work.Running)
			},
			skip:    "Capsule has made 2 CI rounds on this pull request, the most ci_rounds allows (2)",
			noCalls: []string{"CheckRuns"},
		},
		{
			name: "a resumed round is not counted against itself",
			setup: func(f *fakeGitHub, head string, req *work.Request) {
				f.roundStatus("run:1", work.Failed)
				f.roundStatus(req.Round, work.Running)
				f.comments = append(f.comments, fakeComment{Comment{ID: 9, Body: report.RoundMarker("run:3") + " a reviewer's copy"}, ciPull})
				f.addActionsJob(head, run, "test", "failure", actionsLog, failedTest)
			},
			want: []round.Check{testCheck},
		},
		{
			name:    "the operator's maximum cuts ci_rounds",
			config:  "ci_rounds: 5\n",
			max:     1,
			rounds:  []string{withTrailers("Round 2", fakeIssue, "run:1")},
			skip:    "Capsule has made 1 CI rounds on this pull request, the most the operator of this Capsule allows (1)",
			noCalls: []string{"CheckRuns"},
		},
		{
			name:    "a human pushed: the head has no Capsule-Issue trailer",
			rounds:  []string{"Handle negative numbers too"},
			skip:    humanPushed,
			noCalls: []string{"PullRequestCommits", "CheckRuns"},
		},
		{
			name:    "a commit of another issue's is not Capsule's for this one",
			rounds:  []string{withTrailers("Fix #13", 13, "")},
			skip:    humanPushed,
			noCalls: []string{"PullRequestCommits", "CheckRuns"},
		},
		{
			name:   "a human pushed after the checks ran",
			rounds: []string{withTrailers("Round 2", fakeIssue, "run:1")},
			setup: func(f *fakeGitHub, head string, req *work.Request) {
				req.HeadSHA = head
				f.pushCommit(work.Branch(fakeIssue), "fix it myself")
			},
			skip: humanPushed,
		},
		{
			name: "Capsule pushed after the checks ran: the new head's checks decide",
			setup: func(f *fakeGitHub, head string, req *work.Request) {
				req.HeadSHA = head
				f.pushCommit(work.Branch(fakeIssue), withTrailers("Round 2", fakeIssue, "comment:9"))
			},
			skip:    movedOn,
			noCalls: []string{"CheckRuns"},
		},
		{name: "a key that is not a CI round's", key: "review:5", err: `"review:5" is not a CI round's key`},
		{name: "a key without an id", key: "run:", err: `"run:" is not a CI round's key`},
		{
			name:  "no checked commit",
			setup: func(_ *fakeGitHub, _ string, req *work.Request) { req.HeadSHA = "" },
			err:   "CI round run:7001 names no commit that its checks ran on",
		},
		{
			name:   "a configuration that is not valid is the round's to report: its defaults hold",
			config: "ci_rounds: two\n",
			rounds: []string{withTrailers("Round 2", fakeIssue, "run:1"), withTrailers("Round 3", fakeIssue, "run:2")},
			skip:   "the most ci_rounds allows (2)",
		},
		{
			name:  "GitHub fails to read the configuration",
			setup: func(f *fakeGitHub, _ string, _ *work.Request) { f.fail["File"] = errors.New("502 Bad Gateway") },
			err:   "read .github/capsule.yml: 502 Bad Gateway",
		},
		{
			name:  "GitHub fails to list the checks",
			setup: func(f *fakeGitHub, _ string, _ *work.Request) { f.fail["CheckRuns"] = errors.New("502 Bad Gateway") },
			err:   "list the checks of 0000002: 502 Bad Gateway",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, head := ciFake(t, tt.rounds...)
			if tt.config != "" {
				f.files[".github/capsule.yml"] = tt.config
			}
			req := ciRequest(cmp.Or(tt.key, fmt.Sprintf("run:%d", run)), head)
			if tt.setup != nil {
				tt.setup(f, head, &req)
			}
			r := &Runner{MaxCIRounds: tt.max, Logger: quiet()}
			checks, skip, err := r.session(f, req, Hooks{}).roundRun().ciRound(context.Background())
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one with %q", err, tt.err)
				}
			case err != nil:
				t.Fatal(err)
			}
			if tt.skip != "" && !strings.Contains(skip, tt.skip) || tt.skip == "" && skip != "" {
				t.Errorf("skip = %q, want %q", skip, tt.skip)
			}
			for i := range checks {
				checkLog(t, &checks[i])
			}
			if !reflect.DeepEqual(checks, tt.want) {
				t.Errorf("checks =\n%+v\nwant\n%+v", checks, tt.want)
			}
			if wrote := f.wrote(); len(wrote) > 0 {
				t.Errorf("ciRound wrote to GitHub: %v", wrote)
			}
			for _, m := range tt.noCalls {
				if slices.Contains(f.calls, m) {
					t.Errorf("%s was called: %v", m, f.calls)
				}
			}
		})
	}
}

// checkLog checks a GitHub Actions check's log, when it has one: the
// failing step's output, without the steps that passed or the token it
// printed; then it empties it for the comparison of the rest.
func checkLog(t *testing.T, c *round.Check) {
	t.Helper()
	if c.Log == "" {
		return
	}
	for _, want := range []string{"### Run python -m pytest -q", "FAILED tests/test_ops.py::test_add - assert -1 == 3", "Error: Process completed with exit code 1.", "GITHUB_TOKEN=[redacted]"} {
		if !strings.Contains(c.Log, want) {
			t.Errorf("check %s's log lacks %q:\n%s", c.Name, want, c.Log)
		}
	}
	for _, not := range []string{"ghp_", "checkout", "Cache saved", "2026-11-24T"} {
		if strings.Contains(c.Log, not) {
			t.Errorf("check %s's log holds %q:\n%s", c.Name, not, c.Log)
		}
	}
	c.Log = ""
}

// TestCIRoundManyChecks: only the checks a round's task shows are read in
// full; the others are named.
func TestCIRoundManyChecks(t *testing.T) {
	f, head := ciFake(t)
	for i := range round.MaxChecks + 2 {
		f.addActionsJob(head, 1, fmt.Sprintf("test %d", i), "failure", actionsLog)
	}
	checks, skip, err := (&Runner{Logger: quiet()}).session(f, ciRequest("run:1", head), Hooks{}).roundRun().ciRound(context.Background())
	if err != nil || skip != "" || len(checks) != round.MaxChecks+2 {
		t.Fatalf("ciRound = %d checks, %q, %v", len(checks), skip, err)
	}
	for i, c := range checks {
		if (c.Log != "") != (i < round.MaxChecks) {
			t.Errorf("check %d: log %q", i, c.Log)
		}
	}
	if n := countCalls(f, "JobLog"); n != round.MaxChecks {
		t.Errorf("JobLog called %d times, want %d", n, round.MaxChecks)
	}
}

func countCalls(f *fakeGitHub, method string) int {
	n := 0
	for _, c := range f.calls {
		if c == method {
			n++
		}
	}
	return n
}

func TestMaxCIRounds(t *testing.T) {
	for max, want := range map[int]int{-1: 0, 0: DefaultMaxCIRounds, 1: 1, 9: 9} {
		if got := (&Runner{MaxCIRounds: max}).maxCIRounds(); got != want {
			t.Errorf("maxCIRounds of MaxCIRounds %d = %d, want %d", max, got, want)
		}
	}
}

// TestCIRoundOverGitHub gathers a CI round's checks through the go-github
// adapter from the OpenAPI-checked fake: the pull request's commits, the
// check runs of its head and of the default branch's, a GitHub Actions
// job's annotations and its log behind GitHub's redirect.
func TestCIRoundOverGitHub(t *testing.T) {
	r, _, repo := adapter(t, map[string]string{"calc/ops.py": "def add(a, b):\n    return a - b\n", ".github/capsule.yml": "ci_rounds: 3\n"})
	ctx := context.Background()
	if _, err := repo.Push(work.Branch(4), withTrailers("Fix #4", 4, ""), map[string]string{"calc/ops.py": "def add(a, b):\n    return a + b\n"}); err != nil {
		t.Fatal(err)
	}
	head, err := repo.Push(work.Branch(4), withTrailers("Round 2", 4, "run:1"), map[string]string{"calc/ops.py": "def add(a, b):\n    return b + a\n"})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := r.CreatePullRequest(ctx, NewPullRequest{Title: "Fix #4", Head: work.Branch(4), Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	run := repo.AddActionsRun(fakegithub.WorkflowRun{
		Name: "CI", HeadBranch: work.Branch(4), HeadSHA: head, Event: "pull_request", Conclusion: "failure",
		Jobs: []fakegithub.WorkflowJob{{Name: "test", Conclusion: "failure", Log: actionsLog}, {Name: "build", Conclusion: "success"}},
	})
	notes := []fakegithub.Annotation{{Path: "calc/ops.py", StartLine: 2, EndLine: 2, Level: "failure", Title: "F841", Message: "unused"}}
	repo.AddCheckRun(fakegithub.CheckRun{Name: "lint", HeadSHA: head, Conclusion: "failure", Title: "1 error", Summary: "ruff", Annotations: notes})
	repo.AddCheckRun(fakegithub.CheckRun{Name: "docs", HeadSHA: head, Conclusion: "failure"})
	main, err := repo.Commit("main")
	if err != nil {
		t.Fatal(err)
	}
	repo.AddCheckRun(fakegithub.CheckRun{Name: "docs", HeadSHA: main.SHA, Conclusion: "failure"})

	req := ciRequest(fmt.Sprintf("run:%d", run.ID), head)
	req.Issue, req.PullRequest = 4, pr.Number
	checks, skip, err := (&Runner{Logger: quiet()}).session(r, req, Hooks{}).roundRun().ciRound(ctx)
	if err != nil || skip != "" {
		t.Fatalf("ciRound: %q, %v", skip, err)
	}
	if len(checks) > 0 {
		checkLog(t, &checks[0])
	}
	want := []round.Check{
		{Name: "test", Conclusion: "failure"},
		{Name: "lint", Conclusion: "failure", Summary: "1 error\n\nruff", Annotations: []round.Annotation{{Path: "calc/ops.py", Line: 2, Level: "failure", Title: "F841", Message: "unused"}}},
	}
	if !reflect.DeepEqual(checks, want) {
		t.Errorf("checks =\n%+v\nwant\n%+v", checks, want)
	}

	// The next failure, after a third CI round, finds ci_rounds used up.
	third, err := repo.Push(work.Branch(4), withTrailers("Round 3", 4, "suite:2"), map[string]string{"calc/ops.py": "x = 1\n"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Push(work.Branch(4), withTrailers("Round 4", 4, "run:3"), map[string]string{"calc/ops.py": "x = 2\n"}); err != nil {
		t.Fatal(err)
	}
	req = ciRequest("suite:9", third)
	req.Issue, req.PullRequest = 4, pr.Number
	_, skip, err = (&Runner{Logger: quiet()}).session(r, req, Hooks{}).roundRun().ciRound(ctx)
	if err != nil || skip != movedOn {
		t.Errorf("a round for an older head: %q, %v", skip, err)
	}
	latest, _ := r.BranchHead(ctx, work.Branch(4))
	req = ciRequest("suite:9", latest)
	req.Issue, req.PullRequest = 4, pr.Number
	_, skip, err = (&Runner{Logger: quiet()}).session(r, req, Hooks{}).roundRun().ciRound(ctx)
	if err != nil || !strings.HasPrefix(skip, "Capsule has made 3 CI rounds on this pull request, the most ci_rounds allows (3)") {
		t.Errorf("a fourth CI round: %q, %v", skip, err)
	}
}

func TestRepositoryJobLogTail(t *testing.T) {
	r, _, repo := adapter(t, map[string]string{"README.md": "# calc\n"})
	head, err := repo.Push(work.Branch(4), "Fix", map[string]string{"calc.py": "x = 1\n"})
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 99) + "\n"
	huge := strings.Repeat(line, MaxJobLogBytes/len(line)+1000) + "##[error]the end\n"
	run := repo.AddActionsRun(fakegithub.WorkflowRun{HeadSHA: head, Conclusion: "failure",
		Jobs: []fakegithub.WorkflowJob{{Name: "test", Conclusion: "failure", Log: huge}}})
	log, err := r.JobLog(context.Background(), run.Jobs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) > MaxJobLogBytes+100 || !strings.HasPrefix(log, "[... the start of the log is cut ...]\n"+line) || !strings.HasSuffix(log, "##[error]the end\n") {
		t.Errorf("log of %d bytes: %q ... %q", len(log), log[:min(len(log), 80)], log[max(0, len(log)-40):])
	}
	if _, err := r.JobLog(context.Background(), 999999); !errors.Is(err, ErrNotFound) {
		t.Errorf("the log of no job: %v, want ErrNotFound", err)
	}
}

func TestLastBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\n", 10, "a\nb\n"},
		{"first\nsecond\nthird\n", 12, "[... the start of the log is cut ...]\nthird\n"},
		{"one long line", 4, "[... the start of the log is cut ...]\nline"},
		{"é\nabc", 4, "[... the start of the log is cut ...]\nabc"},
	} {
		got, err := lastBytes(strings.NewReader(tc.in), tc.n)
		if err != nil || got != tc.want {
			t.Errorf("lastBytes(%q, %d) = %q, %v; want %q", tc.in, tc.n, got, err, tc.want)
		}
	}
}

func TestNotCapsulesSaysEachNameOnce(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"test", "test"}, `("test")`},
		{[]string{"lint", "test", "lint"}, `("lint", "test")`},
		{[]string{"b", "a"}, `("a", "b")`},
		{[]string{"a", "b", "c", "d", "e", "f", "g"}, `("a", "b", "c", "d", "e", 2 more)`},
	} {
		if got := notCapsules(tc.names); !strings.Contains(got, tc.want) {
			t.Errorf("notCapsules(%q) = %q, want it to name %s", tc.names, got, tc.want)
		}
	}
}
