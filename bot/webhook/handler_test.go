package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/capsulehq/capsule/bot/work"
)

var testSecret = []byte("It's a Secret to Everybody")

// sink records what it accepts, and fails with err when set.
type sink struct {
	mu  sync.Mutex
	got []work.Request
	err error
}

func (s *sink) Accept(ctx context.Context, r work.Request) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.got = append(s.got, r)
	return nil
}

func (s *sink) requests() []work.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]work.Request(nil), s.got...)
}

// harness is a handler with everything it reports recorded.
type harness struct {
	h             http.Handler
	sink          *sink
	installations []InstallationEvent
	observed      [][2]string
	logs          bytes.Buffer
}

func newHarness(t *testing.T, change func(*Options)) *harness {
	t.Helper()
	hs := &harness{sink: &sink{}}
	o := Options{
		Secret:         testSecret,
		Sink:           hs.sink,
		OnInstallation: func(ev InstallationEvent) { hs.installations = append(hs.installations, ev) },
		Logger:         slog.New(slog.NewJSONHandler(&hs.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Observe:        func(event, outcome string) { hs.observed = append(hs.observed, [2]string{event, outcome}) },
	}
	if change != nil {
		change(&o)
	}
	h, err := NewHandler(o)
	if err != nil {
		t.Fatalf("NewHandler: %v", err)
	}
	hs.h = h
	return hs
}

const testDelivery = "72d3162e-cc78-11e3-81ab-4c9367dc0958"

// post builds a delivery of body signed with the test's secret.
func post(event string, body []byte) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("User-Agent", "GitHub-Hookshot/044aadd")
	r.Header.Set("X-GitHub-Delivery", testDelivery)
	if event != "" {
		r.Header.Set("X-GitHub-Event", event)
	}
	r.Header.Set("X-Hub-Signature-256", sign(testSecret, body))
	return r
}

// serve sends r and returns the answer's code and decoded body.
func (hs *harness) serve(t *testing.T, r *http.Request) (int, response) {
	t.Helper()
	w := httptest.NewRecorder()
	hs.h.ServeHTTP(w, r)
	var resp response
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
		t.Fatalf("answer %d %q is not JSON: %v", w.Code, w.Body, err)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if len(hs.observed) != 1 {
		t.Errorf("Observe called %d times, want once: %v", len(hs.observed), hs.observed)
	}
	hs.checkLogs(t)
	return w.Code, resp
}

// checkLogs checks that every log line names the delivery and the event.
func (hs *harness) checkLogs(t *testing.T) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(hs.logs.String()), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Error("nothing logged")
	}
	for _, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		for _, key := range []string{"delivery", "event"} {
			if _, ok := rec[key]; !ok {
				t.Errorf("log line without %q: %s", key, line)
			}
		}
	}
}

// logged returns the first log line's attributes.
func (hs *harness) logged(t *testing.T) map[string]any {
	t.Helper()
	line, _, _ := strings.Cut(hs.logs.String(), "\n")
	var rec map[string]any
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatalf("log line %q: %v", line, err)
	}
	return rec
}

// TestHandlerFixtures sends every example payload, signed, unchanged.
func TestHandlerFixtures(t *testing.T) {
	type want struct {
		code   int
		status string
	}
	var (
		pong         = want{http.StatusOK, "pong"}
		installation = want{http.StatusOK, "ok"}
		queued       = want{http.StatusAccepted, "queued"}
		ignored      = want{http.StatusAccepted, "ignored"}
		// The examples name no installation: work they ask for is refused.
		refused = want{http.StatusUnprocessableEntity, "refused"}
	)
	wants := map[string]want{
		"installation__created.payload.json":                                  installation,
		"installation__created.with-requester.payload.json":                   installation,
		"installation__deleted.payload.json":                                  installation,
		"installation_repositories__added.payload.json":                       installation,
		"installation_repositories__removed.payload.json":                     installation,
		"issue_comment__created.1.payload.json":                               ignored, // not a command
		"issue_comment__created.payload.json":                                 ignored,
		"issue_comment__created.with-installation.payload.json":               ignored,
		"issue_comment__created.with-organization.payload.json":               ignored,
		"issue_comment__edited.payload.json":                                  ignored,
		"issues__labeled.payload.json":                                        refused,
		"issues__labeled.with-organization.payload.json":                      refused,
		"issues__opened.payload.json":                                         ignored,
		"issues__opened.with-empty-body.payload.json":                         ignored,
		"issues__unlabeled.payload.json":                                      ignored,
		"ping__payload.json":                                                  pong,
		"ping__with-app_id.payload.json":                                      pong,
		"ping__with-organization.payload.json":                                pong,
		"pull_request__closed.payload.json":                                   ignored,
		"pull_request__labeled.payload.json":                                  ignored,
		"pull_request__opened.payload.json":                                   ignored,
		"pull_request_review_comment__created.payload.json":                   ignored,
		"pull_request_review_comment__created.with-organization.payload.json": ignored,
		"push__1.payload.json":                                                ignored,
		"pull_request__synchronize.payload.json":                              ignored,
		"pull_request_review__submitted.payload.json":                         ignored,
		"pull_request_review__submitted.with-organization.payload.json":       ignored,
		"pull_request_review_thread__resolved.payload.json":                   ignored,
		"check_run__completed.payload.json":                                   ignored,
		"check_suite__completed.payload.json":                                 ignored,
		"check_suite__completed.1.payload.json":                               ignored,
		"workflow_job__completed.failure.with-organization.payload.json":      ignored,
		"workflow_run__completed.payload.json":                                ignored,
		"workflow_run__completed.with-pull-requests.payload.json":             ignored,
	}
	names := fixtureNames(t)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			w, ok := wants[name]
			if !ok {
				t.Fatalf("no expectation for the new payload %s: add one", name)
			}
			hs := newHarness(t, nil)
			event := eventOf(name)
			code, resp := hs.serve(t, post(event, fixture(t, name)))
			if code != w.code || resp.Status != w.status {
				t.Fatalf("answer %d %+v, want %d %q", code, resp, w.code, w.status)
			}
			if got := hs.observed[0]; got[0] != event || got[1] != outcomeFor(w.status) {
				t.Errorf("observed %v, want [%s %s]", got, event, outcomeFor(w.status))
			}
			if w.status == "ignored" && resp.Reason == "" {
				t.Error("ignored without a reason")
			}
			if n := len(hs.sink.requests()); (w == queued) != (n == 1) {
				t.Errorf("sink got %d requests", n)
			}
			if (w == installation) != (len(hs.installations) == 1) {
				t.Errorf("OnInstallation called %d times", len(hs.installations))
			}
		})
	}
	if len(names) != len(wants) {
		t.Errorf("%d payloads, %d expectations", len(names), len(wants))
	}
}

func outcomeFor(status string) string {
	switch status {
	case "ok":
		return outcomeInstallation
	case "queued":
		return outcomeAccepted
	}
	return status
}

// TestHandlerRequests checks the Request stored for a delivery against the
// payload's own values.
func TestHandlerRequests(t *testing.T) {
	tests := []struct {
		name, file string
		edit       func(map[string]any)
		trigger    work.Trigger
	}{
		{"labeled", "issues__labeled.payload.json", withInstallation(4242), work.TriggerLabel},
		{"retry", "issue_comment__created.payload.json", all(withInstallation(4242), withComment("/capsule retry")), work.TriggerRetry},
		{"retry with a reason", "issue_comment__created.with-installation.payload.json",
			withComment("/Capsule Retry\r\n\r\nThe sandbox ran out of disk."), work.TriggerRetry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload := fixture(t, tt.file)
			if tt.edit != nil {
				payload = edit(t, payload, tt.edit)
			}
			event := eventOf(tt.file)
			hs := newHarness(t, nil)
			code, resp := hs.serve(t, post(event, payload))
			if code != http.StatusAccepted || resp != (response{Status: "queued"}) {
				t.Fatalf("answer %d %+v, want 202 queued", code, resp)
			}
			got := hs.sink.requests()
			want := wantRequest(t, event, tt.trigger, payload)
			want.Delivery = testDelivery
			if len(got) != 1 || got[0] != want {
				t.Fatalf("sink got %+v\nwant %+v", got, want)
			}
			rec := hs.logged(t)
			if rec["repo"] != want.Owner+"/"+want.Repo || rec["issue"] != float64(want.Issue) || rec["delivery"] != testDelivery || rec["event"] != event {
				t.Errorf("log line %v lacks the delivery's attributes", rec)
			}
		})
	}
}

// TestHandlerRefusesWithoutInstallation: work asked for by a delivery
// that names no installation is refused with 422 and a reason, and
// nothing is stored.
func TestHandlerRefusesWithoutInstallation(t *testing.T) {
	tests := []struct {
		name, file string
		edit       func(map[string]any)
	}{
		{"labeled", "issues__labeled.payload.json", withLabel("capsule")},
		{"retry", "issue_comment__created.payload.json", withComment("/capsule retry")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			event := eventOf(tt.file)
			hs := newHarness(t, nil)
			code, resp := hs.serve(t, post(event, edit(t, fixture(t, tt.file), tt.edit)))
			if code != http.StatusUnprocessableEntity || resp.Status != "refused" || !strings.Contains(resp.Reason, "names no installation") {
				t.Fatalf("answer %d %+v, want 422 refused for want of an installation", code, resp)
			}
			if got := hs.sink.requests(); len(got) != 0 {
				t.Errorf("sink got %+v", got)
			}
			if got := hs.observed[0]; got[0] != event || got[1] != outcomeRefused {
				t.Errorf("observed %v, want [%s %s]", got, event, outcomeRefused)
			}
		})
	}
}

// TestHandlerIgnored sends payloads changed so that they start no work.
func TestHandlerIgnored(t *testing.T) {
	tests := []struct {
		name, file string
		edit       func(map[string]any)
		reason     string
	}{
		{"bot sender", "issues__labeled.payload.json", all(withInstallation(1), withSenderType("Bot")), "sender is a bot"},
		{"status label", "issues__labeled.payload.json", all(withInstallation(1), withLabel("capsule:done")), "status label"},
		{"comment without command", "issue_comment__created.payload.json", withInstallation(1), "not a command"},
		{"edited comment", "issue_comment__edited.payload.json", all(withInstallation(1), withComment("/capsule retry")), `"edited"`},
		{"comment on a pull request", "issue_comment__created.with-installation.payload.json",
			all(withComment("LGTM /capsule"), withPullRequest), "not a command"},

		{"bot command", "issue_comment__created.payload.json", all(withComment("/capsule retry"), withSenderType("Bot")), "sender is a bot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			event := eventOf(tt.file)
			hs := newHarness(t, nil)
			code, resp := hs.serve(t, post(event, edit(t, fixture(t, tt.file), tt.edit)))
			if code != http.StatusAccepted || resp.Status != "ignored" || !strings.Contains(resp.Reason, tt.reason) {
				t.Fatalf("answer %d %+v, want 202 ignored %q", code, resp, tt.reason)
			}
			if got := hs.sink.requests(); len(got) != 0 {
				t.Errorf("sink got %+v", got)
			}
			// A comment on pull request #1 names it, and no issue.
			if rec := hs.logged(t); rec["repo"] != "Codertocat/Hello-World" || rec["issue"] != float64(1) && rec["pull_request"] != float64(1) {
				t.Errorf("log line %v lacks repo and issue or pull request", rec)
			}
		})
	}
}

// TestHandlerRounds sends a review on Capsule's pull request to sinks
// that take it, judge it no round of theirs, and fail.
func TestHandlerRounds(t *testing.T) {
	review := edit(t, fixture(t, "pull_request_review__submitted.payload.json"), withHeadRef("capsule/issue-7"))
	tests := []struct {
		name    string
		sinkErr error
		code    int
		want    response
		outcome string
	}{
		{"queued", nil, http.StatusAccepted, response{Status: "queued"}, outcomeAccepted},
		{"ignored by the sink", fmt.Errorf("check: %w", &Ignored{Reason: "not Capsule's pull request"}),
			http.StatusAccepted, response{Status: "ignored", Reason: "not Capsule's pull request"}, outcomeIgnored},
		{"sink fails", errors.New("disk full"), http.StatusServiceUnavailable,
			response{Status: "error", Reason: "could not queue the delivery"}, outcomeError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := newHarness(t, func(o *Options) { o.Sink.(*sink).err = tt.sinkErr })
			code, resp := hs.serve(t, post("pull_request_review", review))
			if code != tt.code || resp != tt.want {
				t.Fatalf("answer %d %+v, want %d %+v", code, resp, tt.code, tt.want)
			}
			if got := hs.observed[0]; got != [2]string{"pull_request_review", tt.outcome} {
				t.Errorf("observed %v", got)
			}
			rec := hs.logged(t)
			if rec["repo"] != "Codertocat/Hello-World" || rec["issue"] != float64(7) || rec["pull_request"] != float64(2) {
				t.Errorf("log line %v lacks repo, issue and pull request", rec)
			}
			if tt.sinkErr == nil {
				got := hs.sink.requests()
				if len(got) != 1 || got[0].Round != "review:237895671" || got[0].Delivery != testDelivery {
					t.Errorf("sink got %+v", got)
				}
			}
		})
	}
}

func TestHandlerInstallation(t *testing.T) {
	hs := newHarness(t, nil)
	code, _ := hs.serve(t, post("installation_repositories", fixture(t, "installation_repositories__added.payload.json")))
	if code != http.StatusOK {
		t.Fatalf("answer %d, want 200", code)
	}
	want := InstallationEvent{
		Delivery: testDelivery, Event: "installation_repositories", Action: "added",
		Installation: 957387, Account: "Codertocat", ReposAdded: []string{"Codertocat/Space"},
	}
	if len(hs.installations) != 1 || !equalInstallation(hs.installations[0], want) {
		t.Errorf("OnInstallation got %+v, want %+v", hs.installations, want)
	}

	t.Run("without OnInstallation", func(t *testing.T) {
		hs := newHarness(t, func(o *Options) { o.OnInstallation = nil })
		if code, _ := hs.serve(t, post("installation", fixture(t, "installation__deleted.payload.json"))); code != http.StatusOK {
			t.Errorf("answer %d, want 200", code)
		}
	})
}

func TestHandlerPingLogsApp(t *testing.T) {
	hs := newHarness(t, nil)
	hs.serve(t, post("ping", fixture(t, "ping__with-app_id.payload.json")))
	if rec := hs.logged(t); rec["app_id"] != float64(29310) || rec["hook_id"] != float64(109948940) {
		t.Errorf("ping log line %v lacks app_id and hook_id", rec)
	}
}

// TestHandlerRefused covers the deliveries answered with an error.
func TestHandlerRefused(t *testing.T) {
	labeled := edit(t, fixture(t, "issues__labeled.payload.json"), withInstallation(1))
	sha1Sig := func(body []byte) string {
		m := hmac.New(sha1.New, testSecret)
		m.Write(body)
		return "sha1=" + hex.EncodeToString(m.Sum(nil))
	}
	tests := []struct {
		name     string
		options  func(*Options)
		request  func() *http.Request
		code     int
		outcome  string
		verified bool // whether Observe should see the event
	}{
		{
			name:    "GET",
			request: func() *http.Request { r := post("issues", labeled); r.Method = http.MethodGet; return r },
			code:    http.StatusMethodNotAllowed, outcome: outcomeMethod,
		},
		{
			name: "signature missing",
			request: func() *http.Request {
				r := post("issues", labeled)
				r.Header.Del("X-Hub-Signature-256")
				return r
			},
			code: http.StatusUnauthorized, outcome: outcomeBadSignature,
		},
		{
			name: "sha1 signature only",
			request: func() *http.Request {
				r := post("issues", labeled)
				r.Header.Del("X-Hub-Signature-256")
				r.Header.Set("X-Hub-Signature", sha1Sig(labeled))
				return r
			},
			code: http.StatusUnauthorized, outcome: outcomeBadSignature,
		},
		{
			name: "sha1 signature in the sha256 header",
			request: func() *http.Request {
				r := post("issues", labeled)
				r.Header.Set("X-Hub-Signature-256", sha1Sig(labeled))
				return r
			},
			code: http.StatusUnauthorized, outcome: outcomeBadSignature,
		},
		{
			name: "signature without prefix",
			request: func() *http.Request {
				r := post("issues", labeled)
				r.Header.Set("X-Hub-Signature-256", strings.TrimPrefix(sign(testSecret, labeled), "sha256="))
				return r
			},
			code: http.StatusUnauthorized, outcome: outcomeBadSignature,
		},
		{
			name: "signature repeated",
			request: func() *http.Request {
				r := post("issues", labeled)
				r.Header.Add("X-Hub-Signature-256", sign(testSecret, labeled))
				return r
			},
			code: http.StatusUnauthorized, outcome: outcomeBadSignature,
		},
		{
			name: "body changed after signing",
			request: func() *http.Request {
				r := post("issues", labeled)
				tampered := bytes.Replace(labeled, []byte(`"bug"`), []byte(`"BUG"`), 1)
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(tampered)), int64(len(tampered))
				return r
			},
			code: http.StatusUnauthorized, outcome: outcomeBadSignature,
		},
		{
			name:    "wrong secret",
			options: func(o *Options) { o.Secret = []byte("another secret") },
			request: func() *http.Request { return post("issues", labeled) },
			code:    http.StatusUnauthorized, outcome: outcomeBadSignature,
		},
		{
			name:    "body over the limit by Content-Length",
			options: func(o *Options) { o.MaxBodyBytes = 1024 },
			request: func() *http.Request { return post("issues", labeled) },
			code:    http.StatusRequestEntityTooLarge, outcome: outcomeTooLarge,
		},
		{
			name:    "body over the limit without Content-Length",
			options: func(o *Options) { o.MaxBodyBytes = int64(len(labeled)) - 1 },
			request: func() *http.Request {
				r := post("issues", labeled)
				r.ContentLength = -1
				return r
			},
			code: http.StatusRequestEntityTooLarge, outcome: outcomeTooLarge,
		},
		{
			name:    "body over the limit with a false Content-Length",
			options: func(o *Options) { o.MaxBodyBytes = 1024 },
			request: func() *http.Request { r := post("issues", labeled); r.ContentLength = 10; return r },
			code:    http.StatusRequestEntityTooLarge, outcome: outcomeTooLarge,
		},
		{
			name:    "malformed JSON",
			request: func() *http.Request { return post("issues", labeled[:len(labeled)-2]) },
			code:    http.StatusBadRequest, outcome: outcomeMalformed, verified: true,
		},
		{
			name:    "malformed installation",
			request: func() *http.Request { return post("installation", []byte(`{"action":"deleted"}`)) },
			code:    http.StatusBadRequest, outcome: outcomeMalformed, verified: true,
		},
		{
			name:    "malformed ping",
			request: func() *http.Request { return post("ping", []byte(`{"hook":`)) },
			code:    http.StatusBadRequest, outcome: outcomeMalformed, verified: true,
		},
		{
			name:    "event header missing",
			request: func() *http.Request { return post("", labeled) },
			code:    http.StatusBadRequest, outcome: outcomeMalformed, verified: true,
		},
		{
			name: "delivery header missing",
			request: func() *http.Request {
				r := post("issues", labeled)
				r.Header.Del("X-GitHub-Delivery")
				return r
			},
			code: http.StatusBadRequest, outcome: outcomeMalformed, verified: true,
		},
		{
			name:    "sink fails",
			options: func(o *Options) { o.Sink = &sink{err: errors.New("database is locked")} },
			request: func() *http.Request { return post("issues", labeled) },
			code:    http.StatusServiceUnavailable, outcome: outcomeError, verified: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := newHarness(t, tt.options)
			r := tt.request()
			code, resp := hs.serve(t, r)
			if code != tt.code || resp.Status != "error" || resp.Reason == "" {
				t.Fatalf("answer %d %+v, want %d with status error and a reason", code, resp, tt.code)
			}
			if got := hs.sink.requests(); len(got) != 0 {
				t.Errorf("sink got %+v", got)
			}
			if len(hs.installations) != 0 {
				t.Errorf("OnInstallation got %+v", hs.installations)
			}
			wantEvent := ""
			if tt.verified {
				wantEvent = r.Header.Get("X-GitHub-Event")
			}
			if got := hs.observed[0]; got != [2]string{wantEvent, tt.outcome} {
				t.Errorf("observed %v, want [%s %s]", got, wantEvent, tt.outcome)
			}
		})
	}
}

func TestHandlerMethodAllow(t *testing.T) {
	hs := newHarness(t, nil)
	for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodHead} {
		w := httptest.NewRecorder()
		hs.h.ServeHTTP(w, httptest.NewRequest(method, "/webhook", nil))
		if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != http.MethodPost {
			t.Errorf("%s: answer %d, Allow %q; want 405 and Allow POST", method, w.Code, w.Header().Get("Allow"))
		}
	}
}

// TestHandlerLimitBoundary checks that a body of exactly MaxBodyBytes is
// read, with and without a Content-Length.
func TestHandlerLimitBoundary(t *testing.T) {
	labeled := edit(t, fixture(t, "issues__labeled.payload.json"), withInstallation(1))
	for _, length := range []int64{int64(len(labeled)), -1} {
		hs := newHarness(t, func(o *Options) { o.MaxBodyBytes = int64(len(labeled)) })
		r := post("issues", labeled)
		r.ContentLength = length
		if code, resp := hs.serve(t, r); code != http.StatusAccepted || resp.Status != "queued" {
			t.Errorf("Content-Length %d: answer %d %+v, want 202 queued", length, code, resp)
		}
	}
}

// TestHandlerOverHTTP sends deliveries through a real server, the oversized
// one chunked so that only reading it can tell its size.
func TestHandlerOverHTTP(t *testing.T) {
	labeled := fixture(t, "issues__labeled.payload.json")
	hs := newHarness(t, func(o *Options) { o.MaxBodyBytes = 4096 })
	srv := httptest.NewServer(hs.h)
	defer srv.Close()

	send := func(body io.Reader) int {
		t.Helper()
		r, err := http.NewRequest(http.MethodPost, srv.URL+"/webhook", body)
		if err != nil {
			t.Fatal(err)
		}
		r.Header = post("issues", labeled).Header
		resp, err := srv.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	// io.MultiReader hides the length, so the request is chunked.
	if code := send(io.MultiReader(bytes.NewReader(labeled))); code != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked oversized body: answer %d, want 413", code)
	}
	if code := send(bytes.NewReader(labeled)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: answer %d, want 413", code)
	}
	if got := hs.sink.requests(); len(got) != 0 {
		t.Errorf("sink got %+v", got)
	}
}

// TestHandlerSinkContext checks that Accept runs with a context that
// survives the client going away.
func TestHandlerSinkContext(t *testing.T) {
	hs := newHarness(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := post("issues", edit(t, fixture(t, "issues__labeled.payload.json"), withInstallation(1))).WithContext(ctx)
	if code, _ := hs.serve(t, r); code != http.StatusAccepted || len(hs.sink.requests()) != 1 {
		t.Errorf("answer %d with the client gone, sink got %d requests; want 202 and 1", code, len(hs.sink.requests()))
	}
}

func TestNewHandlerOptions(t *testing.T) {
	tests := []struct {
		name string
		o    Options
	}{
		{"no secret", Options{Sink: &sink{}}},
		{"empty secret", Options{Secret: []byte{}, Sink: &sink{}}},
		{"no sink", Options{Secret: testSecret}},
		{"negative limit", Options{Secret: testSecret, Sink: &sink{}, MaxBodyBytes: -1}},
	}
	for _, tt := range tests {
		if h, err := NewHandler(tt.o); err == nil || h != nil {
			t.Errorf("%s: NewHandler = %v, %v; want an error", tt.name, h, err)
		}
	}
	h, err := NewHandler(Options{Secret: testSecret, Sink: &sink{}})
	if err != nil {
		t.Fatal(err)
	}
	if hh := h.(*handler); hh.max != DefaultMaxBodyBytes || hh.log == nil {
		t.Errorf("defaults: max %d, logger %v", hh.max, hh.log)
	}
}

// TestHandlerSecretCopied checks that changing the caller's slice after
// NewHandler does not change the secret.
func TestHandlerSecretCopied(t *testing.T) {
	secret := append([]byte(nil), testSecret...)
	hs := newHarness(t, func(o *Options) { o.Secret = secret })
	secret[0] ^= 0xff
	if code, _ := hs.serve(t, post("ping", fixture(t, "ping__payload.json"))); code != http.StatusOK {
		t.Errorf("answer %d, want 200", code)
	}
}

type nopSink struct{}

func (nopSink) Accept(context.Context, work.Request) error { return nil }

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

// BenchmarkHandler sends a signed issues.labeled delivery through the
// handler into a Sink that does nothing.
func BenchmarkHandler(b *testing.B) {
	payload := edit(b, fixture(b, "issues__labeled.payload.json"), withInstallation(42))
	h, err := NewHandler(Options{Secret: testSecret, Sink: nopSink{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	r := post("issues", payload)
	body := bytes.NewReader(payload)
	w := &discardWriter{h: http.Header{}}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		body.Reset(payload)
		r.Body = io.NopCloser(body)
		clear(w.h)
		h.ServeHTTP(w, r)
	}
}
