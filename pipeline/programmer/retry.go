package programmer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/capsulehq/capsule/internal/httpretry"
)

// Backoff between retries: exponential from baseDelay, capped at maxDelay,
// with jitter; a server's Retry-After is honoured up to maxRetryAfter.
const (
	baseDelay     = 500 * time.Millisecond
	maxDelay      = 30 * time.Second
	maxRetryAfter = 60 * time.Second
)

// clock is the time source of the client and its retries; tests replace
// it.
type clock interface {
	Now() time.Time
	// Sleep waits for d, or returns ctx.Err() once ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error { return httpretry.Sleep(ctx, d) }

// retryTransport returns the transport that retries calls to the model
// endpoint over next, each attempt bounded by cfg.RequestTimeout, as
// retryDecision says. Working below go-openai lets it read Retry-After,
// which go-openai's errors do not carry. jitter is the random source of
// the backoff, in [0, 1).
func retryTransport(next http.RoundTripper, cfg Config, clk clock, jitter func() float64) *httpretry.Transport {
	return &httpretry.Transport{
		Base:   next,
		Logger: cfg.Logger,
		Now:    clk.Now,
		Sleep:  clk.Sleep,
		Rand:   jitter,
		Policy: httpretry.Policy{
			Service:        "model endpoint",
			Retry:          retryDecision,
			MaxRetries:     cfg.MaxRetries,
			BaseDelay:      baseDelay,
			MaxDelay:       maxDelay,
			AttemptTimeout: cfg.RequestTimeout,
		},
	}
}

// retryDecision retries a request that failed with a transient error:
// 408, 429, 5xx (after the server's Retry-After or Retry-After-Ms, capped
// at maxRetryAfter, else the backoff), or no response at all.
func retryDecision(a httpretry.Attempt) httpretry.Decision {
	if a.Err != nil {
		if transientErr(a.Err) {
			return httpretry.Backoff("no response")
		}
		return httpretry.Decision{}
	}
	code := a.Response.StatusCode
	if !retryableStatus(code) {
		return httpretry.Decision{}
	}
	if d, ok := httpretry.RetryAfter(a.Response.Header, a.Now); ok {
		return httpretry.After(min(d, maxRetryAfter), fmt.Sprintf("HTTP %d (Retry-After)", code))
	}
	return httpretry.Backoff(fmt.Sprintf("HTTP %d", code))
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
