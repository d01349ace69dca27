// Package work is the App's vocabulary for a job, shared by the packages
// that receive, store, run and report it: the Request a delivery makes,
// its Trigger, and the State a job is in. It depends on nothing, so the
// renderer does not link the database nor the store the webhook parser.
package work

import "fmt"

// Trigger says what a delivery asks for. It is the one name of a job's
// trigger: the store keeps it and the job acts on it.
type Trigger string

const (
	// TriggerLabel is an issues delivery with action "labeled".
	TriggerLabel Trigger = "label"
	// TriggerRetry is an issue_comment delivery with action "created"
	// whose comment is the retry command.
	TriggerRetry Trigger = "retry"
	// TriggerReview is a round on Capsule's pull request that answers a
	// review: a pull_request_review "submitted" or a
	// pull_request_review_comment "created" delivery. The deliveries of
	// one review make one round (their Round is the review's).
	TriggerReview Trigger = "review"
	// TriggerCommand is a round on Capsule's pull request asked for by an
	// issue_comment on the pull request that starts with "/capsule".
	TriggerCommand Trigger = "command"
	// TriggerCI is a round on Capsule's pull request that answers its
	// failing checks: a workflow_run or check_suite "completed" delivery
	// whose conclusion is a failure, on the branch's head.
	TriggerCI Trigger = "ci"
)

// Round reports whether t starts a round on a pull request Capsule opened
// rather than work on an issue.
func (t Trigger) Round() bool {
	return t == TriggerReview || t == TriggerCommand || t == TriggerCI
}

// Request is a delivery that may start work on an issue: what the store
// queues as a job and what the job works on. The issue's text is not
// part of it: the job reads the issue when it runs, as it is then.
type Request struct {
	Delivery     string // X-GitHub-Delivery (for the Action: GITHUB_RUN_ID-based, caller sets it)
	Event        string // "issues" or "issue_comment"
	Trigger      Trigger
	Installation int64  // 0 when the payload has none
	Owner, Repo  string // the repository's owner login and name
	// Issue is the issue number. For a round it is the issue the pull
	// request answers (the N of its capsule/issue-N branch), so that an
	// issue's jobs and its pull request's rounds share one slot.
	Issue  int
	Sender string // login of the user who caused the delivery
	Label  string // for TriggerLabel: the label added

	// The fields below are set for rounds only (Trigger.Round).

	// PullRequest is the number of the pull request the round works on.
	PullRequest int
	// Round names what the round answers, unique within its pull request:
	// "review:<review id>", "comment:<comment id>", "run:<workflow run
	// id>" or "suite:<check suite id>" (a RoundKey's String, read back
	// with ParseRoundKey). Deliveries with the same Round make one round.
	Round string
	// HeadSHA is the pull request's head commit the delivery saw (for CI
	// rounds, the commit the failing checks ran on).
	HeadSHA string
}

// Name is owner/repo#issue.
func (r Request) Name() string { return fmt.Sprintf("%s/%s#%d", r.Owner, r.Repo, r.Issue) }

// State is where a job is in its life: Queued, then Running, then one of
// the terminal states Done, Failed or Skipped. It is the one name of a
// job's state: the store keeps it, and the job's result and its status
// comment say it.
type State string

// The states of a job.
const (
	// Queued jobs wait for a worker to claim them.
	Queued State = "queued"
	// Running jobs are held by a worker under a lease.
	Running State = "running"
	// Done jobs ran to completion.
	Done State = "done"
	// Failed jobs ran, or were abandoned, without completing.
	Failed State = "failed"
	// Skipped jobs were admitted by the webhook but a worker decided not to
	// run them (wrong label, sender without permission).
	Skipped State = "skipped"
)

// States lists every State, in the order a job moves through them.
var States = []State{Queued, Running, Done, Failed, Skipped}

// Active reports whether a job in state s still has work ahead of it, that
// is, whether it is Queued or Running.
func (s State) Active() bool { return s == Queued || s == Running }

// Terminal reports whether s is one of the states a job ends in.
func (s State) Terminal() bool { return s == Done || s == Failed || s == Skipped }
