// Package job takes one issue to a pull request: it checks who asked,
// fetches the default branch, runs repo mode, and reports on GitHub with a
// status comment, labels, a branch, a commit and a pull request. A round
// on that pull request (a review, a `/capsule` command, failing checks)
// runs repo mode on the branch's head and adds one commit to it (see
// round.go). The App server and the GitHub Action run the same Runner.
package job

import (
	"context"
	"errors"
	"log/slog"
	"os"

	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/budget"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
)

// Labels the job puts on the issue.
const (
	LabelInProgress = "capsule:in-progress"
	LabelDone       = "capsule:done" // a proven fix
	LabelFailed     = "capsule:failed"
	// LabelUnproven marks a passing fix that no test showed: its pull
	// request is a draft.
	LabelUnproven = "capsule:unproven"
)

// Result is how a job ended: the one thing Run returns.
type Result struct {
	// State is Done, Failed or Skipped; Queued for a job that stopped to
	// wait (Err says for what).
	State  work.State
	Reason string // why it failed, was skipped or waits; never empty when Err is set
	// Err is why the job could not be carried out: GitHub, the model or
	// the engine failed for good, or ctx ended (State Failed); or, for a
	// job that stopped to wait (State Queued), an error wrapping
	// ErrWaitingForModel or ErrWaitingForGitHub. It is nil for a job that
	// ran to its end, failed ones among them (no attempt passed, the
	// configuration is not valid), which said so on GitHub.
	Err error
	// PullRequest is the number and URL of the pull request opened or
	// updated; zero when none.
	PullRequest    int
	PullRequestURL string
	Draft          bool
	// HeadSHA is the commit the pull request's branch points at after the
	// job pushed to it; empty when it pushed nothing. The App's store keeps
	// it: a CI round answers only checks that ran on this commit.
	HeadSHA       string
	StatusComment int64
	Outcome       *repo.Outcome // nil when the loop did not run
}

// Log returns the attempt log, or nil when the loop did not run.
func (r Result) Log() *attemptlog.Log {
	if r.Outcome == nil {
		return nil
	}
	return r.Outcome.Log
}

// Hooks are told about a job as it moves; every field is optional.
type Hooks struct {
	// Attempt is called when an attempt ends.
	Attempt func(pipeline.Event)
	// PullRequest is called with the number of the pull request the job
	// opened or updated, as soon as GitHub has it, before the job ends
	// (the App's store records it, so that a review of the pull request is
	// taken at once).
	PullRequest func(number int)
	// Busy reports whether another trigger arrived for the issue while
	// the job was active, which the status comment then says (the App's
	// store keeps the mark, store.Job.Busy).
	Busy func() bool
	// WaitForModel, when set, is asked when the model endpoint cannot be
	// reached (after the model client's retries): if it returns true, the
	// job does not fail but ends with an error wrapping
	// ErrWaitingForModel, its status comment saying it waits for the
	// model, for the caller to run it again later.
	WaitForModel func(err error) bool
	// WaitForGitHub, when set, is asked when GitHub cannot be reached or
	// keeps failing (see GitHubDown): if it returns true, the job does not
	// fail but ends with an error wrapping ErrWaitingForGitHub, having
	// written nothing more, for the caller to run it again later.
	WaitForGitHub func(err error) bool
	// Keep, when set, is given what a job that stops to wait for GitHub
	// after its loop ran had made, for the caller to pass back as Kept to
	// the job's next run.
	Keep func(*Kept)
	// Kept is what an earlier run of the job kept (see Keep): the run
	// publishes it instead of running the loop again, so that the model
	// is not asked twice for one job. Nil for none.
	Kept *Kept
	// Day, when set, is the installation's budget for the day: a job
	// finding it spent does not start, and the loop's model calls count
	// against it.
	Day budget.Day
}

// ErrWaitingForModel is wrapped by the error of a job that stopped to
// wait for the model endpoint (see Hooks.WaitForModel).
var ErrWaitingForModel = errors.New("waiting for the model endpoint")

// ModelWaiting is what the status comment of a job waiting for the model
// endpoint says it waits for. The endpoint's address and error stay in
// the server's log: the comment is public.
const ModelWaiting = "the model endpoint, which does not answer; it starts on its own once the endpoint is back"

// Runner runs jobs.
type Runner struct {
	// Solver runs the loop on the fetched tree.
	Solver Solver
	// MinPermission is the least permission a sender needs: read, triage,
	// write, maintain or admin. Empty means write.
	MinPermission string
	// ConfigPath, when set, is the repository config's path instead of
	// .github/capsule.yml.
	ConfigPath string
	// Label, when set, is the trigger label instead of the configuration's.
	Label string
	// Workspace, when set, is a checkout of the default branch at commit
	// WorkspaceCommit, used instead of fetching the tree (the Action's
	// checkout). It is read, never written.
	Workspace, WorkspaceCommit string
	// Version goes in the pull request's footer.
	Version string
	// RunURL, when set, is linked from the status comment (the Action's
	// workflow run).
	RunURL string
	// WorkDir holds the fetched trees; empty means the system's temporary
	// directory.
	WorkDir string
	// MaxCIRounds is the operator's maximum of a repository's ci_rounds:
	// 0 means DefaultMaxCIRounds, a negative value turns CI rounds off.
	MaxCIRounds int
	Logger      *slog.Logger
}

// ErrNotFound is returned when the issue or repository does not exist
// (or the installation cannot see it).
var ErrNotFound = errors.New("not found")

// Run takes t to a pull request; a round (t.Trigger.Round()) adds a
// commit to Capsule's pull request instead (see the package's round.go).
// The Result's Err is set when the job could not be carried out (GitHub,
// the model or the engine failed for good, or ctx ended): its State is
// then Failed, and the status comment says why when GitHub still answers.
// A cancelled ctx leaves GitHub as it is, so that a later run resumes.
//
// A job that meets a GitHub outage (see GitHubDown) and is let wait
// (Hooks.WaitForGitHub) ends with State Queued and an Err wrapping
// ErrWaitingForGitHub, wherever it was: what it wrote stays on GitHub,
// and a later run finds it (the status comment, the branch, the pull
// request) rather than making it twice.
func (r *Runner) Run(ctx context.Context, gh GitHub, t work.Request, hooks Hooks) Result {
	s := r.session(gh, t, hooks)
	defer s.removeTree()
	res, err := s.path().run(ctx)
	if err != nil && !errors.Is(err, ErrWaitingForModel) && s.waitsForGitHub(ctx, err) {
		res, err = s.waitForGitHub(err)
	}
	return ended(res, err)
}

// ended makes the one Result of what the session's steps return, a
// result and the error that stopped them: a job stopped by an error that
// is not a wait failed, for that reason when it gives none.
func ended(res Result, err error) Result {
	res.Err = err
	if err != nil && !waits(err) {
		res.State = work.Failed
		if res.Reason == "" {
			res.Reason = err.Error()
		}
	}
	return res
}

// waits reports whether err is a job's that stopped to wait for the
// model endpoint or for GitHub.
func waits(err error) bool {
	return errors.Is(err, ErrWaitingForModel) || errors.Is(err, ErrWaitingForGitHub)
}

// Announce shows a job that waits in the queue: when the label is the
// repository's (for a round: the pull request is Capsule's) and the
// sender may run Capsule, it writes the status comment in the queued
// state (a round's on the pull request), saying what the job waits for
// when waiting is not empty (see report.Status). Otherwise it says
// nothing, leaving those cases to the run; so it does for a CI round,
// which may yet find nothing to do.
func (r *Runner) Announce(ctx context.Context, gh GitHub, t work.Request, waiting string) error {
	s := r.session(gh, t, Hooks{})
	switch {
	case t.Trigger == work.TriggerCI || t.Trigger.Round() && senderIsBot(t):
		return nil
	case t.Trigger.Round():
		if _, why, err := s.roundRun().capsulePull(ctx); why != "" || err != nil {
			return err
		}
	default:
		if ok, _, err := (&issueRun{s}).concerned(ctx); !ok {
			return err
		}
	}
	have, err := permissionOf(ctx, gh, t)
	if err != nil || rank(have) < rank(r.minPermission()) {
		return err
	}
	c, err := findStatusComment(ctx, gh, t)
	if err != nil {
		return err
	}
	s.comment = c.ID
	return s.status(ctx, report.Status{State: work.Queued, Waiting: waiting})
}

// Concerns reports whether t is Capsule's to work on, before anything
// that needs the model: false, with the reason, for a label trigger whose
// label is not the trigger label (Label, else the repository's
// configuration, read from GitHub). Nothing is written.
func (r *Runner) Concerns(ctx context.Context, gh GitHub, t work.Request) (ok bool, why string, err error) {
	return (&issueRun{r.session(gh, t, Hooks{})}).concerned(ctx)
}

// Fail ends as failed a job that stopped outside Run's care (the server
// recovered from a panic in it): the status comment says so with the
// reason, and the labels say failed. It returns the status comment's id.
func (r *Runner) Fail(ctx context.Context, gh GitHub, t work.Request, reason string) (int64, error) {
	s := r.session(gh, t, Hooks{})
	c, err := findStatusComment(ctx, gh, t)
	if err != nil {
		return 0, err
	}
	s.comment = c.ID
	err = s.finish(ctx, Result{State: work.Failed, Reason: reason}, LabelFailed)
	return s.comment, err
}

func (r *Runner) session(gh GitHub, t work.Request, hooks Hooks) *session {
	log := r.logger().With("delivery", t.Delivery, "repo", t.Owner+"/"+t.Repo, "issue", t.Issue)
	s := &session{runner: r, gh: gh, t: t, hooks: hooks, log: log}
	if t.Trigger.Round() {
		s.log = log.With("pull_request", t.PullRequest, "round", t.Round)
		s.round = &report.Round{Key: t.Round, Cause: roundCause(t)} // numbered when it runs
	}
	return s
}

func (r *Runner) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

func (r *Runner) minPermission() string {
	if r.MinPermission == "" {
		return "write"
	}
	return r.MinPermission
}

func (r *Runner) configPaths() []string {
	if r.ConfigPath != "" {
		return []string{r.ConfigPath}
	}
	return []string{repoconfig.Path, repoconfig.AltPath}
}

func (r *Runner) workDir() string {
	if r.WorkDir != "" {
		return r.WorkDir
	}
	return os.TempDir()
}
