package job

import (
	"context"
	"errors"

	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/round"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
)

// keptBranch finds the issue's open pull request whose branch must be
// kept: it logs rounds, or its head is not Capsule's (someone pushed), or
// its head is a round's commit. It returns the pull request and the
// branch's head with its message, with keep false when the branch may be
// replaced as a first run's (no pull request, or only Capsule's first
// commit).
func (s *issueRun) keptBranch(ctx context.Context) (pr PullRequest, head, message string, keep bool, err error) {
	branch := work.Branch(s.t.Issue)
	pr, found, err := s.gh.OpenPullRequest(ctx, branch)
	if err != nil {
		return pr, "", "", false, githubError("look for the issue's pull request", err)
	}
	if !found {
		return pr, "", "", false, nil
	}
	head, err = s.gh.BranchHead(ctx, branch)
	if errors.Is(err, ErrNotFound) {
		return pr, "", "", false, nil // nothing to keep: publish makes the branch again
	}
	if err != nil {
		return pr, "", "", false, githubError("read the branch "+branch, err)
	}
	message, err = s.gh.CommitMessage(ctx, head)
	if err != nil {
		return pr, "", "", false, githubError("read the branch's head "+head, err)
	}
	keep = report.HasRounds(pr.Body) || trailer(message, TrailerIssue) == "" || trailer(message, TrailerRound) != ""
	return pr, head, message, keep, nil
}

// retryOnBranch runs the issue's task on the head of its pull request's
// branch (whose commit message is message) and, when the tests pass, adds one commit (no force) and logs it
// as a round in the pull request's body. A failing run pushes nothing.
func (s *issueRun) retryOnBranch(ctx context.Context, pr PullRequest, head, message string, issue Issue, cfg repoconfig.Config) (Result, error) {
	s.parent = head
	r := newRound(pr.Body, work.RetryKey(s.t.Delivery).String(), roundCause(s.t))
	s.log.Info("the issue's pull request has rounds or others' commits: working on its branch", "pull_request", pr.Number, "head", head)
	res := Result{PullRequest: pr.Number, PullRequestURL: pr.URL, Draft: pr.Draft, StatusComment: s.comment}
	if trailer(message, TrailerRound) == oneLine(r.Key) {
		// A run before this one pushed the commit and stopped.
		r.Commit = head
	} else {
		outcome, fail, err := s.solve(ctx, round.Task{Title: issue.Title, Body: issue.Body}, cfg)
		if outcome == nil || err != nil {
			return fail, err
		}
		res.Outcome, r.Log = outcome, outcome.Log
		if !outcome.Solved() {
			return s.done(ctx, res)
		}
		if r.Commit, err = s.pushOnBranch(ctx, roundMessage(s.t.Issue, r, issue.Title, outcome), r.Key, outcome); err != nil {
			return s.fail(ctx, outcome, "", err)
		}
	}
	if err := s.logRound(ctx, pr, r); err != nil {
		return s.fail(ctx, res.Outcome, "", err)
	}
	res.HeadSHA = r.Commit
	if res.Outcome == nil {
		res.State = work.Done
		return res, s.finish(ctx, res, LabelDone)
	}
	return s.done(ctx, res)
}
