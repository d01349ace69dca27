package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	// maxPrealloc bounds the buffer allocated up front from a
	// Content-Length, which an unsigned request may overstate.
	maxPrealloc = 64 << 10
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
)

// Options configures NewHandler.
type Options struct {
	// Secret is the webhook secret the deliveries are signed with. It is
	// required: an empty secret would let anyone queue work.
	Secret []byte
	// MaxBodyBytes caps a delivery's body; a larger one is answered 413.
	// 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
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
	// not be read, or the Sink failed) or "method". The event is empty
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
//   - a body over MaxBodyBytes (by its Content-Length or as read): 413;
//   - an X-Hub-Signature-256 header missing or not matching the body: 401;
//   - an X-GitHub-Event or X-GitHub-Delivery header missing: 400;
//   - ping: 200 "pong";
//   - installation and installation_repositories: OnInstallation is
//     called, then 200 "ok" (400 if the payload is malformed);
//   - a Request (see Parse): Sink.Accept, then 202 "queued", or 503 if
//     Accept failed, so that GitHub shows the delivery as failed and it
//     can be redelivered;
//   - an *Ignored delivery, including any other event: 202 "ignored" with
//     the reason;
//   - a malformed issues or issue_comment payload: 400.
//
// Nothing is parsed, and nothing stored, before the signature is verified.
func NewHandler(o Options) (http.Handler, error) {
	switch {
	case len(o.Secret) == 0:
		return nil, errors.New("webhook: Options.Secret is required")
	case o.Sink == nil:
		return nil, errors.New("webhook: Options.Sink is required")
	case o.MaxBodyBytes < 0:
		return nil, fmt.Errorf("webhook: Options.MaxBodyBytes is negative (%d)", o.MaxBodyBytes)
	}
	h := &handler{
		secret:         append([]byte(nil), o.Secret...),
		max:            o.MaxBodyBytes,
		sink:           o.Sink,
		onInstallation: o.OnInstallation,
		log:            o.Logger,
		observe:        o.Observe,
	}
	if h.max == 0 {
		h.max = DefaultMaxBodyBytes
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	return h, nil
}

type handler struct {
	secret         []byte
	max            int64
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
		id:    clip(r.Header.Get("X-GitHub-Delivery")),
		event: clip(r.Header.Get("X-GitHub-Event")),
	}
	d.log = h.log.With("delivery", d.id, "event", d.event)
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
	body, err := h.readBody(w, r)
	if err != nil {
		if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
			reply(w, http.StatusRequestEntityTooLarge, "error", fmt.Sprintf("body larger than %d bytes", h.max))
			d.log.Warn("webhook: body too large", "limit", h.max, "content_length", r.ContentLength)
			return outcomeTooLarge, false
		}
		reply(w, http.StatusBadRequest, "error", "could not read the body")
		d.log.Warn("webhook: could not read the body", "err", err)
		return outcomeError, false
	}
	if err := verify(h.secret, body, r.Header); err != nil {
		reply(w, http.StatusUnauthorized, "error", "invalid signature")
		d.log.Warn("webhook: delivery refused", "err", err)
		return outcomeBadSignature, false
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
	var ignored *Ignored
	switch {
	case errors.As(err, &ignored):
		reply(w, http.StatusAccepted, "ignored", ignored.Reason)
		d.log.Info("webhook: delivery ignored", "reason", ignored.Reason)
		return outcomeIgnored
	case err != nil:
		reply(w, http.StatusBadRequest, "error", "malformed payload")
		d.log.Warn("webhook: malformed payload", "err", err)
		return outcomeMalformed
	}
	req.Delivery = d.id
	// Detached from the connection: once Accept starts it should finish
	// (or fail) as a whole even if GitHub stops waiting.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), acceptTimeout)
	defer cancel()
	if err := h.sink.Accept(ctx, req); err != nil {
		reply(w, http.StatusServiceUnavailable, "error", "could not queue the delivery")
		d.log.Error("webhook: could not queue the delivery", "err", err)
		return outcomeError
	}
	reply(w, http.StatusAccepted, "queued", "")
	d.log.Info("webhook: delivery queued", "trigger", string(req.Trigger), "label", req.Label,
		"sender", req.Sender, "installation", req.Installation)
	return outcomeAccepted
}

// readBody reads at most h.max bytes of the body (h.max+1 to tell that it
// is larger), and fails with an *http.MaxBytesError when it is larger or
// its Content-Length says so.
func (h *handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > h.max {
		return nil, &http.MaxBytesError{Limit: h.max}
	}
	if r.Body == nil {
		return nil, nil
	}
	size := 512
	if r.ContentLength > 0 {
		size = int(min(r.ContentLength+1, maxPrealloc))
	}
	buf := make([]byte, 0, size)
	body := http.MaxBytesReader(w, r.Body, h.max)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("webhook: read body: %w", err)
		}
	}
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
