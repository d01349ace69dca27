package job

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/round"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
)

// roundRun is a round's path, on Capsule's pull request: its own steps
// check the pull request (capsulePull), gather what the round answers
// (roundTask, and ciRound for failing checks), and end a passing round
// (roundPushed); the rest are the session's shared steps.
type roundRun struct {
	*session
	key work.RoundKey // read from t.Round; zero when it is not a key
	// readOnce is the review a review round answers, once read: its
	// task shows it and its replies go in its threads.
	readOnce *Review
}

// run runs a round on Capsule's pull request (t.Trigger.Round()): it
// checks the pull request is Capsule's and who asked, runs the loop on
// the branch's head with the review, the command or the failing checks as
// the task, and when the tests pass pushes one commit over the head (no
// force), replies in the review's threads and logs the round in the pull
// request's body. A failing round pushes nothing and says so in its
// status comment on the pull request, with its log.
func (s *roundRun) run(ctx context.Context) (Result, error) {
	pr, res, done, err := s.admitRound(ctx)
	if done {
		return res, err
	}
	_, cfg, cfgErr, err := s.pin(ctx)
	if err != nil {
		return Result{}, err
	}
	head, message, res, err := s.branchHead(ctx)
	if err != nil {
		return res, err
	}
	r := newRound(pr.Body, s.t.Round, roundCause(s.t))
	s.round = &r
	if trailer(message, TrailerRound) == oneLine(s.t.Round) {
		// A run before this one pushed the round's commit and stopped. Its
		// status comment, when it can be found, is ended; else a new one
		// says the round is done.
		if c, err := findStatusComment(ctx, s.gh, s.t); err == nil {
			s.comment = c.ID
		}
		return s.roundPushed(ctx, pr, head, nil)
	}
	if _, logged := report.RoundNumber(pr.Body, s.t.Round); logged {
		return s.skip(ctx, fmt.Sprintf("round %d (%s) was made already", r.Number, s.t.Round))
	}
	if cfgErr != nil {
		if err := s.begin(ctx); err != nil {
			return Result{}, err
		}
		return s.failConfig(ctx, cfgErr)
	}
	checks, res, done, err := s.failedChecks(ctx)
	if done {
		return res, err
	}
	if err := s.begin(ctx); err != nil {
		return Result{}, err
	}
	s.parent = head // the round works on the branch, and commits over its head
	return s.solveRound(ctx, pr, cfg, checks)
}

// admitRound checks who asked and on which pull request: bots never
// start rounds (but failing checks, which Capsule's own pushes cause),
// the pull request must be Capsule's, and the sender of a review or a
// command must have the permission. done is true when the round ends
// here, with res and err.
func (s *roundRun) admitRound(ctx context.Context) (pr PullRequest, res Result, done bool, err error) {
	if s.t.Trigger != work.TriggerCI && senderIsBot(s.t) {
		res, err = s.skip(ctx, s.t.Sender+" is a bot: bots never start rounds")
		return pr, res, true, err
	}
	pr, why, err := s.capsulePull(ctx)
	if err != nil || why != "" {
		res, err = s.skipOrFail(ctx, why, err)
		return pr, res, true, err
	}
	if s.t.Trigger == work.TriggerCI {
		return pr, Result{}, false, nil
	}
	res, done, err = s.admit(ctx)
	return pr, res, done, err
}

// branchHead reads the head of the issue's branch and its message. On an
// error, res is the round's end.
func (s *roundRun) branchHead(ctx context.Context) (head, message string, res Result, err error) {
	branch := work.Branch(s.t.Issue)
	if head, err = s.gh.BranchHead(ctx, branch); err != nil {
		return "", "", Result{State: work.Failed, Reason: err.Error()}, githubError("read the branch "+branch, err)
	}
	if message, err = s.gh.CommitMessage(ctx, head); err != nil {
		return "", "", Result{State: work.Failed, Reason: err.Error()}, githubError("read the branch's head "+head, err)
	}
	return head, message, Result{}, nil
}

// failedChecks gathers, for a CI round, the failing checks it answers
// (see ciRound); done is true when the round ends here, with res and err:
// a CI round that does not run says why once on the pull request.
func (s *roundRun) failedChecks(ctx context.Context) (checks []round.Check, res Result, done bool, err error) {
	if s.t.Trigger != work.TriggerCI {
		return nil, Result{}, false, nil
	}
	checks, skip, err := s.ciRound(ctx)
	if err != nil {
		return nil, Result{}, true, err
	}
	if skip == "" {
		return checks, Result{}, false, nil
	}
	if err := s.noteOnce(ctx, noteMarker+"\n"+strings.TrimSpace(skip)+"\n"); err != nil {
		return nil, Result{State: work.Failed, Reason: skip}, true, err
	}
	res, err = s.skip(ctx, skip)
	return nil, res, true, err
}

// solveRound fetches the branch's head, runs the loop on the round's task
// and pushes what passes.
func (s *roundRun) solveRound(ctx context.Context, pr PullRequest, cfg repoconfig.Config, checks []round.Check) (Result, error) {
	task, err := s.roundTask(ctx, checks)
	if err != nil {
		return s.fail(ctx, nil, "", err)
	}
	outcome, res, err := s.solve(ctx, task, cfg)
	if outcome == nil || err != nil {
		return res, err
	}
	if !outcome.Solved() {
		// A failing round changes no code: its status comment says so,
		// with the log.
		res := Result{State: work.Failed, Reason: outcome.Log.Stopped, Outcome: outcome, StatusComment: s.comment}
		return res, s.finish(ctx, res, LabelFailed)
	}
	sha, err := s.pushOnBranch(ctx, roundMessage(s.t.Issue, *s.round, task.Title, outcome), s.round.Key, outcome)
	if err != nil {
		return s.fail(ctx, outcome, "", err)
	}
	return s.roundPushed(ctx, pr, sha, outcome)
}

// roundPushed ends a passing round whose commit sha is on the branch (an
// empty sha: it changed nothing): a reply in each of the review's threads,
// the round in the pull request's body, and the status comment. A nil
// outcome is a round resumed after its push, whose log is lost.
func (s *roundRun) roundPushed(ctx context.Context, pr PullRequest, sha string, o *repo.Outcome) (Result, error) {
	s.round.Commit = sha
	res := Result{State: work.Done, PullRequest: pr.Number, PullRequestURL: pr.URL, Outcome: o, HeadSHA: sha, StatusComment: s.comment}
	if o != nil {
		s.round.Log = o.Log
	}
	if s.comment != 0 {
		s.round.StatusURL = fmt.Sprintf("%s#issuecomment-%d", pr.URL, s.comment)
	}
	if err := s.replyInThreads(ctx); err != nil {
		return s.fail(ctx, o, "", err)
	}
	if err := s.logRound(ctx, pr, *s.round); err != nil {
		return s.fail(ctx, o, "", err)
	}
	s.log.Info("round pushed", "pull_request", pr.Number, "round", s.round.Number, "commit", sha)
	if err := s.finish(ctx, res, LabelDone); err != nil {
		return res, err
	}
	res.StatusComment = s.comment
	return res, nil
}

// capsulePull reads the round's pull request and checks that it is
// Capsule's for the issue (see work.PullRequest.CapsulesFor). why says
// what is wrong, when something is.
func (s *roundRun) capsulePull(ctx context.Context) (pr PullRequest, why string, err error) {
	pr, err = s.gh.PullRequest(ctx, s.t.PullRequest)
	if errors.Is(err, ErrNotFound) {
		return pr, fmt.Sprintf("pull request #%d does not exist", s.t.PullRequest), nil
	}
	if err != nil {
		return pr, "", githubError(fmt.Sprintf("read pull request #%d", s.t.PullRequest), err)
	}
	return pr, pr.Identity(s.t.PullRequest).CapsulesFor(work.Repository{FullName: s.t.Owner + "/" + s.t.Repo}, s.t.Issue), nil
}

// roundTask is the loop's task: the issue, then the review, the command's
// request or the failing checks. A command with no request of its own
// ("/capsule retry") asks for the issue again, on the branch.
func (s *roundRun) roundTask(ctx context.Context, checks []round.Check) (round.Task, error) {
	is, err := s.gh.Issue(ctx, s.t.Issue)
	if err != nil {
		return round.Task{}, githubError("read the issue", err)
	}
	issue := round.Issue{Number: s.t.Issue, Title: is.Title, Body: is.Body}
	n := s.round.Number
	switch s.t.Trigger {
	case work.TriggerCI:
		return round.CITask(issue, n, checks), nil
	case work.TriggerReview:
		rv, err := s.review(ctx)
		if err != nil {
			return round.Task{}, err
		}
		return round.ReviewTask(issue, n, rv), nil
	case work.TriggerCommand:
		if s.key.Kind != work.RoundComment {
			return round.Task{}, fmt.Errorf("round %q is not a comment's", s.t.Round)
		}
		request, err := s.command(ctx)
		if err != nil || request == "" {
			return round.Task{Title: is.Title, Body: is.Body}, err
		}
		return round.ReviewTask(issue, n, round.Review{Author: s.t.Sender, Summary: request}), nil
	}
	return round.Task{}, fmt.Errorf("trigger %q is not a round's", s.t.Trigger)
}

// review reads the review the round answers, as the task shows it.
func (s *roundRun) review(ctx context.Context) (round.Review, error) {
	rv, err := s.readReview(ctx)
	if err != nil {
		return round.Review{}, err
	}
	out := round.Review{Author: rv.Author, Summary: rv.Body}
	for _, c := range rv.Comments {
		out.Comments = append(out.Comments, round.Comment{Author: c.Author, Path: c.Path, Line: c.Line, DiffHunk: c.DiffHunk, Body: c.Body})
	}
	return out, nil
}

// readReview reads the review the round's key names, once a job.
func (s *roundRun) readReview(ctx context.Context) (Review, error) {
	if s.readOnce != nil {
		return *s.readOnce, nil
	}
	if s.key.Kind != work.RoundReview {
		return Review{}, fmt.Errorf("round %q does not name a review", s.t.Round)
	}
	rv, err := s.gh.Review(ctx, s.t.PullRequest, s.key.Number())
	if err != nil {
		return Review{}, githubError("read review "+s.key.ID, err)
	}
	s.readOnce = &rv
	return rv, nil
}

// command reads the request of the `/capsule` comment the round answers;
// a comment since edited so that it no longer asks is an error.
func (s *roundRun) command(ctx context.Context) (string, error) {
	n := s.key.Number()
	comments, err := s.gh.Comments(ctx, s.t.PullRequest)
	if err != nil {
		return "", githubError("list the pull request's comments", err)
	}
	for _, c := range comments {
		if c.ID != n {
			continue
		}
		request, ok := work.PullRequestCommand(c.Body)
		if !ok {
			return "", fmt.Errorf("comment %d no longer starts with %s", n, work.CommandPrefix)
		}
		return request, nil
	}
	return "", fmt.Errorf("comment %d: %w", n, ErrNotFound)
}

// replyInThreads answers once each thread of the review a round
// answered, of the comments its task showed (round.MaxComments): a thread
// that holds the round's marker already is left alone.
func (s *roundRun) replyInThreads(ctx context.Context) error {
	if s.t.Trigger != work.TriggerReview {
		return nil
	}
	rv, err := s.readReview(ctx)
	if err != nil {
		return err
	}
	var threads []int64
	for _, c := range rv.Comments[:min(len(rv.Comments), round.MaxComments)] { // those the task showed
		root := c.ID
		if c.InReplyTo != 0 {
			root = c.InReplyTo
		}
		if !slices.Contains(threads, root) {
			threads = append(threads, root)
		}
	}
	if len(threads) == 0 {
		return nil
	}
	all, err := s.gh.ReviewComments(ctx, s.t.PullRequest)
	if err != nil {
		return githubError("list the review comments", err)
	}
	marker := report.RoundMarker(s.round.Key)
	body := report.RoundReply(*s.round)
	for _, root := range threads {
		if answered(all, root, marker) {
			continue
		}
		if _, err := s.gh.ReplyToReviewComment(ctx, s.t.PullRequest, root, body); err != nil {
			return githubError(fmt.Sprintf("reply to review comment %d", root), err)
		}
	}
	return nil
}

// answered reports whether thread root holds a reply with marker.
func answered(comments []ReviewComment, root int64, marker string) bool {
	for _, c := range comments {
		if c.InReplyTo == root && strings.HasPrefix(c.Body, marker) {
			return true
		}
	}
	return false
}

// noteMarker opens a note Capsule writes once on a pull request.
const noteMarker = "<!-- capsule:note -->"

// noteOnce writes body on the round's pull request, unless a comment
// there says it already.
func (s *session) noteOnce(ctx context.Context, body string) error {
	comments, err := s.gh.Comments(ctx, s.t.PullRequest)
	if err != nil {
		return githubError("list the pull request's comments", err)
	}
	for _, c := range comments {
		if c.Body == body {
			return nil
		}
	}
	if _, err := s.gh.CreateComment(ctx, s.t.PullRequest, body); err != nil {
		return githubError("comment on the pull request", err)
	}
	return nil
}

// roundCause says what asked for t's round.
func roundCause(t work.Request) string {
	switch t.Trigger {
	case work.TriggerReview:
		return "the review by @" + t.Sender
	case work.TriggerCommand:
		return "`/capsule` by @" + t.Sender
	case work.TriggerCI:
		return "the failing checks"
	case work.TriggerLabel:
		return "the label added to the issue again"
	}
	return "`/capsule retry` on the issue"
}

// senderIsBot reports whether t's sender is a bot (see work.Account.Bot),
// by its login: a Request keeps no type.
func senderIsBot(t work.Request) bool { return work.Account{Login: t.Sender}.Bot() }

// skip ends a round that is not Capsule's to run. It writes nothing,
// but for ending the round's status comment when one says it is queued
// (see Runner.Announce).
func (s *roundRun) skip(ctx context.Context, why string) (Result, error) {
	s.log.Info("job skipped", "reason", why)
	res := Result{State: work.Skipped, Reason: why}
	c, err := findStatusComment(ctx, s.gh, s.t)
	if err != nil || c.ID == 0 {
		return res, nil
	}
	s.comment, res.StatusComment = c.ID, c.ID
	if err := s.status(ctx, report.Status{State: work.Skipped, Reason: why}); err != nil {
		s.log.Warn("end the status comment", "err", err)
	}
	return res, nil
}

// skipOrFail skips for why, or fails on err.
func (s *roundRun) skipOrFail(ctx context.Context, why string, err error) (Result, error) {
	if err != nil {
		return Result{State: work.Failed, Reason: err.Error()}, err
	}
	return s.skip(ctx, why)
}
