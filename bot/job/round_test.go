package job

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/round"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
)

// The review the round tests answer: two threads on the first run's
// change, by alice (a maintainer).
const (
	reviewID               = 900
	threadA, threadB       = 901, 902
	commentA, commentB     = "Use a + b: keep the operands in order.", "Add a docstring."
	firstHead              = "00000000000000000000000000000000000000aa"
	roundPull, openingBody = 7, "Closes #12.\n\n---\n\n<sub>Made by Capsule test.</sub>\n"
)

// reviewed is f after a first run and alice's review of its pull request.
func reviewed(f *fakeGitHub) {
	firstRun(f, openingBody)
	f.reviews = append(f.reviews, fakeReview{Review{ID: reviewID, Author: "alice", Body: "Two things.", Comments: []ReviewComment{
		{ID: threadA, Author: "alice", Path: "calc/ops.py", Line: 2, DiffHunk: "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return b + a", Body: commentA},
		{ID: threadB, Author: "alice", Path: "calc/ops.py", Line: 1, DiffHunk: "@@ -1,2 +1,2 @@\n def add(a, b):", Body: commentB},
	}}, roundPull})
}

// reviewRound is the request of alice's review.
func reviewRound() work.Request {
	return work.Request{
		Owner: fakeOwner, Repo: fakeName, Issue: fakeIssue, Sender: "alice", Trigger: work.TriggerReview, Event: "pull_request_review",
		PullRequest: roundPull, Round: fmt.Sprintf("review:%d", reviewID), HeadSHA: firstHead, Delivery: "d-2",
	}
}

// roundFix is the change a round's model makes.
var roundFix = edits.Edit{Path: "calc/ops.py", Content: "def add(a, b):\n    \"\"\"Add.\"\"\"\n    return a + b\n"}

// answers is a solver that checks the round's task (the issue, then what
// was asked: want) and tree (the branch's head), and returns o.
func answers(o *repo.Outcome, want ...string) solverFunc {
	return func(_ context.Context, t repo.Task) (*repo.Outcome, error) {
		for _, w := range append([]string{"add(1, 2) gives -1"}, want...) {
			if !strings.Contains(t.Body, w) {
				return nil, fmt.Errorf("the task lacks %q:\n%s", w, t.Body)
			}
		}
		if data, err := os.ReadFile(filepath.Join(t.Dir, "calc", "ops.py")); err != nil || string(data) != fix1.Content {
			return nil, fmt.Errorf("the tree is not the branch's head: %q %v", data, err)
		}
		t.Progress(pipeline.Event{Attempt: 0, Of: 5, Passed: o.Solved(), Summary: "1 passed"})
		return o, nil
	}
}

// TestRoundDecisions table-tests what a round on Capsule's pull request
// does on GitHub, against the port's fake.
func TestRoundDecisions(t *testing.T) {
	tests := []struct {
		name    string
		target  func(*work.Request)
		prepare func(*fakeGitHub)
		solver  solverFunc // nil: the round must not reach the solver
		// humanPush: someone pushes to the branch while the solver runs.
		humanPush bool
		runs      int // how many times the round runs; 0 means 1

		state  work.State
		reason string
		writes []string // exactly these writes, in order; nil: not checked
		check  func(t *testing.T, f *fakeGitHub, res Result)
	}{
		{
			name:   "a passing review round pushes one commit over the head, replies in each thread and logs round 2",
			solver: answers(outcome(attemptlog.Solved, roundFix), commentA, commentB, "Two things.", "## Round 2"),
			state:  work.Done,
			writes: []string{"CreateComment", "CreateCommit", "AdvanceBranch", "ReplyToReviewComment", "ReplyToReviewComment", "EditPullRequest", "EditComment"},
			check: func(t *testing.T, f *fakeGitHub, res Result) {
				c := f.commits[len(f.commits)-1]
				if c.Parent != firstHead || f.heads[work.Branch(fakeIssue)] != c.SHA || res.HeadSHA != c.SHA || res.PullRequest != roundPull {
					t.Errorf("commit %+v, branch at %s, result %+v", c, f.heads[work.Branch(fakeIssue)], res)
				}
				if trailer(c.Message, TrailerIssue) != "12" || trailer(c.Message, TrailerRound) != "review:900" || !strings.HasPrefix(c.Message, "Round 2 for #12: add subtracts") {
					t.Errorf("commit message %q", c.Message)
				}
				for _, th := range []int64{threadA, threadB} {
					if r := f.threadReplies(th); len(r) != 1 || !strings.HasPrefix(r[0], report.RoundMarker("review:900")) || !strings.Contains(r[0], c.SHA[:12]) {
						t.Errorf("thread %d replies = %q", th, r)
					}
				}
				body := f.pulls[0].Body
				if n, ok := report.RoundNumber(body, "review:900"); n != 2 || !ok || !strings.Contains(body, "#issuecomment-") || !strings.HasPrefix(body, "Closes #12.") {
					t.Errorf("body:\n%s", body)
				}
				st := f.bodies(roundPull)
				if len(st) != 1 || !strings.Contains(st[0], "**Capsule: done.**") || !strings.Contains(st[0], "Round 2 answers the review by @alice. It pushed commit") || res.StatusComment == 0 {
					t.Errorf("the pull request's comments = %q", st)
				}
				if len(f.labels[fakeIssue]) != 0 {
					t.Errorf("a round labelled the issue %q", f.labels[fakeIssue])
				}
			},
		},
		{
			name: "a flood of comments: replies in the threads the task showed, once each",
			prepare: func(f *fakeGitHub) {
				rv := &f.reviews[0].Review
				for i := range round.MaxComments {
					c := rv.Comments[0]
					c.ID, c.Body = int64(1000+i), fmt.Sprintf("nit %d", i)
					rv.Comments = append(rv.Comments, c)
				}
				// A reply of the review's in thread B: no second reply there.
				rv.Comments[2].InReplyTo = threadB
			},
			solver: answers(outcome(attemptlog.Solved, roundFix), "more comments are not shown"),
			state:  work.Done,
			check: func(t *testing.T, f *fakeGitHub, _ Result) {
				if n := f.count("ReplyToReviewComment"); n != round.MaxComments-1 {
					t.Errorf("%d replies, want one in each of the %d threads shown", n, round.MaxComments-1)
				}
			},
		},
		{
			name: "a passing round on a not-passing draft takes the mark off its title",
			prepare: func(f *fakeGitHub) {
				f.pulls[0].Title = "[not passing] add subtracts"
			},
			solver: answers(outcome(attemptlog.Solved, roundFix)),
			state:  work.Done,
			check: func(t *testing.T, f *fakeGitHub, _ Result) {
				if f.pulls[0].Title != "add subtracts" {
					t.Errorf("title %q", f.pulls[0].Title)
				}
			},
		},
		{
			name:   "a failing round pushes nothing and says so on the pull request with its log",
			solver: answers(outcome(attemptlog.NotSolved, roundFix)),
			state:  work.Failed, reason: "the tests do not pass after 6 attempts",
			writes: []string{"CreateComment", "EditComment", "EditComment"},
			check: func(t *testing.T, f *fakeGitHub, _ Result) {
				if f.heads[work.Branch(fakeIssue)] != firstHead || f.pulls[0].Body != openingBody || len(f.replies) != 0 {
					t.Errorf("branch %s, body %q, replies %+v", f.heads[work.Branch(fakeIssue)], f.pulls[0].Body, f.replies)
				}
				if st := f.bodies(roundPull); len(st) != 1 || !strings.Contains(st[0], "**Capsule: failed.**") || !strings.Contains(st[0], "It pushed nothing") || !strings.Contains(st[0], "Attempt log") {
					t.Errorf("the pull request's comments = %q", st)
				}
			},
		},
		{
			name:      "a human's push while the round ran stops it: no force, it says so",
			solver:    answers(outcome(attemptlog.Solved, roundFix)),
			humanPush: true,
			state:     work.Failed, reason: "someone pushed to capsule/issue-12",
			writes: []string{"CreateComment", "CreateCommit", "AdvanceBranch", "EditComment"},
			check: func(t *testing.T, f *fakeGitHub, _ Result) {
				if f.heads[work.Branch(fakeIssue)] != humanSHA || len(f.replies) != 0 || f.pulls[0].Body != openingBody || slices.Contains(f.calls, "MoveBranch") {
					t.Errorf("branch %s, replies %+v, calls %q", f.heads[work.Branch(fakeIssue)], f.replies, f.calls)
				}
				if st := f.bodies(roundPull); len(st) != 1 || !strings.Contains(st[0], "never force-pushes") {
					t.Errorf("the pull request's comments = %q", st)
				}
			},
		},
		{
			name:   "a round replayed after a crash makes no second commit nor reply",
			solver: answers(outcome(attemptlog.Solved, roundFix), commentA),
			// The first run pushed and answered one thread, then died.
			prepare: func(f *fakeGitHub) { f.killAt = killAt{method: "ReplyToReviewComment", n: 2} },
			runs:    2,
			state:   work.Done,
			check: func(t *testing.T, f *fakeGitHub, res Result) {
				var rounds int
				for _, c := range f.commits {
					if trailer(c.Message, TrailerRound) == "review:900" {
						rounds++
					}
				}
				if rounds != 1 || f.heads[work.Branch(fakeIssue)] != res.HeadSHA {
					t.Errorf("%d commits of the round; branch at %s, result %s", rounds, f.heads[work.Branch(fakeIssue)], res.HeadSHA)
				}
				for _, th := range []int64{threadA, threadB} {
					if r := f.threadReplies(th); len(r) != 1 {
						t.Errorf("thread %d replies = %q", th, r)
					}
				}
				if strings.Count(f.pulls[0].Body, "#### Round 2") != 1 {
					t.Errorf("body:\n%s", f.pulls[0].Body)
				}
				if st := f.bodies(roundPull); len(st) != 1 || !strings.Contains(st[0], "**Capsule: done.**") {
					t.Errorf("the pull request's comments = %q", st)
				}
			},
		},
		{
			name: "a round the body logs already, with commits since, is not made again",
			prepare: func(f *fakeGitHub) {
				f.pulls[0].Body = report.AddRound(openingBody, report.Round{Number: 2, Key: "review:900", Commit: firstHead}, 0)
			},
			state: work.Skipped, reason: "round 2 (review:900) was made already", writes: []string{},
		},
		{
			name:   "a command round asks what the comment asks",
			target: command("/capsule please also handle negative numbers"),
			solver: answers(outcome(attemptlog.Solved, roundFix), "please also handle negative numbers", "What @alice wrote"),
			state:  work.Done,
			check: func(t *testing.T, f *fakeGitHub, res Result) {
				if len(f.replies) != 0 || !strings.Contains(f.pulls[0].Body, "#### Round 2: `/capsule` by @alice") || res.HeadSHA == "" {
					t.Errorf("replies %+v, body:\n%s", f.replies, f.pulls[0].Body)
				}
			},
		},
		{
			name: "a round's set-up inputs are compared with the default branch's head",
			solver: func(ctx context.Context, task repo.Task) (*repo.Outcome, error) {
				if task.Repository != fakeOwner+"/"+fakeName || task.TrustedInput == nil {
					return nil, fmt.Errorf("repository %q, trusted input %v", task.Repository, task.TrustedInput != nil)
				}
				if data, ok, err := task.TrustedInput(ctx, "calc/ops.py"); err != nil || !ok || string(data) == fix1.Content {
					return nil, fmt.Errorf("calc/ops.py at the default branch: %q %v %v", data, ok, err)
				}
				if _, ok, err := task.TrustedInput(ctx, "requirements.txt"); ok || err != nil {
					return nil, fmt.Errorf("a file the default branch lacks: %v %v", ok, err)
				}
				return answers(outcome(attemptlog.Solved, roundFix))(ctx, task)
			},
			state: work.Done,
		},
		{
			name:   "/capsule retry on the pull request asks for the issue again, on the branch",
			target: command("/capsule retry"),
			solver: func(ctx context.Context, task repo.Task) (*repo.Outcome, error) {
				if task.Title != "add subtracts" || task.Body != "add(1, 2) gives -1" {
					return nil, fmt.Errorf("task %q %q, want the issue's", task.Title, task.Body)
				}
				return answers(outcome(attemptlog.Solved, roundFix))(ctx, task)
			},
			state: work.Done,
		},
		{
			name:   "a command edited away runs nothing",
			target: command("Never mind."),
			state:  work.Failed, reason: "no longer starts with /capsule",
		},
		{
			name:    "a configuration error fails the round on the pull request, before the model",
			prepare: func(f *fakeGitHub) { f.files[".github/capsule.yml"] = "colour: blue\n" },
			state:   work.Failed, reason: "The configuration is not valid",
			writes: []string{"CreateComment", "EditComment"},
		},
		{
			name:    "a CI round with a configuration error says so, before looking at the checks",
			target:  func(r *work.Request) { r.Trigger, r.Round = work.TriggerCI, "run:31" },
			prepare: func(f *fakeGitHub) { f.files[".github/capsule.yml"] = "ci_rounds: many\n" },
			state:   work.Failed, reason: "ci_rounds",
			writes: []string{"CreateComment", "EditComment"},
		},
		{
			name:    "a pull request from a fork's branch of the same name is not Capsule's",
			prepare: func(f *fakeGitHub) { f.pulls[0].HeadRepo = "mallory/calc" },
			state:   work.Skipped, reason: "its branch is in mallory/calc", writes: []string{},
		},
		{
			name:    "a pull request a human opened from the branch is not Capsule's",
			prepare: func(f *fakeGitHub) { f.pulls[0].Author = "bob" },
			state:   work.Skipped, reason: "bob opened it", writes: []string{},
		},
		{
			name:    "a closed pull request is not worked on",
			prepare: func(f *fakeGitHub) { f.pulls[0].Open = false },
			state:   work.Skipped, reason: "it is closed", writes: []string{},
		},
		{
			name:   "a pull request of another issue's branch is not this issue's",
			target: func(r *work.Request) { r.Issue = 13 },
			state:  work.Skipped, reason: `its branch is "capsule/issue-12", not "capsule/issue-13"`, writes: []string{},
		},
		{
			name:   "a missing pull request is skipped",
			target: func(r *work.Request) { r.PullRequest = 8 },
			state:  work.Skipped, reason: "pull request #8 does not exist", writes: []string{},
		},
		{
			name:   "a bot never starts a round, Capsule least of all",
			target: func(r *work.Request) { r.Sender = fakeBot },
			state:  work.Skipped, reason: "is a bot", writes: []string{},
		},
		{
			name:   "a reviewer below the minimum gets one note, however many rounds they ask for",
			target: func(r *work.Request) { r.Sender = "tri" },
			runs:   2,
			state:  work.Skipped, reason: "tri has triage permission; write is needed",
			writes: []string{"CreateComment"},
			check: func(t *testing.T, f *fakeGitHub, _ Result) {
				if st := f.bodies(roundPull); len(st) != 1 || !strings.HasPrefix(st[0], report.DeniedMarker("tri")) {
					t.Errorf("the pull request's comments = %q", st)
				}
			},
		},
		{
			name: "a CI round answers the failing step's log with one commit over the head",
			target: func(r *work.Request) {
				r.Trigger, r.Round, r.Sender, r.Event = work.TriggerCI, "run:31", fakeBot, "workflow_run"
			},
			prepare: func(f *fakeGitHub) {
				f.addActionsJob(firstHead, 31, "test", "failure", "##[group]Run pytest\nE   assert add(1, 2) == 3\n##[error]Process completed with exit code 1.\n")
			},
			solver: answers(outcome(attemptlog.Solved, roundFix), "CI failed", "assert add(1, 2) == 3"),
			state:  work.Done,
			check: func(t *testing.T, f *fakeGitHub, res Result) {
				c := f.commits[len(f.commits)-1]
				if c.Parent != firstHead || res.HeadSHA != c.SHA || trailer(c.Message, TrailerRound) != "run:31" || len(f.replies) != 0 {
					t.Errorf("commit %+v, result %+v, replies %+v", c, res, f.replies)
				}
				if !strings.Contains(f.pulls[0].Body, "#### Round 2: the failing checks") {
					t.Errorf("body:\n%s", f.pulls[0].Body)
				}
			},
		},
		{
			name:    "CI rounds turned off say so once and run nothing",
			target:  func(r *work.Request) { r.Trigger, r.Round, r.Sender = work.TriggerCI, "run:31", "alice" },
			prepare: func(f *fakeGitHub) { f.files[".github/capsule.yml"] = "ci_rounds: 0\n" },
			runs:    2,
			state:   work.Skipped, reason: "ci_rounds",
			writes: []string{"CreateComment"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			reviewed(f)
			if tt.prepare != nil {
				tt.prepare(f)
			}
			target := reviewRound()
			if tt.target != nil {
				tt.target(&target)
			}
			if target.Trigger == work.TriggerCommand {
				f.comments = append(f.comments, fakeComment{Comment{ID: 77, Body: target.Round}, roundPull})
				target.Round = "comment:77"
			}
			r := &Runner{Version: "test", Logger: quiet(), WorkDir: t.TempDir()}
			r.Solver = solverFunc(func(context.Context, repo.Task) (*repo.Outcome, error) {
				t.Error("the solver ran")
				return nil, errors.New("the solver must not run")
			})
			if tt.solver != nil {
				r.Solver = tt.solver
			}
			if tt.humanPush {
				r.Solver = humanPushes(f, tt.solver)
			}
			var res Result
			var err error
			for range max(tt.runs, 1) {
				ctx, cancel := context.WithCancel(context.Background())
				f.killAt.kill = cancel
				res, err = runJob(ctx, r, f, target, Hooks{})
				cancel()
			}
			if res.State != tt.state || !strings.Contains(res.Reason, tt.reason) {
				t.Errorf("Run = %s %q, %v; want %s %q", res.State, res.Reason, err, tt.state, tt.reason)
			}
			if tt.state != work.Failed && err != nil {
				t.Errorf("err = %v", err)
			}
			if got := f.wrote(); tt.writes != nil && !slices.Equal(got, tt.writes) && !(len(got) == 0 && len(tt.writes) == 0) {
				t.Errorf("writes = %q, want %q", got, tt.writes)
			}
			if tt.check != nil {
				tt.check(t, f, res)
			}
		})
	}
}

// command makes the round a /capsule comment's, whose body it holds in
// Round until the test gives the comment its id.
func command(body string) func(*work.Request) {
	return func(r *work.Request) { r.Trigger, r.Event, r.Round = work.TriggerCommand, "issue_comment", body }
}

// humanSHA is the commit a human pushes while a round runs.
const humanSHA = "00000000000000000000000000000000000000bb"

// humanPushes is s, during which a human pushes to the issue's branch.
func humanPushes(f *fakeGitHub, s solverFunc) solverFunc {
	return func(ctx context.Context, t repo.Task) (*repo.Outcome, error) {
		o, err := s(ctx, t)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.commits = append(f.commits, fakeCommit{SHA: humanSHA, Parent: f.heads[work.Branch(fakeIssue)], Message: "a human's fix"})
		f.heads[work.Branch(fakeIssue)] = humanSHA
		return o, err
	}
}

// TestRetryKeepsRounds: a retry on the issue never wipes its pull
// request's rounds or someone else's commits: it runs on the branch's
// head and adds one commit, without force.
func TestRetryKeepsRounds(t *testing.T) {
	withRound := report.AddRound(openingBody, report.Round{Number: 2, Key: "review:5", Cause: "the review by @alice", Commit: firstHead}, 0)
	tests := []struct {
		name    string
		prepare func(*fakeGitHub)
		label   bool // the label is added again instead of /capsule retry
		o       *repo.Outcome
		tree    string // calc/ops.py as the solver must see it
		state   work.State
		check   func(t *testing.T, f *fakeGitHub, res Result)
	}{
		{
			name:    "a pull request with rounds: one commit over its head, logged as a round",
			prepare: func(f *fakeGitHub) { firstRun(f, withRound) },
			o:       outcome(attemptlog.Solved, roundFix), tree: fix1.Content, state: work.Done,
			check: func(t *testing.T, f *fakeGitHub, res Result) {
				c := f.commits[len(f.commits)-1]
				if c.Parent != firstHead || f.heads[work.Branch(fakeIssue)] != c.SHA || res.HeadSHA != c.SHA || res.PullRequest != roundPull {
					t.Errorf("commit %+v, branch %s, result %+v", c, f.heads[work.Branch(fakeIssue)], res)
				}
				if trailer(c.Message, TrailerRound) != "retry:d-1" || !strings.Contains(f.pulls[0].Body, "#### Round 3: `/capsule retry` on the issue") {
					t.Errorf("message %q, body:\n%s", c.Message, f.pulls[0].Body)
				}
			},
		},
		{
			name:    "the label added again keeps the rounds too",
			label:   true,
			prepare: func(f *fakeGitHub) { firstRun(f, withRound) },
			o:       outcome(attemptlog.Solved, roundFix), tree: fix1.Content, state: work.Done,
			check: func(t *testing.T, f *fakeGitHub, res Result) {
				if c := f.commits[len(f.commits)-1]; c.Parent != firstHead || !strings.Contains(f.pulls[0].Body, "#### Round 3: the label added to the issue again") {
					t.Errorf("commit %+v, body:\n%s", c, f.pulls[0].Body)
				}
			},
		},
		{
			name: "a branch whose head someone pushed: built on",
			prepare: func(f *fakeGitHub) {
				firstRun(f, openingBody)
				f.commits = append(f.commits, fakeCommit{SHA: humanSHA, Parent: firstHead, Message: "tidy up", Files: []File{fix1}})
				f.heads[work.Branch(fakeIssue)] = humanSHA
			},
			o: outcome(attemptlog.Solved, roundFix), tree: fix1.Content, state: work.Done,
			check: func(t *testing.T, f *fakeGitHub, res Result) {
				if c := f.commits[len(f.commits)-1]; c.Parent != humanSHA || res.HeadSHA != c.SHA {
					t.Errorf("commit %+v, result %+v", c, res)
				}
			},
		},
		{
			name: "a failing run on a kept branch pushes nothing",
			prepare: func(f *fakeGitHub) {
				firstRun(f, withRound)
			},
			o: outcome(attemptlog.NotSolved, roundFix), tree: fix1.Content, state: work.Failed,
			check: func(t *testing.T, f *fakeGitHub, res Result) {
				if f.heads[work.Branch(fakeIssue)] != firstHead || f.pulls[0].Body != withRound || res.HeadSHA != "" {
					t.Errorf("branch %s, result %+v, body:\n%s", f.heads[work.Branch(fakeIssue)], res, f.pulls[0].Body)
				}
			},
		},
		{
			name: "an open pull request whose branch is gone: the branch is made again",
			prepare: func(f *fakeGitHub) {
				firstRun(f, withRound)
				delete(f.heads, work.Branch(fakeIssue))
			},
			o: outcome(attemptlog.Solved, roundFix), tree: "def add(a, b):\n    return a - b\n", state: work.Done,
			check: func(t *testing.T, f *fakeGitHub, res Result) {
				if c := f.commits[len(f.commits)-1]; c.Parent != fakeBase || !slices.Contains(f.calls, "CreateBranch") || res.HeadSHA != c.SHA {
					t.Errorf("commit %+v, calls %q", c, f.calls)
				}
			},
		},
		{
			name:    "only Capsule's first commit: replaced as before",
			prepare: func(f *fakeGitHub) { firstRun(f, openingBody) },
			o:       outcome(attemptlog.Solved, roundFix), tree: "def add(a, b):\n    return a - b\n", state: work.Done,
			check: func(t *testing.T, f *fakeGitHub, res Result) {
				if c := f.commits[len(f.commits)-1]; c.Parent != fakeBase || !slices.Contains(f.calls, "MoveBranch") || res.HeadSHA != c.SHA {
					t.Errorf("commit %+v, calls %q", c, f.calls)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, target := setUp(t, tt.prepare, func(r *work.Request) {
				if tt.label {
					return // labelled() adds the label again
				}
				r.Trigger, r.Label = work.TriggerRetry, ""
			})
			r := &Runner{Version: "test", Logger: quiet(), WorkDir: t.TempDir(), Solver: solverFunc(func(_ context.Context, task repo.Task) (*repo.Outcome, error) {
				data, err := os.ReadFile(filepath.Join(task.Dir, "calc", "ops.py"))
				if err != nil || string(data) != tt.tree || task.Title != "add subtracts" {
					return nil, fmt.Errorf("tree %q (%v), title %q", data, err, task.Title)
				}
				return tt.o, nil
			})}
			res, err := runJob(context.Background(), r, f, target, Hooks{})
			if res.State != tt.state || (err != nil && tt.state != work.Failed) {
				t.Fatalf("Run = %+v, %v; want %s", res, err, tt.state)
			}
			if pushes := f.count("AdvanceBranch") + f.count("MoveBranch") + f.count("CreateBranch"); tt.state == work.Done && pushes != 1 {
				t.Errorf("calls = %q: want the branch advanced, moved or made, once", f.calls)
			}
			tt.check(t, f, res)
		})
	}
}

// TestRoundAnnounceAndFail: a queued round shows on the pull request, in
// its own status comment, which a failure outside Run then ends; the
// issue's labels stay as they are. A fork's pull request hears nothing.
func TestRoundAnnounceAndFail(t *testing.T) {
	f := newFakeGitHub(t)
	reviewed(f)
	r := &Runner{Logger: quiet()}
	ctx := context.Background()
	if err := r.Announce(ctx, f, reviewRound(), ""); err != nil {
		t.Fatal(err)
	}
	st := f.bodies(roundPull)
	if len(st) != 1 || !strings.HasPrefix(st[0], report.Marker+"\n"+report.RoundMarker("review:900")+"\n**Capsule: queued.**") {
		t.Fatalf("the pull request's comments = %q", st)
	}
	id, err := r.Fail(ctx, f, reviewRound(), "Capsule stopped on an internal error: boom")
	if st := f.bodies(roundPull); err != nil || id == 0 || len(st) != 1 || !strings.Contains(st[0], "**Capsule: failed.**") {
		t.Errorf("Fail = %d, %v; comments %q", id, err, st)
	}
	if len(f.labels[fakeIssue]) != 0 || len(f.bodies(fakeIssue)) != 0 {
		t.Errorf("the issue changed: labels %q, comments %q", f.labels[fakeIssue], f.bodies(fakeIssue))
	}

	// A queued round that turns out to be done already ends its status.
	f = newFakeGitHub(t)
	reviewed(f)
	if err := r.Announce(ctx, f, reviewRound(), ""); err != nil {
		t.Fatal(err)
	}
	f.pulls[0].Body = report.AddRound(openingBody, report.Round{Number: 2, Key: "review:900", Commit: firstHead}, 0)
	res, err := runJob(ctx, r, f, reviewRound(), Hooks{})
	if st := f.bodies(roundPull); err != nil || res.State != work.Skipped || len(st) != 1 || !strings.Contains(st[0], "**Capsule: skipped.**") || !strings.Contains(st[0], "made already") {
		t.Errorf("Run = %+v, %v; comments %q", res, err, st)
	}

	for name, change := range map[string]func(*fakeGitHub, *work.Request){
		"a fork's pull request": func(f *fakeGitHub, _ *work.Request) { f.pulls[0].HeadRepo = "mallory/calc" },
		"a bot":                 func(f *fakeGitHub, t *work.Request) { t.Sender, f.perms[fakeBot] = fakeBot, "write" },
		"a CI round":            func(_ *fakeGitHub, t *work.Request) { t.Trigger, t.Round = work.TriggerCI, "run:31" },
	} {
		f := newFakeGitHub(t)
		reviewed(f)
		target := reviewRound()
		change(f, &target)
		if err := r.Announce(ctx, f, target, ""); err != nil || len(f.wrote()) != 0 {
			t.Errorf("Announce for %s: %v, writes %q", name, err, f.wrote())
		}
	}
}

// TestReviewRoundOverGitHub runs a review round through the go-github
// adapter on the OpenAPI-checked fake, twice: the second run (a replayed
// delivery) adds nothing.
func TestReviewRoundOverGitHub(t *testing.T) {
	gh, s, fake := adapter(t, map[string]string{"calc/ops.py": "def add(a, b):\n    return a - b\n"})
	s.SetPermission("octo", "calc", "alice", "write")
	fake.AddIssue(4, "alice", "add subtracts", "add(1, 2) gives -1")
	ctx := context.Background()
	head, err := fake.Push(work.Branch(4), withTrailers("Fix #4: add subtracts", 4, ""), map[string]string{"calc/ops.py": fix1.Content})
	if err != nil {
		t.Fatal(err)
	}
	_, opening := report.PullRequest(report.Issue{Owner: "octo", Repo: "calc", Number: 4, Title: "add subtracts"}, nil, "test", 0)
	pr, err := gh.CreatePullRequest(ctx, NewPullRequest{Title: "add subtracts", Body: opening, Head: work.Branch(4), Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	rv := fake.AddReview(pr.Number, fakegithub.Review{User: "alice", State: "CHANGES_REQUESTED", Comments: []fakegithub.ReviewComment{
		{Path: "calc/ops.py", Line: 2, DiffHunk: "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return b + a", Body: commentA},
	}})
	target := work.Request{
		Owner: "octo", Repo: "calc", Issue: 4, Sender: "alice", Trigger: work.TriggerReview, PullRequest: pr.Number,
		Round: fmt.Sprintf("review:%d", rv.ID), HeadSHA: head, Delivery: "d-9",
	}
	solver := solverFunc(func(ctx context.Context, task repo.Task) (*repo.Outcome, error) {
		if !strings.Contains(task.Body, commentA) || !strings.Contains(task.Body, "+    return b + a") {
			return nil, fmt.Errorf("the task lacks the comment and its hunk:\n%s", task.Body)
		}
		return answers(outcome(attemptlog.Solved, roundFix))(ctx, task)
	})
	r := &Runner{Version: "test", Logger: quiet(), WorkDir: t.TempDir(), Solver: solver}
	for run := range 2 {
		res, err := runJob(ctx, r, gh, target, Hooks{})
		if err != nil || res.State != work.Done {
			t.Fatalf("run %d: %+v, %v", run, res, err)
		}
		c, err := fake.Commit(work.Branch(4))
		if err != nil || c.SHA != res.HeadSHA || trailer(c.Message, TrailerRound) != target.Round {
			t.Fatalf("run %d: branch at %+v, %v; result %s", run, c, err, res.HeadSHA)
		}
	}
	files, err := fake.Files(work.Branch(4))
	if err != nil || files["calc/ops.py"] != roundFix.Content {
		t.Errorf("branch files = %q, %v", files, err)
	}
	var replies []fakegithub.ReviewComment
	for _, c := range fake.ReviewComments(pr.Number) {
		if c.InReplyTo != 0 {
			replies = append(replies, c)
		}
	}
	if len(replies) != 1 || replies[0].InReplyTo != rv.Comments[0].ID || !strings.HasPrefix(replies[0].Body, report.RoundMarker(target.Round)) {
		t.Errorf("replies = %+v", replies)
	}
	prs := fake.PullRequests()
	if n, ok := report.RoundNumber(prs[0].Body, target.Round); !ok || n != 2 || strings.Count(prs[0].Body, "#### Round 2") != 1 {
		t.Errorf("body:\n%s", prs[0].Body)
	}
	var statuses int
	for _, c := range fake.Comments(pr.Number) {
		if strings.HasPrefix(c.Body, report.Marker) {
			statuses++
		}
	}
	if statuses != 1 {
		t.Errorf("%d status comments on the pull request, want 1", statuses)
	}
}
