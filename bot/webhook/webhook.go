// Package webhook receives GitHub's webhook deliveries for the Capsule
// GitHub App. NewHandler returns the handler for POST /webhook: it checks
// each delivery's HMAC-SHA256 signature, turns the deliveries that ask for
// work (a label added to an issue, a "/capsule retry" comment, a review or
// a "/capsule" comment on Capsule's pull request, its failing checks) into
// a Request and stores it through a Sink before acknowledging it.
//
// Parse is shared with the GitHub Action, which reads the same payloads from
// GITHUB_EVENT_PATH (with the event name from GITHUB_EVENT_NAME).
package webhook

import (
	"context"
	"errors"

	"github.com/capsulehq/capsule/bot/work"
)

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
//
// Accept may refuse a Request for what only it knows (a round on a pull
// request it has no record of, say) with an *Ignored error: the delivery
// is then answered as one Parse ignored, and not redelivered.
type Sink interface {
	Accept(ctx context.Context, r work.Request) error
}

// InstallationEvent is an installation or installation_repositories
// delivery.
type InstallationEvent struct {
	Delivery, Event, Action  string
	Installation             int64
	Account                  string   // login of the account the App is installed on
	ReposAdded, ReposRemoved []string // full names ("owner/name")
}
