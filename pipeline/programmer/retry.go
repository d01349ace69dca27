package programmer

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/capsulehq/capsule/internal/httpbody"
)

// Backoff between retries: exponential from baseDelay, capped at maxDelay,
// with jitter; a server's Retry-After is honoured up to maxRetryAfter.
const (
	baseDelay     = 500 * time.Millisecond
	maxDelay      = 30 * time.Second
	maxRetryAfter = 60 * time.Second
	// maxDrain bounds the error body read to reuse a connection.
	maxDrain = 64 << 10
)

// clock is the time source of the retry loop; tests replace it.
type clock interface {
	Now() time.Time
	// Sleep waits for d, or returns ctx.Err() once ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryTransport retries requests that failed with a transient error:
// 408, 429, 5xx or no response at all. Working below go-openai lets it read
// Retry-After, which go-openai's errors do not carry.
type retryTransport struct {
	next           http.RoundTripper
	maxRetries     int
	attemptTimeout time.Duration
	clock          clock
	jitter         func() float64 // in [0, 1)
	log            *slog.Logger
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		resp, err := t.attempt(req, body)
		if attempt == t.maxRetries || ctx.Err() != nil || !retryable(resp, err) {
			return resp, err
		}
		wait := t.delay(attempt, resp)
		args := []any{"url", req.URL.Redacted(), "attempt", attempt + 1, "wait", wait}
		if resp != nil {
			args = append(args, "status", resp.StatusCode)
			drain(resp.Body)
		} else {
			args = append(args, "err", err)
		}
		t.log.WarnContext(ctx, "model endpoint request failed; retrying", args...)
		if err := t.clock.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// attempt sends one copy of req, bounded by the attempt timeout.
func (t *retryTransport) attempt(req *http.Request, body []byte) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.attemptTimeout)
	r := req.Clone(ctx)
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && req.Context().Err() == nil {
			err = fmt.Errorf("no response within %v: %w", t.attemptTimeout, err)
		}
		cancel()
		return nil, err
	}
	resp.Body = httpbody.CancelOnClose(resp.Body, cancel)
	return resp, nil
}

// delay is how long to wait before retry attempt+1.
func (t *retryTransport) delay(attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := retryAfter(resp.Header, t.clock.Now()); ok {
			return d
		}
	}
	d := maxDelay
	if attempt < 16 {
		d = min(baseDelay<<attempt, maxDelay)
	}
	// Equal jitter: half fixed, half random. Concurrent calls spread out,
	// and none waits less than half the delay.
	return d/2 + time.Duration(t.jitter()*float64(d/2))
}

// retryAfter reads the server's requested wait from Retry-After (seconds or
// an HTTP date) or OpenAI's Retry-After-Ms, capped at maxRetryAfter.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 {
		return seconds(ms / 1000), true
	}
	v := h.Get("Retry-After")
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return seconds(float64(s)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return min(max(at.Sub(now), 0), maxRetryAfter), true
	}
	return 0, false
}

// seconds converts a non-negative wait, capped at maxRetryAfter.
func seconds(s float64) time.Duration {
	return time.Duration(min(s, maxRetryAfter.Seconds()) * float64(time.Second))
}

// retryable reports whether a request that got resp or err may succeed if
// sent again.
func retryable(resp *http.Response, err error) bool {
	if err != nil {
		return transientErr(err)
	}
	return retryableStatus(resp.StatusCode)
}

func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500
}

// transientErr reports whether a request that got no response may get one
// if sent again: anything but an unknown host or a TLS failure.
func transientErr(err error) bool {
	if dnsErr, ok := errors.AsType[*net.DNSError](err); ok && dnsErr.IsNotFound {
		return false
	}
	_, badCert := errors.AsType[*tls.CertificateVerificationError](err)
	_, notTLS := errors.AsType[tls.RecordHeaderError](err)
	return !badCert && !notTLS
}

// readBody reads and closes req's body, so each attempt can send a copy.
func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	return body, nil
}

// drain reads a little of body and closes it, so the connection is reused.
func drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxDrain))
	_ = body.Close()
}
