// Package httpretry is the retrying http.RoundTripper of Capsule's HTTP
// clients (GitHub's, the model endpoint's). The mechanism lives here:
// replaying the request body, a timeout per attempt, exponential backoff
// with jitter, honouring a wait the server asks for (Retry-After), never
// waiting past the caller's deadline, draining the bodies of retried
// responses and logging each retry. What is retried, and after what
// wait, is each client's Policy.
package httpretry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"
)

// Policy is one client's retry rules.
type Policy struct {
	// Service names the server in logs and errors, e.g. "GitHub".
	Service string
	// Retry decides whether an attempt is retried, and after what wait.
	// Nil never retries.
	Retry func(Attempt) Decision
	// MaxRetries is how many times a request is retried after its first
	// attempt; zero or less never retries.
	MaxRetries int
	// BaseDelay is the first backoff delay, doubled for each further
	// retry up to MaxDelay, then jittered into [d/2, d].
	BaseDelay, MaxDelay time.Duration
	// MaxWait, when positive, bounds the wait a server may impose
	// (After): a longer one fails the request at once with a
	// *WaitTooLongError.
	MaxWait time.Duration
	// AttemptTimeout, when positive, bounds each attempt, reading the
	// response's body included.
	AttemptTimeout time.Duration
}

// Attempt is what one round trip gave, as Policy.Retry sees it.
type Attempt struct {
	Request  *http.Request
	Response *http.Response // nil when Err is set
	Err      error
	Retry    int       // retries made before this attempt: 0 for the first
	Now      time.Time // for reading HTTP dates
}

// Decision is a Policy's verdict on an attempt; the zero Decision is not
// to retry.
type Decision struct {
	Retry   bool
	Reason  string        // why, for the log: "server error", "rate limit"
	Wait    time.Duration // the wait, unless Backoff
	Backoff bool          // wait the exponential backoff instead
}

// Backoff retries after the exponential backoff.
func Backoff(reason string) Decision {
	return Decision{Retry: true, Reason: reason, Backoff: true}
}

// After retries after the wait d, which the server asked for (or the
// policy chose); Policy.MaxWait bounds it.
func After(d time.Duration, reason string) Decision {
	return Decision{Retry: true, Reason: reason, Wait: d}
}

// WaitTooLongError reports that the server asked for a wait longer than
// Policy.MaxWait, so the request was given up at once.
type WaitTooLongError struct {
	Service string
	Method  string
	Path    string
	Status  int           // the HTTP status the server answered
	Reason  string        // e.g. "primary rate limit"
	Wait    time.Duration // the wait the server asked for
	Until   time.Time     // when the request may be made again
	MaxWait time.Duration
}

// Error implements error.
func (e *WaitTooLongError) Error() string {
	return fmt.Sprintf("%s %s: %d %s: %s asks to wait %s (until %s), more than the maximum wait of %s",
		e.Method, e.Path, e.Status, e.Reason, e.Service, e.Wait.Round(time.Second),
		e.Until.UTC().Format(time.RFC3339), e.MaxWait)
}

// Transport is an http.RoundTripper that retries requests as its Policy
// says. It is safe for concurrent use.
//
// A request whose body cannot be replayed (Body set, GetBody nil) is
// never retried; http.NewRequest sets GetBody for the usual readers.
// When the request's context has a deadline that falls before a wait
// would end, the last response (or error) is returned at once rather than
// waiting in vain; cancelling the context stops a wait. After the last
// retry the last response is returned unchanged, or the last error. The
// body of a response that is retried is drained (a bounded amount) and
// closed, so the connection is reused.
type Transport struct {
	Base   http.RoundTripper // nil means http.DefaultTransport
	Policy Policy
	Logger *slog.Logger // nil means slog.Default()

	// Now, Sleep and Rand are the clock, the wait and the random source
	// of the jitter, in [0, 1]; nil means the real ones. Tests set them.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	Rand  func() float64
}

// drainLimit bounds what is read of a retried response's body.
const drainLimit = 64 << 10

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	p := t.Policy
	ctx := req.Context()
	hasBody := req.Body != nil && req.Body != http.NoBody
	maxRetries := p.MaxRetries
	if p.Retry == nil || hasBody && req.GetBody == nil {
		maxRetries = 0
	}
	for retry := 0; ; retry++ {
		r := req
		if retry > 0 {
			r = req.Clone(ctx)
			if hasBody {
				body, err := req.GetBody()
				if err != nil {
					return nil, fmt.Errorf("%s %s: replaying the request body: %w", req.Method, req.URL.Path, err)
				}
				r.Body = body
			}
		}
		resp, err := t.attempt(r)
		if ctx.Err() != nil || retry >= maxRetries {
			return resp, err
		}
		now := t.now()
		d := p.Retry(Attempt{Request: r, Response: resp, Err: err, Retry: retry, Now: now})
		if !d.Retry {
			return resp, err
		}
		wait := d.Wait
		if d.Backoff {
			wait = t.backoff(retry)
		} else if p.MaxWait > 0 && wait > p.MaxWait {
			e := &WaitTooLongError{
				Service: p.Service, Method: req.Method, Path: req.URL.Path,
				Reason: d.Reason, Wait: wait, Until: now.Add(wait), MaxWait: p.MaxWait,
			}
			if resp != nil {
				e.Status = resp.StatusCode
			}
			discard(resp)
			return nil, e
		}
		if deadline, ok := ctx.Deadline(); ok && now.Add(wait).After(deadline) {
			return resp, err // waiting would outlast the caller
		}
		t.log(ctx, req, resp, err, d.Reason, wait, retry)
		discard(resp)
		if err := t.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("%s %s: waiting to retry (%s): %w", req.Method, req.URL.Path, d.Reason, err)
		}
	}
}

// attempt sends r once, bounded by Policy.AttemptTimeout.
func (t *Transport) attempt(r *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	limit := t.Policy.AttemptTimeout
	if limit <= 0 {
		return base.RoundTrip(r)
	}
	ctx, cancel := context.WithTimeout(r.Context(), limit)
	resp, err := base.RoundTrip(r.WithContext(ctx))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && r.Context().Err() == nil {
			err = fmt.Errorf("no response within %v: %w", limit, err)
		}
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelOnClose is a response body that ends its attempt's context once
// it is closed, so that the attempt's timeout lasts until the caller has
// read the response.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// backoff returns the jittered exponential delay before retry+1.
func (t *Transport) backoff(retry int) time.Duration {
	d, limit := t.Policy.BaseDelay, t.Policy.MaxDelay
	for range retry {
		if d >= limit {
			break
		}
		d *= 2
	}
	d = min(d, limit)
	r := rand.Float64
	if t.Rand != nil {
		r = t.Rand
	}
	// Equal jitter: half fixed, half random. Concurrent clients spread
	// out, and none waits less than half the delay.
	return d/2 + time.Duration(r()*float64(d-d/2))
}

// log records a retry at warn level.
func (t *Transport) log(ctx context.Context, req *http.Request, resp *http.Response, err error, reason string, wait time.Duration, retry int) {
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", req.URL.Path),
		slog.String("reason", reason),
		slog.Duration("wait", wait),
		slog.Int("retry", retry+1),
		slog.Int("max_retries", t.Policy.MaxRetries),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	} else {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	}
	logger := t.Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.LogAttrs(ctx, slog.LevelWarn, t.Policy.Service+" request failed; retrying", attrs...)
}

func (t *Transport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *Transport) sleep(ctx context.Context, d time.Duration) error {
	if t.Sleep != nil {
		return t.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d, or until ctx is done, returning ctx's error then.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// discard drains (a bounded amount of) and closes resp's body so the
// connection can be reused.
func discard(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
	_ = resp.Body.Close()
}
