package webhook

import (
	"cmp"
	"context"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// DefaultMaxBodyBytes is the body limit when Options.MaxBodyBytes is 0:
// GitHub caps payloads at 25 MB.
const DefaultMaxBodyBytes = 25 << 20

const (
	// acceptTimeout bounds Sink.Accept, which runs detached from the
	// client's connection.
	acceptTimeout = 10 * time.Second
	// maxHeaderLog is how much of a header value (still unverified when
	// logged) goes into a log line.
	maxHeaderLog = 128
	// MaxDeliveryID is the longest X-GitHub-Delivery accepted (GitHub's
	// are 36-character GUIDs); a longer one is answered 400. Ids are stored
	// whole, never clipped, so two long ids stay two deliveries.
	MaxDeliveryID = 256
	// retryAfter is the Retry-After, in seconds, of a 503 for a budget
	// that ran out.
	retryAfter = "5"
)

// The outcomes passed to Options.Observe.
const (
	outcomeAccepted     = "accepted"
	outcomeIgnored      = "ignored"
	outcomePong         = "pong"
	outcomeInstallation = "installation"
	outcomeBadSignature = "bad_signature"
	outcomeTooLarge     = "too_large"
	outcomeMalformed    = "malformed"
	outcomeError        = "error"
	outcomeMethod       = "method"
	outcomeOverloaded   = "overloaded"
	outcomeRefused      = "refused"
)

// Options configures NewHandler.
type Options struct {
	// Secret is the webhook secret the deliveries are signed with. It is
	// required: an empty secret would let anyone queue work.
	Secret []byte
	// MaxBodyBytes caps a delivery's body; a larger one is answered 413.
	// 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxInFlightBytes bounds the body bytes held at once across all the
	// deliveries being read; a delivery that would go past it is answered
	// 503 with a Retry-After header. Bodies past 1 MiB may use only three
	// quarters of it, leaving room for GitHub's usual small deliveries, and
	// those three quarters must hold MaxBodyBytes. A body that gives its
	// Content-Length is admitted whole or not at all. 0 means
	// DefaultMaxInFlightBytes.
	MaxInFlightBytes int64
	// Sink stores the Requests. It is required.
	Sink Sink
	// OnInstallation, if set, is called with every installation and
	// installation_repositories delivery before it is acknowledged (for
	// example to drop cached tokens when Action is "deleted" or
	// "suspend"). It runs on the request's goroutine and should be quick.
	OnInstallation func(InstallationEvent)
	// Logger receives one line per delivery; nil means slog.Default().
	Logger *slog.Logger
	// Observe, if set, is called once per delivery with its event and
	// outcome: one of "accepted", "ignored", "pong", "installation",
	// "bad_signature", "too_large", "malformed", "error" (the body could
	// not be read, or the Sink failed), "overloaded" (MaxInFlightBytes ran
	// out), "refused" (work asked for without an installation) or
	// "method". The event is empty
	// for a delivery refused before its signature was verified, because
	// its X-GitHub-Event header cannot be trusted (and would let anyone
	// add label values to a metric).
	Observe func(event, outcome string)
}

// NewHandler returns the handler for GitHub's POST /webhook deliveries.
//
// It answers with a JSON body {"status": ..., "reason": ...}, reason
// omitted when empty:
//
//   - a method other than POST: 405 with an Allow header;
//   - an X-GitHub-Delivery header longer than MaxDeliveryID bytes or
//     with control characters: 400;
//   - a body over MaxBodyBytes (by its Content-Length or as read): 413;
//   - an X-Hub-Signature-256 header missing or malformed: 401, before
//     the body is read;
//   - MaxInFlightBytes used up by the bodies being read: 503 with
//     Retry-After, and the connection closed;
//   - a body not matching its X-Hub-Signature-256: 401;
//   - an X-GitHub-Event or X-GitHub-Delivery header missing: 400;
//   - ping: 200 "pong";
//   - installation and installation_repositories: OnInstallation is
//     called, then 200 "ok" (400 if the payload is malformed);
//   - a Request (see Parse) whose payload names no installation: 422
//     "refused", nothing stored: without an installation there is no
//     token to act with (a repository's own webhook, say, rather than
//     the App's);
//   - a Request (see Parse): Sink.Accept, then 202 "queued", or 503 if
//     Accept failed, so that GitHub shows the delivery as failed and it
//     can be redelivered;
//   - an *Ignored delivery, by Parse or by Sink.Accept, including any
//     other event: 202 "ignored" with the reason;
//   - a malformed payload of an event Parse handles: 400.
//
// The body's HMAC is computed as it is read, in chunks taken from the
// shared budget; nothing is parsed, and nothing stored, before the
// signature is verified, and a body whose signature is wrong is dropped
// as soon as its end is read.
func NewHandler(o Options) (http.Handler, error) {
	switch {
	case len(o.Secret) == 0:
		return nil, errors.New("webhook: Options.Secret is required")
	case o.Sink == nil:
		return nil, errors.New("webhook: Options.Sink is required")
	case o.MaxBodyBytes < 0:
		return nil, fmt.Errorf("webhook: Options.MaxBodyBytes is negative (%d)", o.MaxBodyBytes)
	case o.MaxInFlightBytes < 0:
		return nil, fmt.Errorf("webhook: Options.MaxInFlightBytes is negative (%d)", o.MaxInFlightBytes)
	}
	h := &handler{
		secret:         append([]byte(nil), o.Secret...),
		max:            cmp.Or(o.MaxBodyBytes, DefaultMaxBodyBytes),
		sink:           o.Sink,
		onInstallation: o.OnInstallation,
		log:            o.Logger,
		observe:        o.Observe,
	}
	h.budget = newBudget(cmp.Or(o.MaxInFlightBytes, DefaultMaxInFlightBytes))
	if need := roundUp(h.max + 1); h.budget.large < need {
		return nil, fmt.Errorf("webhook: Options.MaxInFlightBytes (%d) leaves %d bytes for large bodies, less than the largest body (%d)",
			h.budget.limit, h.budget.large, h.max)
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	return h, nil
}

type handler struct {
	secret         []byte
	max            int64
	budget         *budget
	sink           Sink
	onInstallation func(InstallationEvent)
	log            *slog.Logger
	observe        func(event, outcome string)
}

// delivery is what the handler knows of the delivery it is serving.
type delivery struct {
	id, event string
	log       *slog.Logger
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d := delivery{
		id:    r.Header.Get("X-GitHub-Delivery"),
		event: clip(r.Header.Get("X-GitHub-Event")),
	}
	d.log = h.log.With("delivery", clip(d.id), "event", d.event)
	outcome, verified := h.serve(w, r, d)
	if h.observe != nil {
		event := d.event
		if !verified {
			event = ""
		}
		h.observe(event, outcome)
	}
}

// serve answers the delivery and returns its outcome, and whether its
// signature was verified.
func (h *handler) serve(w http.ResponseWriter, r *http.Request, d delivery) (outcome string, verified bool) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		reply(w, http.StatusMethodNotAllowed, "error", "only POST is allowed")
		d.log.Warn("webhook: method not allowed", "method", clip(r.Method))
		return outcomeMethod, false
	}
	if err := checkDeliveryID(d.id); err != nil {
		reply(w, http.StatusBadRequest, "error", err.Error())
		d.log.Warn("webhook: bad delivery id", "err", err)
		return outcomeMalformed, false
	}
	if r.ContentLength > h.max {
		return h.tooLarge(w, r, d), false
	}
	want, err := wantMAC(r.Header)
	if err != nil {
		return h.badSignature(w, d, err), false
	}
	var body []byte
	if r.Body != nil {
		body, err = h.budget.readBody(r.Body, r.ContentLength, h.max, h.secret, want)
	} else if !hmac.Equal(mac(h.secret, nil), want) {
		err = errBadSignature
	}
	var tooLarge *tooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return h.tooLarge(w, r, d), false
	case errors.Is(err, errBadSignature):
		return h.badSignature(w, d, err), false
	case errors.Is(err, errOverBudget):
		w.Header().Set("Retry-After", retryAfter)
		w.Header().Set("Connection", "close")
		reply(w, http.StatusServiceUnavailable, "error", "too many deliveries in flight; try again later")
		d.log.Warn("webhook: in-flight budget used up", "content_length", r.ContentLength)
		return outcomeOverloaded, false
	case err != nil:
		reply(w, http.StatusBadRequest, "error", "could not read the body")
		d.log.Warn("webhook: could not read the body", "err", err)
		return outcomeError, false
	}
	switch {
	case d.event == "":
		reply(w, http.StatusBadRequest, "error", "X-GitHub-Event header missing")
		d.log.Warn("webhook: X-GitHub-Event header missing")
		return outcomeMalformed, true
	case d.id == "":
		reply(w, http.StatusBadRequest, "error", "X-GitHub-Delivery header missing")
		d.log.Warn("webhook: X-GitHub-Delivery header missing")
		return outcomeMalformed, true
	}
	switch d.event {
	case "ping":
		return h.ping(w, d, body), true
	case "installation", "installation_repositories":
		return h.installation(w, d, body), true
	}
	return h.issue(w, r, d, body), true
}

func (h *handler) ping(w http.ResponseWriter, d delivery, body []byte) string {
	// go-github's Hook has no app_id, which a GitHub App's ping carries.
	var p struct {
		HookID int64 `json:"hook_id"`
		Hook   struct {
			Type  string `json:"type"`
			AppID int64  `json:"app_id"`
		} `json:"hook"`
	}
	if err := decode("ping", body, &p); err != nil {
		reply(w, http.StatusBadRequest, "error", "malformed payload")
		d.log.Warn("webhook: malformed payload", "err", err)
		return outcomeMalformed
	}
	reply(w, http.StatusOK, "pong", "")
	d.log.Info("webhook: ping", "hook_id", p.HookID, "hook_type", clip(p.Hook.Type), "app_id", p.Hook.AppID)
	return outcomePong
}

func (h *handler) installation(w http.ResponseWriter, d delivery, body []byte) string {
	ev, err := ParseInstallation(d.event, body)
	if err != nil {
		reply(w, http.StatusBadRequest, "error", "malformed payload")
		d.log.Warn("webhook: malformed payload", "err", err)
		return outcomeMalformed
	}
	ev.Delivery = d.id
	if h.onInstallation != nil {
		h.onInstallation(ev)
	}
	reply(w, http.StatusOK, "ok", "")
	d.log.Info("webhook: installation changed", "action", ev.Action, "installation", ev.Installation,
		"account", ev.Account, "repos_added", ev.ReposAdded, "repos_removed", ev.ReposRemoved)
	return outcomeInstallation
}

func (h *handler) issue(w http.ResponseWriter, r *http.Request, d delivery, body []byte) string {
	req, err := Parse(d.event, body)
	if req.Owner != "" {
		d.log = d.log.With("repo", req.Owner+"/"+req.Repo, "issue", req.Issue)
	}
	if req.PullRequest != 0 {
		d.log = d.log.With("pull_request", req.PullRequest)
	}
	if ignored, ok := errors.AsType[*Ignored](err); ok {
		return h.ignored(w, d, ignored)
	} else if err != nil {
		reply(w, http.StatusBadRequest, "error", "malformed payload")
		d.log.Warn("webhook: malformed payload", "err", err)
		return outcomeMalformed
	}
	if req.Installation == 0 {
		reply(w, http.StatusUnprocessableEntity, "refused", errNoInstallation)
		d.log.Warn("webhook: delivery refused", "reason", errNoInstallation)
		return outcomeRefused
	}
	req.Delivery = d.id
	// Detached from the connection: once Accept starts it should finish
	// (or fail) as a whole even if GitHub stops waiting.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), acceptTimeout)
	defer cancel()
	if err := h.sink.Accept(ctx, req); err != nil {
		if ignored, ok := errors.AsType[*Ignored](err); ok {
			return h.ignored(w, d, ignored)
		}
		reply(w, http.StatusServiceUnavailable, "error", "could not queue the delivery")
		d.log.Error("webhook: could not queue the delivery", "err", err)
		return outcomeError
	}
	reply(w, http.StatusAccepted, "queued", "")
	d.log.Info("webhook: delivery queued", "trigger", string(req.Trigger), "label", req.Label, "round", req.Round,
		"sender", req.Sender, "installation", req.Installation)
	return outcomeAccepted
}

// ignored answers a delivery that starts no work, by Parse's judgement or
// the Sink's.
func (h *handler) ignored(w http.ResponseWriter, d delivery, ignored *Ignored) string {
	reply(w, http.StatusAccepted, "ignored", ignored.Reason)
	d.log.Info("webhook: delivery ignored", "reason", ignored.Reason)
	return outcomeIgnored
}

func (h *handler) tooLarge(w http.ResponseWriter, r *http.Request, d delivery) string {
	w.Header().Set("Connection", "close")
	reply(w, http.StatusRequestEntityTooLarge, "error", fmt.Sprintf("body larger than %d bytes", h.max))
	d.log.Warn("webhook: body too large", "limit", h.max, "content_length", r.ContentLength)
	return outcomeTooLarge
}

func (h *handler) badSignature(w http.ResponseWriter, d delivery, err error) string {
	w.Header().Set("Connection", "close")
	reply(w, http.StatusUnauthorized, "error", "invalid signature")
	d.log.Warn("webhook: delivery refused", "err", err)
	return outcomeBadSignature
}

// errNoInstallation is the answer to a delivery that asks for work but
// names no installation of the App.
const errNoInstallation = "the delivery names no installation of the GitHub App, so Capsule has no token to act with: " +
	"send the App's own deliveries (a repository's or an organisation's webhook carries no installation)"

// checkDeliveryID refuses an X-GitHub-Delivery too long to be GitHub's or
// with control characters; an empty one is refused after the signature
// check.
func checkDeliveryID(id string) error {
	if len(id) > MaxDeliveryID {
		return fmt.Errorf("X-GitHub-Delivery header longer than %d bytes", MaxDeliveryID)
	}
	for _, c := range []byte(id) {
		if c < 0x20 || c == 0x7f {
			return errors.New("X-GitHub-Delivery header has control characters")
		}
	}
	return nil
}

// response is the JSON body of every answer.
type response struct {
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

func reply(w http.ResponseWriter, code int, status, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	// The client may be gone; there is nobody to tell.
	_ = json.NewEncoder(w).Encode(response{Status: status, Reason: reason})
}

// clip shortens a value that came from the request before it is logged.
func clip(s string) string {
	if len(s) > maxHeaderLog {
		return s[:maxHeaderLog] + "..."
	}
	return s
}
