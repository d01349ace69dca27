package job

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/round"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/budget"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
)

// session is one run of a job: what it knows as it goes, and the steps
// its two paths share, in the order they take them:
//
//   - pin: the default branch's head and the configuration there
//     (repository, config);
//   - admit: the sender's permission;
//   - begin: the status comment says the job runs;
//   - solve: fetch the tree and run the loop (or resume a kept outcome);
//   - commit, pushOnBranch, logRound: write the outcome on GitHub;
//   - finish: the final status and labels, or one of the ends that stop
//     early: fail, failConfig, waitForModel, waitForGitHub.
//
// What differs is the path (see path): the issue's (issueRun) or a
// round's on Capsule's pull request (roundRun).
type session struct {
	runner *Runner
	gh     GitHub
	t      work.Request
	hooks  Hooks
	log    *slog.Logger

	base string // the default branch's head commit
	// parent is the commit whose tree the loop works on and over which the
	// job commits: base, or the head of the issue's branch for a round
	// (and a retry that keeps the branch's rounds).
	parent string
	// round is the round a job on Capsule's pull request makes (its status
	// comment is on the pull request); nil for a job on an issue.
	round      *report.Round
	comment    int64  // the status comment's id; 0 until known
	treeDir    string // the tree the loop works on
	fetched    string // the tree, when the job fetched it
	lastResult string
	// solved is the loop's outcome once it ran (or was kept from a run
	// that waited for GitHub), over commit solvedOver; modes holds the
	// modes of the files a kept outcome changes.
	solved     *repo.Outcome
	solvedOver string
	modes      map[string]string
}

// path is what a job does with the session's steps: the issue's path or
// a round's.
type path interface {
	run(ctx context.Context) (Result, error)
}

// path is the job's path, by its trigger.
func (s *session) path() path {
	if s.t.Trigger.Round() {
		return s.roundRun()
	}
	return &issueRun{s}
}

// roundRun is the session on a round's path.
func (s *session) roundRun() *roundRun {
	key, _ := work.ParseRoundKey(s.t.Round) // the zero key when t.Round is none
	return &roundRun{session: s, key: key}
}

// repository reads the repository's default branch and pins its head.
func (s *session) repository(ctx context.Context) (string, error) {
	branch, err := s.gh.DefaultBranch(ctx)
	if err != nil {
		return "", githubError("read the repository", err)
	}
	if s.workspace() != "" && s.runner.WorkspaceCommit != "" {
		s.base, s.parent = s.runner.WorkspaceCommit, s.runner.WorkspaceCommit
		return branch, nil
	}
	if s.base, err = s.gh.BranchHead(ctx, branch); err != nil {
		return "", githubError("read the default branch "+branch, err)
	}
	s.parent = s.base
	return branch, nil
}

// pin reads the default branch and pins its head (repository), then
// reads the configuration there (config). err ends the job; cfgErr is a
// configuration that is not valid, which the job reports once it has
// begun.
func (s *session) pin(ctx context.Context) (branch string, cfg repoconfig.Config, cfgErr, err error) {
	if branch, err = s.repository(ctx); err != nil {
		return "", cfg, nil, err
	}
	cfg, cfgErr = s.config(ctx)
	if GitHubDown(cfgErr) {
		return "", cfg, nil, cfgErr
	}
	return branch, cfg, cfgErr, nil
}

// workspace is the Runner's checkout of the default branch, when the job
// works on that branch (a round, and a retry that keeps the branch's
// rounds, work on the pull request's); else "".
func (s *session) workspace() string {
	if s.t.Trigger.Round() || s.parent != s.base {
		return ""
	}
	return s.runner.Workspace
}

// config reads the repository's configuration at the pinned commit. The
// defaults hold when there is none; a broken file is an error for the
// user, and its label (when readable) still decides whether the job is
// Capsule's to report on.
func (s *session) config(ctx context.Context) (repoconfig.Config, error) {
	for _, p := range s.runner.configPaths() {
		text, err := s.gh.File(ctx, p, s.base)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return repoconfig.Default(), githubError("read "+p, err)
		}
		cfg, err := repoconfig.Parse(p, text)
		if err != nil {
			cfg = repoconfig.Default()
			if l := labelOf(text); l != "" {
				cfg.Label = l
			}
			return cfg, err
		}
		return cfg, nil
	}
	return repoconfig.Default(), nil
}

// labelOf reads the label of a configuration that does not parse as a
// whole, so that its errors reach the people who use that label.
func labelOf(text []byte) string {
	var loose struct {
		Label string `yaml:"label"`
	}
	if yaml.Unmarshal(text, &loose) != nil {
		return ""
	}
	return loose.Label
}

// admit checks the sender's permission; done is true when the job ends
// here. A sender below the minimum hears why: on the issue each time, on
// the pull request once (a review's deliveries are many).
func (s *session) admit(ctx context.Context) (res Result, done bool, err error) {
	need := s.runner.minPermission()
	have, err := permissionOf(ctx, s.gh, s.t)
	if err != nil {
		return Result{State: work.Failed, Reason: err.Error()}, true, err
	}
	if rank(have) >= rank(need) {
		return Result{}, false, nil
	}
	why := fmt.Sprintf("%s has %s permission; %s is needed", s.t.Sender, have, need)
	s.log.Info("job skipped", "reason", why)
	if s.round != nil {
		err = s.noteOnce(ctx, report.RoundPermissionDenied(s.t.Sender, have, need))
	} else if _, err = s.gh.CreateComment(ctx, s.t.Issue, report.PermissionDenied(s.t.Sender, have, need, s.t.Label)); err != nil {
		err = githubError("comment on the issue", err)
	}
	if err != nil {
		return Result{State: work.Failed, Reason: why}, true, err
	}
	return Result{State: work.Skipped, Reason: why}, true, nil
}

// begin shows the job as running: the status comment and the labels.
func (s *session) begin(ctx context.Context) error {
	c, err := findStatusComment(ctx, s.gh, s.t)
	if err != nil {
		return err
	}
	s.comment = c.ID
	if err := s.status(ctx, report.Status{State: work.Running, Attempt: -1}); err != nil {
		return err
	}
	if s.round != nil {
		return nil // the issue's labels say how its job went
	}
	return s.setLabels(ctx, LabelInProgress, LabelDone, LabelFailed, LabelUnproven)
}

// progress shows an attempt's end in the status comment.
func (s *session) progress(ctx context.Context, e pipeline.Event) {
	s.lastResult = e.Summary
	if s.hooks.Attempt != nil {
		s.hooks.Attempt(e)
	}
	if e.Passed {
		return // the final status follows at once
	}
	if err := s.status(ctx, report.Status{State: work.Running, Attempt: e.Attempt, Of: e.Of, LastResult: e.Summary}); err != nil {
		s.log.Warn("update the status comment", "err", err)
	}
}

// finish writes the final status and labels.
func (s *session) finish(ctx context.Context, res Result, label string) error {
	st := report.Status{
		State: res.State, Reason: res.Reason, Log: res.Log(), LastResult: s.lastResult,
		PullRequestURL: res.PullRequestURL, DraftPullRequest: res.Draft,
	}
	if err := s.status(ctx, st); err != nil {
		return err
	}
	if s.round != nil {
		return nil // the issue's labels say how its job went
	}
	return s.setLabels(ctx, label, LabelInProgress)
}

// waitForModel ends the run of a job that will wait for the model
// endpoint: the status comment says so, and the error wraps
// ErrWaitingForModel.
func (s *session) waitForModel(ctx context.Context, cause error) (Result, error) {
	s.log.Warn("job waits for the model endpoint", "err", cause)
	err := fmt.Errorf("%w: %w", ErrWaitingForModel, cause)
	if serr := s.status(ctx, report.Status{State: work.Queued, Waiting: ModelWaiting}); serr != nil {
		s.log.Warn("update the status comment", "err", serr)
	}
	return Result{State: work.Queued, Reason: cause.Error(), StatusComment: s.comment}, err
}

// failConfig ends as failed, before the model, a job whose repository
// configuration is not valid.
func (s *session) failConfig(ctx context.Context, cfgErr error) (Result, error) {
	return s.fail(ctx, nil, fmt.Sprintf("The configuration is not valid, so nothing ran:\n\n```\n%v\n```", cfgErr), nil)
}

// fail ends the job as failed: the reason goes in the status comment, with
// the log so far. Without ctx (it ended) GitHub is left as it is so that a
// later run picks the job up again.
func (s *session) fail(ctx context.Context, outcome *repo.Outcome, reason string, cause error) (Result, error) {
	if reason == "" && cause != nil {
		reason = cause.Error()
	}
	res := Result{State: work.Failed, Reason: reason, Outcome: outcome, StatusComment: s.comment}
	if ctx.Err() != nil {
		return res, errors.Join(cause, ctx.Err())
	}
	if s.waitsForGitHub(ctx, cause) {
		return res, cause // Run makes it a wait: GitHub is not told of a failure
	}
	s.log.Warn("job failed", "reason", reason)
	if err := s.finish(ctx, res, LabelFailed); err != nil {
		return res, errors.Join(cause, err)
	}
	return res, cause
}

// status writes the status comment, creating it the first time.
func (s *session) status(ctx context.Context, st report.Status) error {
	st.RunURL = s.runner.RunURL
	st.Round = s.round
	if s.hooks.Busy != nil && s.hooks.Busy() {
		st.Busy = true
	}
	body := report.StatusComment(st)
	if s.comment != 0 {
		err := s.gh.EditComment(ctx, s.comment, body)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrNotFound) {
			return githubError("edit the status comment", err)
		}
		// Someone deleted it: write a new one.
	}
	id, err := s.gh.CreateComment(ctx, statusThread(s.t), body)
	if err != nil {
		return githubError("write the status comment", err)
	}
	s.comment = id
	return nil
}

// removeTree removes the tree the job fetched, if any.
func (s *session) removeTree() {
	if s.fetched != "" {
		os.RemoveAll(s.fetched)
	}
}

// solve fetches the tree at s.parent (the job removes it as it ends, see
// removeTree) and runs the loop on task. A nil outcome means the job
// ended (res and err say how): the model is away, or the loop failed.
func (s *session) solve(ctx context.Context, task round.Task, cfg repoconfig.Config) (*repo.Outcome, Result, error) {
	if kept := s.resume(); kept != nil {
		return kept, Result{}, nil
	}
	dir := s.workspace()
	if dir == "" {
		var err error
		if dir, err = s.fetch(ctx); err != nil {
			res, err := s.fail(ctx, nil, "", err)
			return nil, res, err
		}
		s.fetched = dir
	}
	s.treeDir = dir
	if stop, err := s.dayLeft(ctx); stop != "" || err != nil {
		res, err := s.fail(ctx, nil, stop, err)
		return nil, res, err
	}
	id := fmt.Sprintf("issue-%d", s.t.Issue)
	if s.round != nil {
		id += fmt.Sprintf("-round-%d", s.round.Number)
	}
	outcome, err := s.runner.Solver.Solve(ctx, repo.Task{
		ID: id, Dir: dir, Config: cfg, Title: task.Title, Body: task.Body,
		Progress: func(e pipeline.Event) { s.progress(ctx, e) },
		Logger:   s.log, Day: s.hooks.Day,
		Repository: s.t.Owner + "/" + s.t.Repo, Installation: s.t.Installation, TrustedInput: s.trustedInput(),
	})
	if err != nil && programmer.Classify(err) == programmer.Down && s.hooks.WaitForModel != nil && ctx.Err() == nil && s.hooks.WaitForModel(err) {
		res, err := s.waitForModel(ctx, err)
		return nil, res, err
	}
	if err != nil {
		res, err := s.fail(ctx, outcome, "", &loopError{err})
		return nil, res, err
	}
	s.solved, s.solvedOver = outcome, s.parent
	return outcome, Result{}, nil
}

// trustedInput reads a set-up input file at the default branch's head,
// whose set-up inputs may have the set-up secrets; nil when the loop
// works on that commit's tree.
func (s *session) trustedInput() func(ctx context.Context, path string) ([]byte, bool, error) {
	if s.parent == s.base {
		return nil
	}
	return func(ctx context.Context, path string) ([]byte, bool, error) {
		data, err := s.gh.File(ctx, path, s.base)
		if errors.Is(err, ErrNotFound) {
			return nil, false, nil
		}
		return data, err == nil, err
	}
}

// dayLeft checks the installation's budget for the day before the loop
// runs: stop says why the job does not start when it is spent.
func (s *session) dayLeft(ctx context.Context) (stop string, err error) {
	if s.hooks.Day == nil {
		return "", nil
	}
	err = s.hooks.Day.Check(ctx)
	if e, ok := errors.AsType[*budget.Exceeded](err); ok {
		return "The job did not start: " + e.Error() + ". It renews at midnight UTC.", nil
	}
	return "", err
}
