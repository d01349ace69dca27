package job

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/round"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
)

// runRound runs a round on Capsule's pull request (t.Trigger.Round()): it
// checks the pull request is Capsule's and who asked, runs the loop on
// the branch's head with the review, the command or the failing checks as
// the task, and when the tests pass pushes one commit over the head (no
// force), replies in the review's threads and logs the round in the pull
// request's body. A failing round pushes nothing and says so in its
// status comment on the pull request, with its log.
func (s *session) runRound(ctx context.Context) (Result, error) {
	if s.t.Trigger != work.TriggerCI && isBot(s.t.Sender) {
		return s.skip(ctx, s.t.Sender+" is a bot: bots never start rounds")
	}
	pr, why, err := s.capsulePull(ctx)
	if err != nil || why != "" {
		return s.skipOrFail(ctx, why, err)
	}
	if s.t.Trigger != work.TriggerCI {
		if res, done, err := s.admit(ctx); done {
			return res, err
		}
	}
	if _, err := s.repository(ctx); err != nil {
		return Result{State: work.Failed, Reason: err.Error()}, err
	}
	cfg, cfgErr := s.config(ctx)
	if GitHubDown(cfgErr) {
		return Result{State: work.Failed, Reason: cfgErr.Error()}, cfgErr
	}
	branch := work.Branch(s.t.Issue)
	head, err := s.gh.BranchHead(ctx, branch)
	if err != nil {
		return Result{State: work.Failed, Reason: err.Error()}, githubError("read the branch "+branch, err)
	}
	r := newRound(pr.Body, s.t.Round, roundCause(s.t))
	s.round = &r
	message, err := s.gh.CommitMessage(ctx, head)
	if err != nil {
		return Result{State: work.Failed, Reason: err.Error()}, githubError("read the branch's head "+head, err)
	}
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
			return Result{State: work.Failed, Reason: err.Error()}, err
		}
		return s.failConfig(ctx, cfgErr)
	}
	var checks []round.Check
	if s.t.Trigger == work.TriggerCI {
		var skip string
		if checks, skip, err = s.ciRound(ctx); err != nil {
			return Result{State: work.Failed, Reason: err.Error()}, err
		}
		if skip != "" {
			if err := s.noteOnce(ctx, noteMarker+"\n"+strings.TrimSpace(skip)+"\n"); err != nil {
				return Result{State: work.Failed, Reason: skip}, err
			}
			return s.skip(ctx, skip)
		}
	}
	if err := s.begin(ctx); err != nil {
		return Result{State: work.Failed, Reason: err.Error()}, err
	}
	s.parent = head // the round works on the branch, and commits over its head
	return s.solveRound(ctx, pr, cfg, checks)
}

// solveRound fetches the branch's head, runs the loop on the round's task
// and pushes what passes.
func (s *session) solveRound(ctx context.Context, pr PullRequest, cfg repoconfig.Config, checks []round.Check) (Result, error) {
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
	id := fmt.Sprintf("issue-%d", s.t.Issue)
	if s.round != nil {
		id += fmt.Sprintf("-round-%d", s.round.Number)
	}
	outcome, err := s.runner.Solver.Solve(ctx, repo.Task{
		ID: id, Dir: dir, Config: cfg, Title: task.Title, Body: task.Body,
		Progress: func(e pipeline.Event) { s.progress(ctx, e) },
		Logger:   s.log,
	})
	if err != nil && ModelDown(err) && s.hooks.WaitForModel != nil && ctx.Err() == nil && s.hooks.WaitForModel(err) {
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

// roundPushed ends a passing round whose commit sha is on the branch (an
// empty sha: it changed nothing): a reply in each of the review's threads,
// the round in the pull request's body, and the status comment. A nil
// outcome is a round resumed after its push, whose log is lost.
func (s *session) roundPushed(ctx context.Context, pr PullRequest, sha string, o *repo.Outcome) (Result, error) {
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

// logRound adds r to the pull request's body, unless it is there, and
// takes back a "not passing" title and warning when r passed. The body
// is read again first: someone may have edited it while the loop ran.
func (s *session) logRound(ctx context.Context, pr PullRequest, r report.Round) error {
	pr, err := s.gh.PullRequest(ctx, pr.Number)
	if err != nil {
		return githubError("read the pull request", err)
	}
	title, body := report.RoundTitle(pr.Title, r), report.AddRound(pr.Body, r, 0)
	if title == pr.Title && body == pr.Body {
		return nil
	}
	if _, err := s.gh.EditPullRequest(ctx, pr.Number, title, body); err != nil {
		return githubError("log the round in the pull request", err)
	}
	return nil
}

// pushOnBranch commits o's change over the branch's head (s.parent) with
// message and the trailers of round key, and moves the branch to it,
// never forcing: when someone pushed meanwhile, it pushes nothing and
// says so. It returns "" when o changes nothing.
func (s *session) pushOnBranch(ctx context.Context, message, key string, o *repo.Outcome) (string, error) {
	if len(o.Edits) == 0 {
		return "", nil
	}
	sha, err := s.commit(ctx, withTrailers(message, s.t.Issue, key), o)
	if err != nil {
		return "", err
	}
	branch := work.Branch(s.t.Issue)
	if err := s.gh.AdvanceBranch(ctx, branch, sha); errors.Is(err, ErrNotFastForward) {
		return "", fmt.Errorf("someone pushed to %s while Capsule worked, and Capsule never force-pushes, so it pushed nothing: "+
			"comment `/capsule` with the request on the pull request to run again on the new head (%w)", branch, err)
	} else if err != nil {
		return "", githubError("move the branch "+branch, err)
	}
	return sha, nil
}

// roundMessage says what a round's commit is.
func roundMessage(issue int, r report.Round, title string, o *repo.Outcome) string {
	l := o.Log
	return fmt.Sprintf("Round %d for #%d: %s\n\nMade by Capsule for %s; the tests pass (`%s`) at attempt %d after %d model calls.\n",
		r.Number, issue, oneLine(title), oneLine(strings.NewReplacer("`", "", "@", "").Replace(r.Cause)), l.TestCommand, l.AttemptIndex, l.ModelCalls())
}

// capsulePull reads the round's pull request and checks that it is
// Capsule's for the issue: open, from the issue's branch of this very
// repository (never a fork's branch of the same name), opened by a bot.
// why says what is wrong, when something is.
func (s *session) capsulePull(ctx context.Context) (pr PullRequest, why string, err error) {
	pr, err = s.gh.PullRequest(ctx, s.t.PullRequest)
	if errors.Is(err, ErrNotFound) {
		return pr, fmt.Sprintf("pull request #%d does not exist", s.t.PullRequest), nil
	}
	if err != nil {
		return pr, "", githubError(fmt.Sprintf("read pull request #%d", s.t.PullRequest), err)
	}
	repo := s.t.Owner + "/" + s.t.Repo
	switch {
	case pr.State != "open":
		why = "it is " + pr.State
	case pr.HeadRef != work.Branch(s.t.Issue):
		why = fmt.Sprintf("its branch is %q, not %q", pr.HeadRef, work.Branch(s.t.Issue))
	case !strings.EqualFold(pr.HeadRepo, repo) || !strings.EqualFold(pr.BaseRepo, repo):
		why = fmt.Sprintf("its branch is in %s, not in %s", pr.HeadRepo, repo)
	case pr.AuthorType != "Bot":
		why = fmt.Sprintf("%s opened it, not Capsule", pr.Author)
	default:
		return pr, "", nil
	}
	return pr, fmt.Sprintf("pull request #%d is not Capsule's for #%d: %s", s.t.PullRequest, s.t.Issue, why), nil
}

// roundTask is the loop's task: the issue, then the review, the command's
// request or the failing checks. A command with no request of its own
// ("/capsule retry") asks for the issue again, on the branch.
func (s *session) roundTask(ctx context.Context, checks []round.Check) (round.Task, error) {
	is, err := s.gh.Issue(ctx, s.t.Issue)
	if err != nil {
		return round.Task{}, githubError("read the issue", err)
	}
	issue := round.Issue{Number: s.t.Issue, Title: is.Title, Body: is.Body}
	kind, id, _ := strings.Cut(s.t.Round, ":")
	n := s.round.Number
	switch s.t.Trigger {
	case work.TriggerCI:
		return round.CITask(issue, n, checks), nil
	case work.TriggerReview:
		rv, err := s.review(ctx, id)
		if err != nil {
			return round.Task{}, err
		}
		return round.ReviewTask(issue, n, rv), nil
	case work.TriggerCommand:
		if kind != "comment" {
			return round.Task{}, fmt.Errorf("round %q is not a comment's", s.t.Round)
		}
		request, err := s.command(ctx, id)
		if err != nil || request == "" {
			return round.Task{Title: is.Title, Body: is.Body}, err
		}
		return round.ReviewTask(issue, n, round.Review{Author: s.t.Sender, Summary: request}), nil
	}
	return round.Task{}, fmt.Errorf("trigger %q is not a round's", s.t.Trigger)
}

// review reads the review the round answers, as the task shows it.
func (s *session) review(ctx context.Context, id string) (round.Review, error) {
	rv, err := s.readReview(ctx, id)
	if err != nil {
		return round.Review{}, err
	}
	out := round.Review{Author: rv.Author, Summary: rv.Body}
	for _, c := range rv.Comments {
		out.Comments = append(out.Comments, round.Comment{Author: c.Author, Path: c.Path, Line: c.Line, DiffHunk: c.DiffHunk, Body: c.Body})
	}
	return out, nil
}

// readReview reads review id of the round's pull request, once a job.
func (s *session) readReview(ctx context.Context, id string) (Review, error) {
	if s.roundReview != nil {
		return *s.roundReview, nil
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || !strings.HasPrefix(s.t.Round, "review:") {
		return Review{}, fmt.Errorf("round %q does not name a review", s.t.Round)
	}
	rv, err := s.gh.Review(ctx, s.t.PullRequest, n)
	if err != nil {
		return Review{}, githubError("read review "+id, err)
	}
	s.roundReview = &rv
	return rv, nil
}

// command reads the request of the `/capsule` comment the round answers;
// a comment since edited so that it no longer asks is an error.
func (s *session) command(ctx context.Context, id string) (string, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return "", fmt.Errorf("round %q does not name a comment", s.t.Round)
	}
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
func (s *session) replyInThreads(ctx context.Context) error {
	if s.t.Trigger != work.TriggerReview {
		return nil
	}
	_, id, _ := strings.Cut(s.t.Round, ":")
	rv, err := s.readReview(ctx, id)
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

// newRound is round key on a pull request with body: numbered as the
// body logs it, else as the next.
func newRound(body, key, cause string) report.Round {
	n, ok := report.RoundNumber(body, key)
	if !ok {
		n = report.NextRound(body)
	}
	return report.Round{Number: n, Key: key, Cause: cause}
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

// isBot reports whether a login is a bot's: an App's bot user or
// github-actions[bot]. Capsule itself is one.
func isBot(login string) bool { return strings.HasSuffix(strings.ToLower(login), "[bot]") }

// skip ends a round that is not Capsule's to run. It writes nothing,
// but for ending the round's status comment when one says it is queued
// (see Runner.Announce).
func (s *session) skip(ctx context.Context, why string) (Result, error) {
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
func (s *session) skipOrFail(ctx context.Context, why string, err error) (Result, error) {
	if err != nil {
		return Result{State: work.Failed, Reason: err.Error()}, err
	}
	return s.skip(ctx, why)
}
