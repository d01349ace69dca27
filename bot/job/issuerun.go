package job

import (
	"context"
	"fmt"
	"strings"

	"github.com/capsulehq/capsule/bot/round"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
)

// issueRun is the issue's path: the job a label or a retry on the issue
// starts. Its own steps check the label (wrongLabel), run the loop
// (work), and publish the fix as the issue's pull request (publish), or
// as one more commit on it when its branch must be kept (retryOnBranch);
// the rest are the session's shared steps.
type issueRun struct{ *session }

// run takes the issue to a pull request.
func (s *issueRun) run(ctx context.Context) (Result, error) {
	branch, cfg, cfgErr, err := s.pin(ctx)
	if err != nil {
		return Result{}, err
	}
	if skip, why := s.wrongLabel(cfg); skip {
		s.log.Info("job skipped", "reason", why)
		return Result{State: work.Skipped, Reason: why}, nil
	}
	if res, done, err := s.admit(ctx); done {
		return res, err
	}
	if err := s.begin(ctx); err != nil {
		return Result{}, err
	}
	if cfgErr != nil {
		return s.failConfig(ctx, cfgErr)
	}
	return s.work(ctx, branch, cfg)
}

// concerned reports whether the job is Capsule's to work on: false, with
// the reason, for a label trigger of another label than the trigger
// label. The repository's configuration is read only when the Runner
// names no label.
func (s *issueRun) concerned(ctx context.Context) (bool, string, error) {
	if s.runner.Label != "" || s.t.Trigger != work.TriggerLabel {
		skip, why := s.wrongLabel(repoconfig.Default())
		return !skip, why, nil
	}
	if _, err := s.repository(ctx); err != nil {
		return false, "", err
	}
	cfg, _ := s.config(ctx)
	skip, why := s.wrongLabel(cfg)
	return !skip, why, nil
}

// wrongLabel reports a label trigger for another label than the
// repository's.
func (s *issueRun) wrongLabel(cfg repoconfig.Config) (bool, string) {
	if s.runner.Label != "" {
		cfg.Label = s.runner.Label
	}
	if s.t.Trigger != work.TriggerLabel || strings.EqualFold(s.t.Label, cfg.Label) {
		return false, ""
	}
	return true, fmt.Sprintf("label %q is not the trigger label %q", s.t.Label, cfg.Label)
}

// work fetches the tree, runs the loop and publishes what it made. When
// the issue's open pull request holds rounds or someone else's commits,
// the loop runs on its branch instead and adds one commit (see
// retryOnBranch): those are never wiped.
func (s *issueRun) work(ctx context.Context, branch string, cfg repoconfig.Config) (Result, error) {
	issue, err := s.gh.Issue(ctx, s.t.Issue)
	if err != nil {
		return s.fail(ctx, nil, "", githubError("read the issue", err))
	}
	if pr, head, message, keep, err := s.keptBranch(ctx); err != nil {
		return s.fail(ctx, nil, "", err)
	} else if keep {
		return s.retryOnBranch(ctx, pr, head, message, issue, cfg)
	}
	outcome, res, err := s.solve(ctx, round.Task{Title: issue.Title, Body: issue.Body}, cfg)
	if outcome == nil || err != nil {
		return res, err
	}
	res = Result{Outcome: outcome, StatusComment: s.comment}
	if outcome.Solved() || cfg.OnFailure == repoconfig.OnFailureDraft {
		pr, err := s.publish(ctx, branch, issue.Title, outcome)
		if err != nil {
			return s.fail(ctx, outcome, "", err)
		}
		res.PullRequest, res.PullRequestURL, res.Draft, res.HeadSHA = pr.Number, pr.URL, pr.Draft, pr.HeadSHA
	}
	return s.done(ctx, res)
}

// done ends a job whose loop ran: failed when no attempt passed, else
// done (unproven when no test showed the issue).
func (s *issueRun) done(ctx context.Context, res Result) (Result, error) {
	if !res.Outcome.Solved() {
		res.State, res.Reason = work.Failed, res.Outcome.Log.Stopped
		return res, s.finish(ctx, res, LabelFailed)
	}
	res.State = work.Done
	label := LabelDone
	if res.Outcome.Outcome() != attemptlog.Solved {
		label = LabelUnproven
	}
	return res, s.finish(ctx, res, label)
}
