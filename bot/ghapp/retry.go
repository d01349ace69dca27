package ghapp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry defaults; see RetryPolicy.
const (
	defaultMaxRetries = 5
	defaultBaseDelay  = time.Second
	defaultMaxDelay   = 60 * time.Second
	defaultMaxWait    = 15 * time.Minute

	// secondaryMinWait is GitHub's advice for a secondary rate limit
	// that names no wait: "wait for at least one minute before retrying".
	secondaryMinWait = time.Minute
	// resetMargin is added to X-RateLimit-Reset to absorb clock skew.
	resetMargin = time.Second
	// peekLimit bounds how much of a response body is read to classify
	// it or drained before it is discarded.
	peekLimit = 64 << 10
)

// RetryPolicy says how failed requests are retried. Zero fields take
// their defaults, so the zero RetryPolicy is the default policy.
type RetryPolicy struct {
	// MaxRetries is how many times a request is retried after its first
	// attempt: default 5; negative means never retry.
	MaxRetries int
	// BaseDelay is the first backoff delay: default 1s, doubled for
	// each further retry, with jitter.
	BaseDelay time.Duration
	// MaxDelay caps the backoff delay: default 60s.
	MaxDelay time.Duration
	// MaxWait is the longest wait GitHub may impose: default 15m. When a
	// Retry-After header or a rate-limit reset lies further away, the
	// request fails at once with a *WaitTooLongError.
	MaxWait time.Duration
	// Sleep waits d or until ctx is done, returning ctx's error in that
	// case. Nil means a timer honouring ctx; tests set it to record the
	// delays instead of waiting.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultRetryPolicy returns the policy used when fields are left zero:
// 5 retries, backoff from 1s up to 60s, waits of up to 15m.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxRetries: defaultMaxRetries,
		BaseDelay:  defaultBaseDelay,
		MaxDelay:   defaultMaxDelay,
		MaxWait:    defaultMaxWait,
	}
}

// withDefaults returns p with its zero fields set to the defaults.
func (p RetryPolicy) withDefaults() RetryPolicy {
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = defaultMaxRetries
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = defaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = defaultMaxDelay
	}
	if p.MaxWait <= 0 {
		p.MaxWait = defaultMaxWait
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	return p
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// WaitTooLongError reports that GitHub asked for a wait longer than
// RetryPolicy.MaxWait, so the request was given up at once.
type WaitTooLongError struct {
	Method  string
	Path    string
	Status  int           // the HTTP status GitHub answered
	Reason  string        // e.g. "primary rate limit"
	Wait    time.Duration // the wait GitHub asked for
	Until   time.Time     // when the request may be made again
	MaxWait time.Duration
}

// Error implements error.
func (e *WaitTooLongError) Error() string {
	return fmt.Sprintf("ghapp: %s %s: %d %s: GitHub asks to wait %s (until %s), more than the maximum wait of %s",
		e.Method, e.Path, e.Status, e.Reason, e.Wait.Round(time.Second),
		e.Until.UTC().Format(time.RFC3339), e.MaxWait)
}

// Transport is an http.RoundTripper that retries failed requests to the
// GitHub API. It is safe for concurrent use.
//
// A request is replay-safe when its method is GET, HEAD, OPTIONS, TRACE,
// PUT or DELETE, when it carries an Idempotency-Key or X-Idempotency-Key
// header (net/http's convention), or when it mints an installation token
// (POST .../app/installations/{id}/access_tokens, harmless to repeat).
// The rules, in order:
//
//   - A request whose body cannot be replayed (Body set, GetBody nil) is
//     never retried. Bodies are replayed with GetBody, which
//     http.NewRequest and go-github set.
//   - 403 or 429 with Retry-After: wait that many seconds (an HTTP date
//     is accepted too). This is how GitHub signals most secondary limits.
//   - 403 or 429 with X-RateLimit-Remaining: 0: primary rate limit; wait
//     until X-RateLimit-Reset (epoch seconds) plus one second.
//   - 403 or 429 whose body mentions "secondary rate limit" (or the older
//     "abuse detection"), with neither header: wait 60s, doubling with
//     each further retry, capped at MaxWait (GitHub's advice).
//   - Any other 429: exponential backoff.
//   - Any other 403, and every other 4xx: not retried.
//   - 502, 503, 504, for every method: exponential backoff (GitHub's
//     front end answered, and in almost all cases did not act). A
//     Retry-After header, when present, sets the wait instead.
//   - 500: exponential backoff for replay-safe requests only, because
//     the application may have acted before it failed.
//   - Connection errors (dial, DNS, connection refused), for every
//     method, since nothing was sent; other network errors (reset,
//     unexpected EOF, timeouts) for replay-safe requests only.
//
// Rate-limited requests (403/429) are retried for every method: GitHub
// rejected them without acting. Exponential backoff is BaseDelay
// doubled per retry, capped at MaxDelay, with "equal jitter": a delay d
// becomes a random value in [d/2, d].
//
// A wait that GitHub imposes (Retry-After, rate-limit reset) longer than
// MaxWait fails the request at once with a *WaitTooLongError. When ctx
// has a deadline that falls before a wait would end, the response is
// returned as it is rather than waiting in vain. After MaxRetries
// retries the last response is returned unchanged (go-github then turns
// it into an error), or the last network error, wrapped. Cancelling the
// request's context stops a wait at once.
//
// Every retry is logged at warn level with the method, path, status (or
// error), reason and wait. The body of a response that is retried is
// drained and closed.
//
// go-github keeps its own rate-limit state: after any response that
// reports X-RateLimit-Remaining: 0 it fails further calls in that
// category with *github.RateLimitError without sending them, so the
// Transport does not see them.
type Transport struct {
	Base   http.RoundTripper // nil means http.DefaultTransport
	Policy RetryPolicy
	Logger *slog.Logger // nil means slog.Default()

	now    func() time.Time                  // nil means time.Now; tests fix the clock
	jitter func(time.Duration) time.Duration // nil means equal jitter; tests disable it
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := t.Policy.withDefaults()
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	ctx := req.Context()
	hasBody := req.Body != nil && req.Body != http.NoBody
	if hasBody && req.GetBody == nil {
		p.MaxRetries = 0 // the body cannot be sent twice
	}
	safe := replaySafe(req)

	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			r = req.Clone(ctx)
			if hasBody {
				body, err := req.GetBody()
				if err != nil {
					return nil, fmt.Errorf("ghapp: %s %s: replaying the request body: %w", req.Method, req.URL.Path, err)
				}
				r.Body = body
			}
		}
		resp, err := base.RoundTrip(r)
		if ctx.Err() != nil || attempt >= p.MaxRetries {
			if err != nil && attempt > 0 && ctx.Err() == nil {
				err = fmt.Errorf("ghapp: giving up after %d attempts: %w", attempt+1, err)
			}
			return resp, err
		}

		d, ok := t.classify(p, r, resp, err, safe, attempt)
		if !ok {
			return resp, err
		}
		if d.imposed && d.wait > p.MaxWait {
			discard(resp)
			return nil, &WaitTooLongError{
				Method: req.Method, Path: req.URL.Path, Status: resp.StatusCode,
				Reason: d.reason, Wait: d.wait, Until: t.clock().Add(d.wait), MaxWait: p.MaxWait,
			}
		}
		if deadline, ok := ctx.Deadline(); ok && t.clock().Add(d.wait).After(deadline) {
			return resp, err // waiting would outlast the caller
		}

		attrs := []slog.Attr{
			slog.String("method", req.Method),
			slog.String("path", req.URL.Path),
			slog.String("reason", d.reason),
			slog.Duration("wait", d.wait),
			slog.Int("retry", attempt+1),
			slog.Int("max_retries", p.MaxRetries),
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", err.Error()))
		} else {
			attrs = append(attrs, slog.Int("status", resp.StatusCode))
		}
		t.logger().LogAttrs(ctx, slog.LevelWarn, "GitHub request failed; retrying", attrs...)

		discard(resp)
		if err := p.Sleep(ctx, d.wait); err != nil {
			return nil, fmt.Errorf("ghapp: %s %s: waiting to retry (%s): %w", req.Method, req.URL.Path, d.reason, err)
		}
	}
}

// decision is classify's verdict on a failed attempt.
type decision struct {
	wait    time.Duration
	reason  string
	imposed bool // the wait was set by GitHub, so MaxWait applies
}

// classify decides whether an attempt is retried and after what wait.
// It may replace resp.Body with an equivalent reader after peeking.
func (t *Transport) classify(p RetryPolicy, r *http.Request, resp *http.Response, err error, safe bool, attempt int) (decision, bool) {
	backoff := decision{wait: t.backoff(p, attempt)}
	if err != nil {
		switch {
		case isDialError(err):
			backoff.reason = "connection error"
		case safe && isNetworkError(err):
			backoff.reason = "network error"
		default:
			return decision{}, false
		}
		return backoff, true
	}

	switch code := resp.StatusCode; code {
	case http.StatusForbidden, http.StatusTooManyRequests:
		if d, ok := t.retryAfter(resp.Header); ok {
			return decision{wait: d, reason: "rate limit (Retry-After)", imposed: true}, true
		}
		if resp.Header.Get("X-RateLimit-Remaining") == "0" {
			if reset, ok := parseEpoch(resp.Header.Get("X-RateLimit-Reset")); ok {
				d := max(reset.Sub(t.clock()), 0) + resetMargin
				return decision{wait: d, reason: "primary rate limit", imposed: true}, true
			}
		}
		if isSecondaryLimit(peekBody(resp)) {
			d := secondaryMinWait
			for range attempt {
				if d >= p.MaxWait {
					break
				}
				d *= 2
			}
			return decision{wait: min(d, p.MaxWait), reason: "secondary rate limit"}, true
		}
		if code == http.StatusTooManyRequests {
			backoff.reason = "too many requests"
			return backoff, true
		}
		return decision{}, false
	case http.StatusInternalServerError:
		if !safe {
			return decision{}, false
		}
		fallthrough
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if d, ok := t.retryAfter(resp.Header); ok {
			return decision{wait: d, reason: "server error (Retry-After)", imposed: true}, true
		}
		backoff.reason = "server error"
		return backoff, true
	}
	return decision{}, false
}

// backoff returns the jittered exponential delay before retry attempt+1.
func (t *Transport) backoff(p RetryPolicy, attempt int) time.Duration {
	d := p.BaseDelay
	for range attempt {
		if d >= p.MaxDelay {
			break
		}
		d *= 2
	}
	d = min(d, p.MaxDelay)
	if t.jitter != nil {
		return t.jitter(d)
	}
	return equalJitter(d)
}

// equalJitter returns a random duration in [d/2, d].
func equalJitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// retryAfter parses a Retry-After header: seconds, or an HTTP date.
func (t *Transport) retryAfter(h http.Header) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, true
		}
		if secs > int64(365*24*time.Hour/time.Second) {
			secs = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if when, err := http.ParseTime(v); err == nil {
		return max(when.Sub(t.clock()), 0), true
	}
	return 0, false
}

// parseEpoch parses Unix seconds.
func parseEpoch(v string) (time.Time, bool) {
	secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || secs <= 0 {
		return time.Time{}, false
	}
	return time.Unix(secs, 0), true
}

func (t *Transport) clock() time.Time {
	if t.now != nil {
		return t.now()
	}
	return time.Now()
}

func (t *Transport) logger() *slog.Logger {
	if t.Logger != nil {
		return t.Logger
	}
	return slog.Default()
}

// replaySafe reports whether sending r twice does no harm.
func replaySafe(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace,
		http.MethodPut, http.MethodDelete:
		return true
	}
	if r.Header.Get("Idempotency-Key") != "" || r.Header.Get("X-Idempotency-Key") != "" {
		return true
	}
	return r.Method == http.MethodPost && isTokenPath(r.URL.Path)
}

// isTokenPath reports whether path is .../app/installations/{id}/access_tokens.
func isTokenPath(path string) bool {
	rest, ok := strings.CutSuffix(path, "/access_tokens")
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, '/')
	if i < 0 {
		return false
	}
	if _, err := strconv.ParseInt(rest[i+1:], 10, 64); err != nil {
		return false
	}
	return strings.HasSuffix(rest[:i], "/app/installations")
}

// isDialError reports whether err happened before the request was sent:
// DNS failure, connection refused, dial timeout.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// isNetworkError reports whether err is a transport failure worth
// retrying, as opposed to a malformed request.
func isNetworkError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// isSecondaryLimit reports whether a 403/429 body is GitHub's secondary
// rate limit message.
func isSecondaryLimit(body []byte) bool {
	b := bytes.ToLower(body)
	return bytes.Contains(b, []byte("secondary rate limit")) || bytes.Contains(b, []byte("abuse detection"))
}

// peekBody returns up to peekLimit bytes of resp's body and puts them
// back, so the caller still reads the whole body.
func peekBody(resp *http.Response) []byte {
	if resp.Body == nil || resp.Body == http.NoBody {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, peekLimit))
	resp.Body = &peekedBody{Reader: io.MultiReader(bytes.NewReader(b), &errReader{resp.Body, err}), Closer: resp.Body}
	return b
}

// peekedBody is a response body whose first bytes were read ahead.
type peekedBody struct {
	io.Reader
	io.Closer
}

// errReader reads r, or fails with err when the peek failed.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return e.r.Read(p)
}

// discard drains (a bounded amount of) and closes resp's body so the
// connection can be reused.
func discard(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, peekLimit))
	_ = resp.Body.Close()
}
