package webhook

import (
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/bot/work"
)

// githubActionsApp is the id of GitHub Actions' GitHub App on github.com,
// whose slug is "github-actions".
const githubActionsApp = 15368

// parseReview reads a pull_request_review delivery. A submitted review
// starts a round unless it is an approval without a body, which asks
// for nothing.
func parseReview(payload []byte) (work.Request, error) {
	var ev github.PullRequestReviewEvent
	if err := decode("pull_request_review", payload, &ev); err != nil {
		return work.Request{}, err
	}
	return reviewRound(reviewDelivery{
		event: "pull_request_review", action: ev.GetAction(), starts: "submitted",
		repo: ev.Repo, pr: ev.PullRequest, sender: ev.Sender, inst: ev.Installation,
		review: ev.Review.GetID(), reviewField: "review id",
		asksNothing: strings.EqualFold(ev.Review.GetState(), "approved") && strings.TrimSpace(ev.Review.GetBody()) == "",
	})
}

// parseReviewComment reads a pull_request_review_comment delivery. A
// created comment starts the round of the review it belongs to, so that
// a review's comments and the review itself make one round.
func parseReviewComment(payload []byte) (work.Request, error) {
	var ev github.PullRequestReviewCommentEvent
	if err := decode("pull_request_review_comment", payload, &ev); err != nil {
		return work.Request{}, err
	}
	return reviewRound(reviewDelivery{
		event: "pull_request_review_comment", action: ev.GetAction(), starts: "created",
		repo: ev.Repo, pr: ev.PullRequest, sender: ev.Sender, inst: ev.Installation,
		review: ev.Comment.GetPullRequestReviewID(), reviewField: "comment's review id",
	})
}

// reviewDelivery is what a review or review comment delivery says.
type reviewDelivery struct {
	event, action string
	starts        string // the action that starts a round
	repo          *github.Repository
	pr            *github.PullRequest
	sender        *github.User
	inst          *github.Installation
	review        int64  // the review's id
	reviewField   string // where the payload keeps it, for errors
	asksNothing   bool   // an approval without a body
}

// reviewRound turns a review or review comment delivery into the review's
// round.
func reviewRound(d reviewDelivery) (work.Request, error) {
	r, err := repoRequest(d.event, d.repo, d.sender, d.inst)
	switch {
	case d.action == "":
		return work.Request{}, malformedf(d.event, "action missing")
	case d.action != d.starts:
		return r, ignoredf("%s action %q is not handled", d.event, d.action)
	case err != nil:
		return work.Request{}, err
	case d.pr == nil:
		return work.Request{}, malformedf(d.event, "pull_request missing")
	case d.review <= 0:
		return work.Request{}, malformedf(d.event, "%s missing or invalid", d.reviewField)
	}
	if err := skipReviewer(d.sender); err != nil {
		return r, err
	}
	if d.asksNothing {
		return r, ignoredf("an approval without a body asks for nothing")
	}
	return round(r, d.repo, d.pr, work.TriggerReview, work.NewRoundKey(work.RoundReview, d.review))
}

// parseCommand makes the round a command on a pull request asks for. r
// holds the comment's repository, sender and installation, and its Issue
// is the pull request's number.
//
// The payload of a comment on a pull request does not name the pull
// request's branch, so Parse cannot tell which issue it answers: the
// Request's Issue is 0, for the caller to find (the App from its store,
// the Action from the pull request on GitHub) before acting on it.
func parseCommand(r work.Request, comment *github.IssueComment, sender *github.User) (work.Request, error) {
	r.PullRequest, r.Issue = r.Issue, 0
	if comment.GetID() <= 0 {
		return work.Request{}, malformedf("issue_comment", "comment id missing or invalid")
	}
	if err := skipReviewer(sender); err != nil {
		return r, err
	}
	if _, ok := work.PullRequestCommand(comment.GetBody()); !ok {
		return r, ignoredf("comment on a pull request is not a command")
	}
	r.Trigger, r.Round = work.TriggerCommand, work.NewRoundKey(work.RoundComment, comment.GetID()).String()
	return r, nil
}

// parseWorkflowRun reads a workflow_run delivery: a completed run that
// failed on Capsule's pull request starts a CI round.
//
// The sender is not checked: it is whoever caused the run, which for a
// run on Capsule's branch is most often Capsule itself (a bot). Whether
// the run checked Capsule's own last commit is the caller's to check
// against what it stored.
func parseWorkflowRun(payload []byte) (work.Request, error) {
	const event = "workflow_run"
	var ev github.WorkflowRunEvent
	if err := decode(event, payload, &ev); err != nil {
		return work.Request{}, err
	}
	c := failedChecks{round: work.RoundRun}
	if run := ev.WorkflowRun; run != nil {
		c.present, c.id, c.conclusion, c.headSHA, c.pulls = true, run.GetID(), run.GetConclusion(), run.GetHeadSHA(), run.PullRequests
	}
	return ciRound(event, ev.GetAction(), ev.Repo, ev.Sender, ev.Installation, c)
}

// parseCheckSuite reads a check_suite delivery: a completed suite that
// failed on Capsule's pull request starts a CI round, like a workflow
// run, and with the same sender rule.
//
// A suite of GitHub Actions' app is ignored: each workflow run has a
// check suite, so both deliveries tell of the same failure, and
// workflow_run is the one taken, because its id leads to the run's jobs
// and their logs, where the failing steps are (a suite's leads only to
// its check runs' annotations), and because it is the event a workflow
// can subscribe to, so that the App and the Action start the same round.
func parseCheckSuite(payload []byte) (work.Request, error) {
	const event = "check_suite"
	var ev github.CheckSuiteEvent
	if err := decode(event, payload, &ev); err != nil {
		return work.Request{}, err
	}
	c := failedChecks{round: work.RoundSuite}
	if suite := ev.CheckSuite; suite != nil {
		app := suite.GetApp()
		c.actions = app.GetSlug() == "github-actions" || app.GetID() == githubActionsApp
		c.present, c.id, c.conclusion, c.headSHA, c.pulls = true, suite.GetID(), suite.GetConclusion(), suite.GetHeadSHA(), suite.PullRequests
	}
	return ciRound(event, ev.GetAction(), ev.Repo, ev.Sender, ev.Installation, c)
}

// failedChecks is what a workflow run or a check suite delivery says of
// its checks.
type failedChecks struct {
	present    bool // the payload has the run or suite
	actions    bool // a check suite of GitHub Actions
	id         int64
	conclusion string
	headSHA    string
	pulls      []*github.PullRequest
	round      work.RoundKind // RoundRun or RoundSuite
}

// ciRound turns a completed workflow run or check suite into a CI round
// on the pull request among c.pulls that is Capsule's.
func ciRound(event, action string, repo *github.Repository, sender *github.User, inst *github.Installation, c failedChecks) (work.Request, error) {
	r, err := repoRequest(event, repo, sender, inst)
	switch {
	case action == "":
		return work.Request{}, malformedf(event, "action missing")
	case action != "completed":
		return r, ignoredf("%s action %q is not handled", event, action)
	case err != nil:
		return work.Request{}, err
	case !c.present:
		return work.Request{}, malformedf(event, "%s missing", event)
	case c.id <= 0:
		return work.Request{}, malformedf(event, "%s id missing or invalid", event)
	case c.headSHA == "":
		return work.Request{}, malformedf(event, "head_sha missing")
	case c.actions:
		return r, ignoredf("check suite of GitHub Actions: its workflow_run delivery starts the round")
	case c.conclusion != "failure" && c.conclusion != "timed_out":
		return r, ignoredf("%s concluded %q, not a failure", event, c.conclusion)
	}
	var pr *github.PullRequest
	for _, p := range c.pulls {
		pull := pullOf(p)
		if _, why := pull.Claim(repoOf(repo)); why == "" && pull.Base.Same(repoOf(repo)) {
			pr = p
			break
		}
	}
	if pr == nil {
		return r, ignoredf("%s is not on a pull request from a capsule/issue-N branch of the repository", event)
	}
	r, err = round(r, repo, pr, work.TriggerCI, work.NewRoundKey(c.round, c.id))
	if err == nil {
		r.HeadSHA = c.headSHA // the commit the checks ran on, which the pull request's head may have left
	}
	return r, err
}

// round makes r a round of trigger on pull request pr of repo, named
// key, when pr is Capsule's by the payload: its head is a
// capsule/issue-N branch (N becomes r.Issue) of the repository itself,
// not of a fork. Otherwise r comes back with an *Ignored error.
func round(r work.Request, repo *github.Repository, pr *github.PullRequest, trigger work.Trigger, key work.RoundKey) (work.Request, error) {
	if pr.GetNumber() <= 0 {
		return work.Request{}, malformedf(r.Event, "pull request number %d missing or invalid", pr.GetNumber())
	}
	r.PullRequest = pr.GetNumber()
	issue, why := pullOf(pr).Claim(repoOf(repo))
	if why != "" {
		return r, &Ignored{Reason: why}
	}
	r.Issue, r.Trigger, r.Round, r.HeadSHA = issue, trigger, key.String(), pr.GetHead().GetSHA()
	return r, nil
}

// pullOf is what a payload shows of a pull request.
func pullOf(pr *github.PullRequest) work.PullRequest {
	return work.PullRequest{
		Number: pr.GetNumber(), State: pr.GetState(), HeadRef: pr.GetHead().GetRef(), HeadSHA: pr.GetHead().GetSHA(),
		Head: repoOf(pr.GetHead().GetRepo()), Base: repoOf(pr.GetBase().GetRepo()),
		Author: work.Account{Login: pr.GetUser().GetLogin(), Type: pr.GetUser().GetType()},
	}
}

// repoOf is what a payload shows of a repository.
func repoOf(r *github.Repository) work.Repository {
	return work.Repository{ID: r.GetID(), FullName: r.GetFullName()}
}

// skipReviewer returns an *Ignored error for a sender whose reviews and
// comments never start a round: a bot, Capsule itself included.
func skipReviewer(sender *github.User) error {
	if isBot(sender) {
		return &Ignored{Reason: "sender is a bot"}
	}
	return nil
}
