package httpretry

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/internal/httpretry/retrytest"
)

// fixedNow is the clock of the tests.
var fixedNow = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// serverErrors retries 5xx after the server's Retry-After, else the
// backoff; 429 waits what Retry-After says, so that MaxWait applies.
func serverErrors(a Attempt) Decision {
	if a.Err != nil || a.Response.StatusCode < 429 {
		return Decision{}
	}
	if d, ok := RetryAfter(a.Response.Header, a.Now); ok {
		return After(d, "Retry-After")
	}
	return Backoff("server error")
}

// testTransport has a fixed clock, no jitter, recorded waits and a
// timeout per attempt.
func testTransport(rec *retrytest.Sleeps) *Transport {
	return &Transport{
		Policy: Policy{Service: "test", Retry: serverErrors, MaxRetries: 5, BaseDelay: time.Second, MaxDelay: 8 * time.Second,
			AttemptTimeout: time.Minute}, // the bodies are read after RoundTrip returns, within the attempt's time
		Logger: slog.New(slog.DiscardHandler),
		Now:    func() time.Time { return fixedNow },
		Sleep:  rec.Sleep,
		Rand:   func() float64 { return 1 },
	}
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"absent", nil, 0, false},
		{"seconds", map[string]string{"Retry-After": "1"}, time.Second, true},
		{"spaces", map[string]string{"Retry-After": " 7 "}, 7 * time.Second, true},
		{"zero", map[string]string{"Retry-After": "0"}, 0, true},
		{"a day", map[string]string{"Retry-After": "86400"}, 24 * time.Hour, true},
		{"overflowing", map[string]string{"Retry-After": "99999999999999999"}, maxRetryAfter, true},
		{"date", map[string]string{"Retry-After": fixedNow.Add(5 * time.Second).Format(http.TimeFormat)}, 5 * time.Second, true},
		{"past date", map[string]string{"Retry-After": fixedNow.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"milliseconds", map[string]string{"Retry-After-Ms": "250"}, 250 * time.Millisecond, true},
		{"milliseconds win", map[string]string{"Retry-After-Ms": "1500.5", "Retry-After": "2"}, 1500500 * time.Microsecond, true},
		{"infinite milliseconds", map[string]string{"Retry-After-Ms": "Inf"}, maxRetryAfter, true},
		{"NaN milliseconds", map[string]string{"Retry-After-Ms": "NaN", "Retry-After": "2"}, 2 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := RetryAfter(h, fixedNow)
			if got != tt.want || ok != tt.ok {
				t.Errorf("RetryAfter(%v) = %v, %v; want %v, %v", tt.header, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	tr := &Transport{Policy: Policy{BaseDelay: time.Second, MaxDelay: 8 * time.Second}}
	for retry, full := range []time.Duration{1, 2, 4, 8, 8, 8} {
		full *= time.Second
		for _, r := range []float64{0, 0.5, math.Nextafter(1, 0), 1} {
			tr.Rand = func() float64 { return r }
			if got, want := tr.backoff(retry), full/2+time.Duration(r*float64(full/2)); got != want {
				t.Errorf("retry %d, random %v: %v, want %v", retry, r, got, want)
			}
		}
		tr.Rand = nil // the real source
		for range 100 {
			if got := tr.backoff(retry); got < full/2 || got > full {
				t.Fatalf("retry %d: %v outside [%v, %v]", retry, got, full/2, full)
			}
		}
	}
	if got := tr.backoff(1000); got > 8*time.Second {
		t.Errorf("the 1000th retry waits %v: the doubling overflowed its cap", got)
	}
}

func TestTransportRetries(t *testing.T) {
	tests := []struct {
		name       string
		replies    []retrytest.Reply
		maxRetries int
		retry      func(Attempt) Decision
		wantStatus int
		wantWaits  []time.Duration
	}{
		{"ok at once", []retrytest.Reply{{Status: 200}}, 5, serverErrors, 200, nil},
		{"backoff doubles", []retrytest.Reply{{Status: 502}, {Status: 503}, {Status: 200}}, 5, serverErrors, 200, []time.Duration{time.Second, 2 * time.Second}},
		{"the server's wait", []retrytest.Reply{{Status: 429, Header: map[string]string{"Retry-After": "9"}}, {Status: 200}}, 5, serverErrors, 200, []time.Duration{9 * time.Second}},
		{"not retried", []retrytest.Reply{{Status: 404}, {Status: 200}}, 5, serverErrors, 404, nil},
		{"gives up returning the last response", []retrytest.Reply{{Status: 502, Body: "last"}}, 2, serverErrors, 502, []time.Duration{time.Second, 2 * time.Second}},
		{"no retries", []retrytest.Reply{{Status: 502}, {Status: 200}}, 0, serverErrors, 502, nil},
		{"no policy", []retrytest.Reply{{Status: 502}, {Status: 200}}, 5, nil, 502, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := retrytest.NewServer(t, tt.replies...)
			var rec retrytest.Sleeps
			tr := testTransport(&rec)
			tr.Policy.MaxRetries, tr.Policy.Retry = tt.maxRetries, tt.retry
			req, _ := http.NewRequest("GET", srv.URL+"/x", nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			n := len(srv.Requests())
			if resp.StatusCode != tt.wantStatus || !slices.Equal(rec.Got(), tt.wantWaits) || n != len(tt.wantWaits)+1 {
				t.Errorf("status %d after %d requests and waits %v; want %d after waits %v", resp.StatusCode, n, rec.Got(), tt.wantStatus, tt.wantWaits)
			}
			got, _ := io.ReadAll(resp.Body)
			if want := srv.Last(n).Body; string(got) != want {
				t.Errorf("body %q, want %q", got, want)
			}
		})
	}
}

func TestTransportReplaysBody(t *testing.T) {
	srv := retrytest.NewServer(t, retrytest.Reply{Status: 502}, retrytest.Reply{Status: 503}, retrytest.Reply{Status: 201})
	var rec retrytest.Sleeps
	const body = `{"title":"Fix the bug","head":"capsule/issue-1","base":"main"}`
	req, _ := http.NewRequest("POST", srv.URL+"/pulls", bytes.NewReader([]byte(body)))
	resp, err := testTransport(&rec).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := srv.Requests(); resp.StatusCode != 201 || !slices.Equal(got, []string{body, body, body}) {
		t.Errorf("status %d, server got bodies %q; want 201 after the same body three times", resp.StatusCode, got)
	}
}

func TestTransportBodyWithoutGetBodyNotRetried(t *testing.T) {
	srv := retrytest.NewServer(t, retrytest.Reply{Status: 502}, retrytest.Reply{Status: 200})
	var rec retrytest.Sleeps
	req, _ := http.NewRequest("PUT", srv.URL+"/x", io.NopCloser(strings.NewReader("data")))
	req.GetBody = nil
	req.ContentLength = 4
	resp, err := testTransport(&rec).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := len(srv.Requests()); resp.StatusCode != 502 || n != 1 {
		t.Errorf("status %d after %d requests; want the 502 after 1", resp.StatusCode, n)
	}
}

// closeCounter counts the response bodies opened and closed.
type closeCounter struct {
	base           http.RoundTripper
	mu             sync.Mutex
	opened, closed int
}

func (c *closeCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if err == nil {
		c.mu.Lock()
		c.opened++
		c.mu.Unlock()
		resp.Body = &countingBody{resp.Body, c}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	c *closeCounter
}

func (b *countingBody) Close() error {
	b.c.mu.Lock()
	b.c.closed++
	b.c.mu.Unlock()
	return b.ReadCloser.Close()
}

func TestTransportClosesRetriedBodies(t *testing.T) {
	srv := retrytest.NewServer(t, retrytest.Reply{Status: 502, Body: "bad gateway"}, retrytest.Reply{Status: 403, Body: "slow down"}, retrytest.Reply{Status: 200, Body: "ok"})
	var rec retrytest.Sleeps
	tr := testTransport(&rec)
	tr.Policy.Retry = func(a Attempt) Decision {
		// A policy that reads the body to decide, as GitHub's does.
		if b := PeekBody(a.Response, 5); a.Response.StatusCode == 502 || string(b) == "slow " {
			return Backoff("peeked")
		}
		return Decision{}
	}
	cc := &closeCounter{base: http.DefaultTransport}
	tr.Base = cc
	req, _ := http.NewRequest("GET", srv.URL+"/x", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	cc.mu.Lock()
	opened, closed := cc.opened, cc.closed
	cc.mu.Unlock()
	if opened != 3 || closed != 2 {
		t.Errorf("opened %d bodies and closed %d before the caller's; want 3 and 2", opened, closed)
	}
	if got, _ := io.ReadAll(resp.Body); string(got) != "ok" {
		t.Errorf("body %q, want ok", got)
	}
	resp.Body.Close()
}

func TestPeekBody(t *testing.T) {
	resp := &http.Response{Body: io.NopCloser(strings.NewReader("0123456789"))}
	if got := PeekBody(resp, 4); string(got) != "0123" {
		t.Errorf("peeked %q, want 0123", got)
	}
	if got, _ := io.ReadAll(resp.Body); string(got) != "0123456789" {
		t.Errorf("read %q after the peek, want the whole body", got)
	}
	broken := errors.New("connection reset")
	resp = &http.Response{Body: io.NopCloser(io.MultiReader(strings.NewReader("01"), &failing{broken}))}
	PeekBody(resp, 4)
	if got, err := io.ReadAll(resp.Body); string(got) != "01" || !errors.Is(err, broken) {
		t.Errorf("read %q, %v after a failed peek; want 01 and the read's error", got, err)
	}
}

// failing is a reader that fails with err.
type failing struct{ err error }

func (f *failing) Read([]byte) (int, error) { return 0, f.err }

func TestTransportWaitTooLong(t *testing.T) {
	srv := retrytest.NewServer(t, retrytest.Reply{Status: 429, Header: map[string]string{"Retry-After": "61"}}, retrytest.Reply{Status: 200})
	var rec retrytest.Sleeps
	tr := testTransport(&rec)
	tr.Policy.MaxWait = time.Minute
	req, _ := http.NewRequest("GET", srv.URL+"/x", nil)
	resp, err := tr.RoundTrip(req)
	var wt *WaitTooLongError
	if !errors.As(err, &wt) {
		t.Fatalf("RoundTrip: got %v, %v; want a *WaitTooLongError", resp, err)
	}
	if n := len(srv.Requests()); n != 1 || len(rec.Got()) != 0 {
		t.Errorf("got %d requests and waits %v; want 1 request and no wait", n, rec.Got())
	}
	for _, want := range []string{"GET /x: 429 Retry-After: test asks to wait 1m1s", "2025-03-01T12:01:01Z", "more than the maximum wait of 1m0s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestTransportContextCancelStopsWait(t *testing.T) {
	srv := retrytest.NewServer(t, retrytest.Reply{Status: 429, Header: map[string]string{"Retry-After": "600"}})
	var rec retrytest.Sleeps
	tr := testTransport(&rec)
	tr.Sleep = nil // the real wait
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/x", nil)
	start := time.Now()
	resp, err := tr.RoundTrip(req)
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("RoundTrip took %v after cancel", elapsed)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("RoundTrip: %v, %v; want context.Canceled", resp, err)
	}
}

func TestTransportDeadlineBeforeWaitReturnsResponse(t *testing.T) {
	srv := retrytest.NewServer(t, retrytest.Reply{Status: 429, Header: map[string]string{"Retry-After": "600"}}, retrytest.Reply{Status: 200})
	var rec retrytest.Sleeps
	tr := testTransport(&rec)
	tr.Now = time.Now
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/x", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || len(rec.Got()) != 0 {
		t.Errorf("got %d after waits %v; want the 429 at once", resp.StatusCode, rec.Got())
	}
}

func TestTransportAttemptTimeout(t *testing.T) {
	var rec retrytest.Sleeps
	tr := testTransport(&rec)
	tr.Policy.AttemptTimeout = time.Millisecond
	tr.Policy.Retry = func(a Attempt) Decision { return Backoff("no response") }
	tr.Policy.MaxRetries = 2
	// The server never answers; only the attempt's deadline ends the wait.
	tr.Base = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		<-r.Context().Done()
		return nil, r.Context().Err()
	})
	req, _ := http.NewRequest("GET", "http://model.test/v1/models", nil)
	_, err := tr.RoundTrip(req)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no response within 1ms") {
		t.Errorf("RoundTrip() error = %v, want a deadline naming the attempt timeout", err)
	}
	if n := len(rec.Got()); n != 2 {
		t.Errorf("%d retries, want 2: each attempt has its own deadline", n)
	}
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestTransportLogsRetries(t *testing.T) {
	srv := retrytest.NewServer(t, retrytest.Reply{Status: 503}, retrytest.Reply{Status: 200})
	var rec retrytest.Sleeps
	var buf bytes.Buffer
	tr := testTransport(&rec)
	tr.Policy.BaseDelay = 3 * time.Second
	tr.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	req, _ := http.NewRequest("GET", srv.URL+"/repos/o/r/issues/1?secret=no", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	line := buf.String()
	for _, want := range []string{"level=WARN", `msg="test request failed; retrying"`, "method=GET", "path=/repos/o/r/issues/1", "reason=\"server error\"", "status=503", "wait=3s", "retry=1", "max_retries=5"} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "secret") {
		t.Errorf("log %q shows the query", line)
	}
}

func TestTransportAttemptTimeoutCoversTheBody(t *testing.T) {
	for _, tt := range []struct {
		name    string
		timeout time.Duration
		wantErr bool
	}{
		{"the body arrives in time", time.Minute, false},
		// Long enough for the headers, which must arrive in time, on a
		// busy machine; the body never does.
		{"a stalled body times out", 2 * time.Second, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				select {
				case <-release:
				case <-r.Context().Done():
				}
				io.WriteString(w, "late body")
			}))
			defer ts.Close()
			tr := &Transport{Policy: Policy{AttemptTimeout: tt.timeout}}
			req, _ := http.NewRequest("GET", ts.URL, nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if !tt.wantErr {
				close(release) // after RoundTrip returned: the body is read later
			}
			body, err := io.ReadAll(resp.Body)
			if tt.wantErr != (err != nil) || !tt.wantErr && string(body) != "late body" {
				t.Errorf("read %q, %v; want an error: %v", body, err, tt.wantErr)
			}
		})
	}
}
