package ghapp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/capsulehq/capsule/internal/httpretry"
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
	// peekLimit bounds how much of a response body is read to classify it.
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
	// request fails at once with an *httpretry.WaitTooLongError.
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
	return p
}

// transport returns the retrying transport over base (nil means
// http.DefaultTransport) for the GitHub API, each attempt bounded by
// attemptTimeout (zero: no bound), logging each retry to logger (nil
// means slog.Default()).
//
// A request is replay-safe when its method is GET, HEAD, OPTIONS, TRACE,
// PUT or DELETE, when it carries an Idempotency-Key or X-Idempotency-Key
// header (net/http's convention), or when it mints an installation token
// (POST .../app/installations/{id}/access_tokens, harmless to repeat).
// The rules, in order:
//
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
// rejected them without acting. A wait GitHub imposes (Retry-After, a
// rate-limit reset) longer than MaxWait fails the request at once; the
// rest of the mechanism (body replay, jitter, deadlines, logging) is
// httpretry's.
//
// go-github keeps its own rate-limit state: after any response that
// reports X-RateLimit-Remaining: 0 it fails further calls in that
// category with *github.RateLimitError without sending them, so the
// transport does not see them.
func (p RetryPolicy) transport(base http.RoundTripper, attemptTimeout time.Duration, logger *slog.Logger) *httpretry.Transport {
	p = p.withDefaults()
	return &httpretry.Transport{
		Base:   base,
		Logger: logger,
		Sleep:  p.Sleep,
		Policy: httpretry.Policy{
			Service:        "GitHub",
			Retry:          p.decide,
			MaxRetries:     p.MaxRetries,
			BaseDelay:      p.BaseDelay,
			MaxDelay:       p.MaxDelay,
			MaxWait:        p.MaxWait,
			AttemptTimeout: attemptTimeout,
		},
	}
}

// decide is the GitHub policy's verdict on an attempt; see transport.
func (p RetryPolicy) decide(a httpretry.Attempt) httpretry.Decision {
	safe := replaySafe(a.Request)
	if a.Err != nil {
		switch {
		case isDialError(a.Err):
			return httpretry.Backoff("connection error")
		case safe && isNetworkError(a.Err):
			return httpretry.Backoff("network error")
		}
		return httpretry.Decision{}
	}
	resp := a.Response
	switch code := resp.StatusCode; code {
	case http.StatusForbidden, http.StatusTooManyRequests:
		if d, ok := httpretry.RetryAfter(resp.Header, a.Now); ok {
			return httpretry.After(d, "rate limit (Retry-After)")
		}
		if resp.Header.Get("X-RateLimit-Remaining") == "0" {
			if reset, ok := parseEpoch(resp.Header.Get("X-RateLimit-Reset")); ok {
				return httpretry.After(max(reset.Sub(a.Now), 0)+resetMargin, "primary rate limit")
			}
		}
		if isSecondaryLimit(httpretry.PeekBody(resp, peekLimit)) {
			d := secondaryMinWait
			for range a.Retry {
				if d >= p.MaxWait {
					break
				}
				d *= 2
			}
			return httpretry.After(min(d, p.MaxWait), "secondary rate limit")
		}
		if code == http.StatusTooManyRequests {
			return httpretry.Backoff("too many requests")
		}
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if code == http.StatusInternalServerError && !safe {
			return httpretry.Decision{}
		}
		if d, ok := httpretry.RetryAfter(resp.Header, a.Now); ok {
			return httpretry.After(d, "server error (Retry-After)")
		}
		return httpretry.Backoff("server error")
	}
	return httpretry.Decision{}
}

// parseEpoch parses Unix seconds.
func parseEpoch(v string) (time.Time, bool) {
	secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || secs <= 0 {
		return time.Time{}, false
	}
	return time.Unix(secs, 0), true
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
