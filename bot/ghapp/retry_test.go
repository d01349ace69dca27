package ghapp

import (
	"bytes"
	"context"
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
)

// fixedNow is the clock of the retry tests.
var fixedNow = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// reply is one scripted answer of a test server.
type reply struct {
	status int
	header map[string]string
	body   string
}

// script is a test server answering with its replies in turn, the last
// one forever, and recording the requests it got.
type script struct {
	t       *testing.T
	replies []reply

	mu     sync.Mutex
	bodies []string
	n      int
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("reading request body: %v", err)
	}
	s.mu.Lock()
	rep := s.replies[min(s.n, len(s.replies)-1)]
	s.n++
	s.bodies = append(s.bodies, string(body))
	s.mu.Unlock()
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	io.WriteString(w, rep.body)
}

func (s *script) requests() (int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, slices.Clone(s.bodies)
}

// recorder is a RetryPolicy.Sleep that records the delays.
type recorder struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.delays = append(r.delays, d)
	return ctx.Err()
}

func (r *recorder) got() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.delays)
}

// testTransport returns a Transport with a fixed clock, no jitter and
// recorded sleeps.
func testTransport(p RetryPolicy, rec *recorder) *Transport {
	if p.Sleep == nil {
		p.Sleep = rec.sleep
	}
	return &Transport{
		Policy: p,
		Logger: slog.New(slog.DiscardHandler),
		now:    func() time.Time { return fixedNow },
		jitter: func(d time.Duration) time.Duration { return d },
	}
}

func epoch(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

func TestTransportRules(t *testing.T) {
	s := time.Second
	tests := []struct {
		name       string
		method     string
		policy     RetryPolicy
		replies    []reply
		wantStatus int
		wantErr    bool
		wantDelays []time.Duration
	}{
		{
			name:       "502 then ok",
			replies:    []reply{{status: 502}, {status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{1 * s},
		},
		{
			name:       "503 and 504",
			replies:    []reply{{status: 503}, {status: 504}, {status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{1 * s, 2 * s},
		},
		{
			name:       "502 POST retried",
			method:     "POST",
			replies:    []reply{{status: 502}, {status: 201}},
			wantStatus: 201,
			wantDelays: []time.Duration{1 * s},
		},
		{
			name:       "500 GET retried",
			replies:    []reply{{status: 500}, {status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{1 * s},
		},
		{
			name:       "500 PUT retried",
			method:     "PUT",
			replies:    []reply{{status: 500}, {status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{1 * s},
		},
		{
			name:       "500 POST not retried",
			method:     "POST",
			replies:    []reply{{status: 500}, {status: 201}},
			wantStatus: 500,
		},
		{
			name:       "500 PATCH not retried",
			method:     "PATCH",
			replies:    []reply{{status: 500}, {status: 200}},
			wantStatus: 500,
		},
		{
			name:       "503 Retry-After honoured",
			replies:    []reply{{status: 503, header: map[string]string{"Retry-After": "9"}}, {status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{9 * s},
		},
		{
			name:       "429 Retry-After seconds",
			method:     "POST",
			replies:    []reply{{status: 429, header: map[string]string{"Retry-After": "7"}}, {status: 201}},
			wantStatus: 201,
			wantDelays: []time.Duration{7 * s},
		},
		{
			name: "429 Retry-After HTTP date",
			replies: []reply{
				{status: 429, header: map[string]string{"Retry-After": fixedNow.Add(42 * s).Format(http.TimeFormat)}},
				{status: 200},
			},
			wantStatus: 200,
			wantDelays: []time.Duration{42 * s},
		},
		{
			name:       "429 without headers backs off",
			replies:    []reply{{status: 429}, {status: 429}, {status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{1 * s, 2 * s},
		},
		{
			name: "403 primary rate limit waits for reset",
			replies: []reply{
				{status: 403, header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(fixedNow.Add(30 * s))},
					body: `{"message":"API rate limit exceeded for installation ID 7."}`},
				{status: 200},
			},
			wantStatus: 200,
			wantDelays: []time.Duration{31 * s},
		},
		{
			name:   "429 primary rate limit waits for reset, POST too",
			method: "POST",
			replies: []reply{
				{status: 429, header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(fixedNow.Add(5 * time.Minute))}},
				{status: 201},
			},
			wantStatus: 201,
			wantDelays: []time.Duration{5*time.Minute + s},
		},
		{
			name: "reset already past waits the margin only",
			replies: []reply{
				{status: 403, header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(fixedNow.Add(-10 * s))}},
				{status: 200},
			},
			wantStatus: 200,
			wantDelays: []time.Duration{1 * s},
		},
		{
			name: "403 secondary with Retry-After",
			replies: []reply{
				{status: 403, header: map[string]string{"Retry-After": "20"}, body: `{"message":"You have exceeded a secondary rate limit."}`},
				{status: 200},
			},
			wantStatus: 200,
			wantDelays: []time.Duration{20 * s},
		},
		{
			name: "403 secondary by message waits a minute, then doubles",
			replies: []reply{
				{status: 403, body: `{"message":"You have exceeded a Secondary Rate Limit and have been temporarily blocked from content creation."}`},
				{status: 403, body: `{"message":"You have exceeded a secondary rate limit"}`},
				{status: 200},
			},
			wantStatus: 200,
			wantDelays: []time.Duration{time.Minute, 2 * time.Minute},
		},
		{
			name:   "secondary fallback capped by MaxWait",
			policy: RetryPolicy{MaxWait: 90 * s},
			replies: []reply{
				{status: 403, body: `{"message":"secondary rate limit"}`},
				{status: 403, body: `{"message":"secondary rate limit"}`},
				{status: 200},
			},
			wantStatus: 200,
			wantDelays: []time.Duration{time.Minute, 90 * s},
		},
		{
			name:       "403 abuse detection (older message)",
			replies:    []reply{{status: 403, body: `{"message":"You have triggered an abuse detection mechanism."}`}, {status: 200}},
			wantStatus: 200,
			wantDelays: []time.Duration{time.Minute},
		},
		{
			name:       "403 forbidden not retried",
			replies:    []reply{{status: 403, body: `{"message":"Resource not accessible by integration"}`}, {status: 200}},
			wantStatus: 403,
		},
		{
			name:       "403 remaining not zero not retried",
			replies:    []reply{{status: 403, header: map[string]string{"X-RateLimit-Remaining": "4999", "X-RateLimit-Reset": epoch(fixedNow.Add(s))}}, {status: 200}},
			wantStatus: 403,
		},
		{name: "400 not retried", replies: []reply{{status: 400}, {status: 200}}, wantStatus: 400},
		{name: "401 not retried", replies: []reply{{status: 401}, {status: 200}}, wantStatus: 401},
		{name: "404 not retried", replies: []reply{{status: 404}, {status: 200}}, wantStatus: 404},
		{name: "422 not retried", method: "POST", replies: []reply{{status: 422}, {status: 201}}, wantStatus: 422},
		{name: "501 not retried", replies: []reply{{status: 501}, {status: 200}}, wantStatus: 501},
		{
			name:       "exponential growth capped at MaxDelay, gives up returning the last response",
			policy:     RetryPolicy{MaxRetries: 6, BaseDelay: s, MaxDelay: 5 * s},
			replies:    []reply{{status: 502, body: "last"}},
			wantStatus: 502,
			wantDelays: []time.Duration{1 * s, 2 * s, 4 * s, 5 * s, 5 * s, 5 * s},
		},
		{
			name:       "defaults: 5 retries from 1s",
			replies:    []reply{{status: 503}},
			wantStatus: 503,
			wantDelays: []time.Duration{1 * s, 2 * s, 4 * s, 8 * s, 16 * s},
		},
		{
			name:       "negative MaxRetries never retries",
			policy:     RetryPolicy{MaxRetries: -1},
			replies:    []reply{{status: 503}, {status: 200}},
			wantStatus: 503,
		},
		{
			name: "reset beyond MaxWait fails at once",
			replies: []reply{
				{status: 403, header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(fixedNow.Add(time.Hour))}},
				{status: 200},
			},
			wantErr: true,
		},
		{
			name:    "Retry-After beyond MaxWait fails at once",
			policy:  RetryPolicy{MaxWait: time.Minute},
			replies: []reply{{status: 429, header: map[string]string{"Retry-After": "61"}}, {status: 200}},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &script{t: t, replies: tt.replies}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			var rec recorder
			tr := testTransport(tt.policy, &rec)
			method := cmp(tt.method, "GET")
			var body io.Reader
			if method != "GET" {
				body = strings.NewReader(`{"x":1}`)
			}
			req, err := http.NewRequest(method, ts.URL+"/repos/o/r", body)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := tr.RoundTrip(req)
			n, _ := srv.requests()
			if tt.wantErr {
				var wt *WaitTooLongError
				if !errors.As(err, &wt) {
					t.Fatalf("RoundTrip: got %v, %v; want a *WaitTooLongError", resp, err)
				}
				if n != 1 || len(rec.got()) != 0 {
					t.Errorf("got %d requests and delays %v; want 1 request and no wait", n, rec.got())
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
			if got := rec.got(); !slices.Equal(got, tt.wantDelays) {
				t.Errorf("delays %v, want %v", got, tt.wantDelays)
			}
			if want := len(tt.wantDelays) + 1; n != want {
				t.Errorf("%d requests, want %d", n, want)
			}
			// The body of the returned response is intact, even when
			// it was peeked at.
			got, _ := io.ReadAll(resp.Body)
			if want := srv.replies[min(n-1, len(srv.replies)-1)].body; string(got) != want {
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

func TestTransportJitter(t *testing.T) {
	p := RetryPolicy{BaseDelay: time.Second, MaxDelay: 8 * time.Second}.withDefaults()
	tr := &Transport{}
	for attempt := range 6 {
		d := min(time.Second<<attempt, 8*time.Second)
		for range 100 {
			got := tr.backoff(p, attempt)
			if got < d/2 || got > d {
				t.Fatalf("attempt %d: delay %v outside [%v, %v]", attempt, got, d/2, d)
			}
		}
	}
}

func TestTransportReplaysBody(t *testing.T) {
	srv := &script{t: t, replies: []reply{{status: 502}, {status: 503}, {status: 201}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	var rec recorder
	tr := testTransport(RetryPolicy{}, &rec)
	const body = `{"title":"Fix the bug","head":"capsule/issue-1","base":"main"}`
	req, _ := http.NewRequest("POST", ts.URL+"/repos/o/r/pulls", bytes.NewReader([]byte(body)))
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("status %d, want 201", resp.StatusCode)
	}
	_, bodies := srv.requests()
	if want := []string{body, body, body}; !slices.Equal(bodies, want) {
		t.Errorf("server got bodies %q, want %q", bodies, want)
	}
}

func TestTransportBodyWithoutGetBodyNotRetried(t *testing.T) {
	srv := &script{t: t, replies: []reply{{status: 502}, {status: 200}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	var rec recorder
	tr := testTransport(RetryPolicy{}, &rec)
	req, _ := http.NewRequest("PUT", ts.URL+"/x", io.NopCloser(strings.NewReader("data")))
	req.GetBody = nil
	req.ContentLength = 4
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n, _ := srv.requests(); resp.StatusCode != 502 || n != 1 {
		t.Errorf("status %d after %d requests; want the 502 after 1", resp.StatusCode, n)
	}
}

// closeCounter counts closed response bodies.
type closeCounter struct {
	base   http.RoundTripper
	mu     sync.Mutex
	closed int
	opened int
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
	srv := &script{t: t, replies: []reply{
		{status: 502, body: "bad gateway"},
		{status: 403, body: `{"message":"secondary rate limit"}`},
		{status: 200, body: "ok"},
	}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	var rec recorder
	tr := testTransport(RetryPolicy{}, &rec)
	cc := &closeCounter{base: http.DefaultTransport}
	tr.Base = cc
	req, _ := http.NewRequest("GET", ts.URL+"/x", nil)
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
	resp.Body.Close()
}

func TestTransportContextCancelStopsWait(t *testing.T) {
	srv := &script{t: t, replies: []reply{{status: 429, header: map[string]string{"Retry-After": "600"}}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	tr := &Transport{Logger: slog.New(slog.DiscardHandler)} // real Sleep
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/x", nil)
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
	srv := &script{t: t, replies: []reply{{status: 429, header: map[string]string{"Retry-After": "600"}}, {status: 200}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	var rec recorder
	tr := testTransport(RetryPolicy{}, &rec)
	tr.now = time.Now
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/x", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || len(rec.got()) != 0 {
		t.Errorf("got %d after delays %v; want the 429 at once", resp.StatusCode, rec.got())
	}
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
			var rec recorder
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
			if got := len(rec.got()); got != tt.wantDelays {
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
	var rec recorder
	tr := testTransport(RetryPolicy{}, &rec)
	req, _ := http.NewRequest("GET", "gopher://example.com/", nil)
	if _, err := tr.RoundTrip(req); err == nil {
		t.Fatal("RoundTrip succeeded")
	}
	if len(rec.got()) != 0 {
		t.Errorf("retried a malformed request: delays %v", rec.got())
	}
}

func TestTransportLogsRetries(t *testing.T) {
	srv := &script{t: t, replies: []reply{{status: 503}, {status: 200}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	var rec recorder
	var buf bytes.Buffer
	tr := testTransport(RetryPolicy{BaseDelay: 3 * time.Second}, &rec)
	tr.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	req, _ := http.NewRequest("GET", ts.URL+"/repos/o/r/issues/1?secret=no", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	line := buf.String()
	for _, want := range []string{"level=WARN", "method=GET", "path=/repos/o/r/issues/1", "status=503", "wait=3s", "retry=1"} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "secret") {
		t.Errorf("log %q shows the query", line)
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
