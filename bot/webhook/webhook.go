// Package webhook receives GitHub's webhook deliveries for the Capsule
// GitHub App. NewHandler returns the handler for POST /webhook: it checks
// each delivery's HMAC-SHA256 signature, turns the deliveries that ask for
// work (a label added to an issue, a "/capsule retry" comment) into a
// Request and stores it through a Sink before acknowledging it.
//
// Parse is shared with the GitHub Action, which reads the same payloads from
// GITHUB_EVENT_PATH (with the event name from GITHUB_EVENT_NAME).
package webhook

import (
	"context"
	"errors"
	"fmt"
)

// Trigger says what a delivery asks for. It is the one name of a job's
// trigger: the store keeps it and the job acts on it.
type Trigger string

const (
	// TriggerLabel is an issues delivery with action "labeled".
	TriggerLabel Trigger = "label"
	// TriggerRetry is an issue_comment delivery with action "created"
	// whose comment is the retry command (see Parse).
	TriggerRetry Trigger = "retry"
)

// Request is a delivery that may start work on an issue: what the store
// queues as a job and what the job works on. The issue's text is not
// part of it: the job reads the issue when it runs, as it is then.
type Request struct {
	Delivery     string // X-GitHub-Delivery (for the Action: GITHUB_RUN_ID-based, caller sets it)
	Event        string // "issues" or "issue_comment"
	Trigger      Trigger
	Installation int64  // 0 when the payload has none
	Owner, Repo  string // the repository's owner login and name
	Issue        int    // the issue number
	Sender       string // login of the user who caused the delivery
	Label        string // for TriggerLabel: the label added
}

// Name is owner/repo#issue.
func (r Request) Name() string { return fmt.Sprintf("%s/%s#%d", r.Owner, r.Repo, r.Issue) }

// Ignored explains why a delivery starts no work; the handler answers 202
// with it.
type Ignored struct{ Reason string }

// Error returns the reason, prefixed so it reads as an error.
func (i *Ignored) Error() string { return "webhook: ignored: " + i.Reason }

// ErrMalformed is wrapped by the errors Parse and ParseInstallation return
// for a payload that is not valid JSON or lacks a field a Request needs.
var ErrMalformed = errors.New("webhook: malformed payload")

// Sink stores a Request durably; the handler acknowledges a delivery only
// after Accept returns nil.
//
// The handler calls Accept with a context detached from the client's
// connection (bounded by a timeout of its own), so that a delivery GitHub
// gave up waiting for is still stored or not as a whole. GitHub keeps the
// X-GitHub-Delivery id when a delivery is redelivered, so Accept should
// treat a Request whose Delivery it already holds as done.
type Sink interface {
	Accept(ctx context.Context, r Request) error
}

// InstallationEvent is an installation or installation_repositories
// delivery.
type InstallationEvent struct {
	Delivery, Event, Action  string
	Installation             int64
	Account                  string   // login of the account the App is installed on
	ReposAdded, ReposRemoved []string // full names ("owner/name")
}
