package ghapp

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/internal/httpretry"
	"github.com/capsulehq/capsule/internal/httpretry/retrytest"
)

// fixedNow is the clock of the retry tests.
var fixedNow = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// testTransport returns the GitHub policy's transport with a fixed
// clock, no jitter (the full backoff delay) and recorded sleeps.
func testTransport(p RetryPolicy, rec *retrytest.Sleeps) *httpretry.Transport {
	if p.Sleep == nil {
		p.Sleep = rec.Sleep
	}
	tr := p.transport(nil, 0, slog.New(slog.DiscardHandler))
	tr.Now = func() time.Time { return fixedNow }
	tr.Rand = func() float64 { return 1 }
	return tr
}

func epoch(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// TestTransportRules checks GitHub's policy through the transport it
// builds; httpretry's tests cover the mechanism.
func TestTransportRules(t *testing.T) {
	s := time.Second
	tests := []struct {
		name       string
		method     string
		policy     RetryPolicy
		replies    []retrytest.Reply
		wantStatus int
		wantErr    bool
		wantDelays []time.Duration
	}{
		{
			name:       "502 then ok",
			replies:    []retrytest.Reply{{Status: 502}, {Status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{1 * s},
		},
		{
			name:       "503 and 504",
			replies:    []retrytest.Reply{{Status: 503}, {Status: 504}, {Status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{1 * s, 2 * s},
		},
		{
			name:       "502 POST retried",
			method:     "POST",
			replies:    []retrytest.Reply{{Status: 502}, {Status: 201}},
			wantStatus: 201,
			wantDelays: []time.Duration{1 * s},
		},
		{
			name:       "500 GET retried",
			replies:    []retrytest.Reply{{Status: 500}, {Status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{1 * s},
		},
		{
			name:       "500 PUT retried",
			method:     "PUT",
			replies:    []retrytest.Reply{{Status: 500}, {Status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{1 * s},
		},
		{
			name:       "500 POST not retried",
			method:     "POST",
			replies:    []retrytest.Reply{{Status: 500}, {Status: 201}},
			wantStatus: 500,
		},
		{
			name:       "500 PATCH not retried",
			method:     "PATCH",
			replies:    []retrytest.Reply{{Status: 500}, {Status: 200}},
			wantStatus: 500,
		},
		{
			name:       "503 Retry-After honoured",
			replies:    []retrytest.Reply{{Status: 503, Header: map[string]string{"Retry-After": "9"}}, {Status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{9 * s},
		},
		{
			name:       "429 Retry-After seconds",
			method:     "POST",
			replies:    []retrytest.Reply{{Status: 429, Header: map[string]string{"Retry-After": "7"}}, {Status: 201}},
			wantStatus: 201,
			wantDelays: []time.Duration{7 * s},
		},
		{
			name: "429 Retry-After HTTP date",
			replies: []retrytest.Reply{
				{Status: 429, Header: map[string]string{"Retry-After": fixedNow.Add(42 * s).Format(http.TimeFormat)}},
				{Status: 200},
			},
			wantStatus: 200,
			wantDelays: []time.Duration{42 * s},
		},
		{
			name:       "429 without headers backs off",
			replies:    []retrytest.Reply{{Status: 429}, {Status: 429}, {Status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{1 * s, 2 * s},
		},
		{
			name: "403 primary rate limit waits for reset",
			replies: []retrytest.Reply{
				{Status: 403, Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(fixedNow.Add(30 * s))},
					Body: `{"message":"API rate limit exceeded for installation ID 7."}`},
				{Status: 200},
			},
			wantStatus: 200,
			wantDelays: []time.Duration{31 * s},
		},
		{
			name:   "429 primary rate limit waits for reset, POST too",
			method: "POST",
			replies: []retrytest.Reply{
				{Status: 429, Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(fixedNow.Add(5 * time.Minute))}},
				{Status: 201},
			},
			wantStatus: 201,
			wantDelays: []time.Duration{5*time.Minute + s},
		},
		{
			name: "reset already past waits the margin only",
			replies: []retrytest.Reply{
				{Status: 403, Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(fixedNow.Add(-10 * s))}},
				{Status: 200},
			},
			wantStatus: 200,
			wantDelays: []time.Duration{1 * s},
		},
		{
			name: "403 secondary with Retry-After",
			replies: []retrytest.Reply{
				{Status: 403, Header: map[string]string{"Retry-After": "20"}, Body: `{"message":"You have exceeded a secondary rate limit."}`},
				{Status: 200},
			},
			wantStatus: 200,
			wantDelays: []time.Duration{20 * s},
		},
		{
			name: "403 secondary by message waits a minute, then doubles",
			replies: []retrytest.Reply{
				{Status: 403, Body: `{"message":"You have exceeded a Secondary Rate Limit and have been temporarily blocked from content creation."}`},
				{Status: 403, Body: `{"message":"You have exceeded a secondary rate limit"}`},
				{Status: 200},
			},
			wantStatus: 200,
			wantDelays: []time.Duration{time.Minute, 2 * time.Minute},
		},
		{
			name:   "secondary fallback capped by MaxWait",
			policy: RetryPolicy{MaxWait: 90 * s},
			replies: []retrytest.Reply{
				{Status: 403, Body: `{"message":"secondary rate limit"}`},
				{Status: 403, Body: `{"message":"secondary rate limit"}`},
				{Status: 200},
			},
			wantStatus: 200,
			wantDelays: []time.Duration{time.Minute, 90 * s},
		},
		{
			name:       "403 abuse detection (older message)",
			replies:    []retrytest.Reply{{Status: 403, Body: `{"message":"You have triggered an abuse detection mechanism."}`}, {Status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{time.Minute},
		},
		{
			name:       "403 forbidden not retried",
			replies:    []retrytest.Reply{{Status: 403, Body: `{"message":"Resource not accessible by integration"}`}, {Status: 200}},
			wantStatus: 403,
		},
		{
			name:       "403 remaining not zero not retried",
			replies:    []retrytest.Reply{{Status: 403, Header: map[string]string{"X-RateLimit-Remaining": "4999", "X-RateLimit-Reset": epoch(fixedNow.Add(s))}}, {Status: 200}},
			wantStatus: 403,
		},
		{name: "400 not retried", replies: []retrytest.Reply{{Status: 400}, {Status: 200}}, wantStatus: 400},
		{name: "401 not retried", replies: []retrytest.Reply{{Status: 401}, {Status: 200}}, wantStatus: 401},
		{name: "404 not retried", replies: []retrytest.Reply{{Status: 404}, {Status: 200}}, wantStatus: 404},
		{name: "422 not retried", method: "POST", replies: []retrytest.Reply{{Status: 422}, {Status: 201}}, wantStatus: 422},
		{name: "501 not retried", replies: []retrytest.Reply{{Status: 501}, {Status: 200}}, wantStatus: 501},
		{
			name:       "exponential growth capped at MaxDelay, gives up returning the last response",
			policy:     RetryPolicy{MaxRetries: 6, BaseDelay: s, MaxDelay: 5 * s},
			replies:    []retrytest.Reply{{Status: 502, Body: "last"}},
			wantStatus: 502,
			wantDelays: []time.Duration{1 * s, 2 * s, 4 * s, 5 * s, 5 * s, 5 * s},
		},
		{
			name:       "defaults: 5 retries from 1s",
			replies:    []retrytest.Reply{{Status: 503}},
			wantStatus: 503,
			wantDelays: []time.Duration{1 * s, 2 * s, 4 * s, 8 * s, 16 * s},
		},
		{
			name:       "negative MaxRetries never retries",
			policy:     RetryPolicy{MaxRetries: -1},
			replies:    []retrytest.Reply{{Status: 503}, {Status: 200}},
			wantStatus: 503,
		},
		{
			name: "reset beyond MaxWait fails at once",
			replies: []retrytest.Reply{
				{Status: 403, Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(fixedNow.Add(time.Hour))}},
				{Status: 200},
			},
			wantErr: true,
		},
		{
			name:    "Retry-After beyond MaxWait fails at once",
			policy:  RetryPolicy{MaxWait: time.Minute},
			replies: []retrytest.Reply{{Status: 429, Header: map[string]string{"Retry-After": "61"}}, {Status: 200}},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := retrytest.NewServer(t, tt.replies...)
			var rec retrytest.Sleeps
			tr := testTransport(tt.policy, &rec)
			method := cmp(tt.method, "GET")
			var body io.Reader
			if method != "GET" {
				body = strings.NewReader(`{"x":1}`)
			}
			req, err := http.NewRequest(method, srv.URL+"/repos/o/r", body)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := tr.RoundTrip(req)
			n := len(srv.Requests())
			if tt.wantErr {
				var wt *httpretry.WaitTooLongError
				if !errors.As(err, &wt) {
					t.Fatalf("RoundTrip: got %v, %v; want a *httpretry.WaitTooLongError", resp, err)
				}
				if n != 1 || len(rec.Got()) != 0 {
					t.Errorf("got %d requests and delays %v; want 1 request and no wait", n, rec.Got())
				}
				if !strings.Contains(err.Error(), "more than the maximum wait") {
					t.Errorf("error %q does not explain itself", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("RoundTrip: %v", err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if got := rec.Got(); !slices.Equal(got, tt.wantDelays) {
				t.Errorf("delays %v, want %v", got, tt.wantDelays)
			}
			if want := len(tt.wantDelays) + 1; n != want {
				t.Errorf("%d requests, want %d", n, want)
			}
			// The body of the returned response is intact, even when
			// it was peeked at.
			got, _ := io.ReadAll(resp.Body)
			if want := srv.Last(n).Body; string(got) != want {
				t.Errorf("body %q, want %q", got, want)
			}
		})
	}
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestTransportNetworkErrors(t *testing.T) {
	// A closed listener refuses connections: a dial error, retried for
	// every method since nothing was sent.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()

	// A server that reads the request and hangs up without answering:
	// retried only for replay-safe requests.
	var mu sync.Mutex
	hangups := 0
	hangup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hangups++
		mu.Unlock()
		io.Copy(io.Discard, r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}))
	defer hangup.Close()

	tests := []struct {
		name, method, url string
		wantDelays        int
		wantHangups       int
	}{
		{"refused GET", "GET", refused, 2, 0},
		{"refused POST", "POST", refused, 2, 0},
		{"hang-up GET", "GET", hangup.URL, 2, 3},
		{"hang-up POST", "POST", hangup.URL, 0, 1},
		{"hang-up token POST", "POST", hangup.URL + "/api/v3/app/installations/7/access_tokens", 2, 3},
		{"hang-up POST with Idempotency-Key", "POST", hangup.URL, 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			hangups = 0
			mu.Unlock()
			var rec retrytest.Sleeps
			tr := testTransport(RetryPolicy{MaxRetries: 2}, &rec)
			tr.Base = &http.Transport{DisableKeepAlives: true}
			req, _ := http.NewRequest(tt.method, tt.url, strings.NewReader("{}"))
			if strings.Contains(tt.name, "Idempotency-Key") {
				req.Header.Set("Idempotency-Key", "k1")
			}
			resp, err := tr.RoundTrip(req)
			if err == nil {
				resp.Body.Close()
				t.Fatal("RoundTrip succeeded")
			}
			if got := len(rec.Got()); got != tt.wantDelays {
				t.Errorf("%d retries (%v), want %d", got, err, tt.wantDelays)
			}
			mu.Lock()
			defer mu.Unlock()
			if hangups != tt.wantHangups {
				t.Errorf("server saw %d requests, want %d", hangups, tt.wantHangups)
			}
		})
	}
}

func TestTransportNonNetworkErrorNotRetried(t *testing.T) {
	var rec retrytest.Sleeps
	tr := testTransport(RetryPolicy{}, &rec)
	req, _ := http.NewRequest("GET", "gopher://example.com/", nil)
	if _, err := tr.RoundTrip(req); err == nil {
		t.Fatal("RoundTrip succeeded")
	}
	if len(rec.Got()) != 0 {
		t.Errorf("retried a malformed request: delays %v", rec.Got())
	}
}

func TestIsTokenPath(t *testing.T) {
	for path, want := range map[string]bool{
		"/app/installations/7/access_tokens":         true,
		"/api/v3/app/installations/12/access_tokens": true,
		"/app/installations/x/access_tokens":         false,
		"/app/installations/7/access_tokens/x":       false,
		"/repos/o/r/access_tokens":                   false,
		"/access_tokens":                             false,
	} {
		if got := isTokenPath(path); got != want {
			t.Errorf("isTokenPath(%q) = %v, want %v", path, got, want)
		}
	}
}
