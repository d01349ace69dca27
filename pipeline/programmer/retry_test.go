package programmer

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := epoch
	tests := []struct {
		name    string
		header  map[string]string
		want    time.Duration
		wantSet bool
	}{
		{"absent", nil, 0, false},
		{"seconds", map[string]string{"Retry-After": "1"}, time.Second, true},
		{"zero", map[string]string{"Retry-After": "0"}, 0, true},
		{"capped", map[string]string{"Retry-After": "86400"}, maxRetryAfter, true},
		{"date", map[string]string{"Retry-After": now.Add(5 * time.Second).Format(http.TimeFormat)}, 5 * time.Second, true},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"milliseconds", map[string]string{"Retry-After-Ms": "250"}, 250 * time.Millisecond, true},
		{"milliseconds win", map[string]string{"Retry-After-Ms": "1500.5", "Retry-After": "2"}, 1500500 * time.Microsecond, true},
		{"infinite milliseconds", map[string]string{"Retry-After-Ms": "Inf"}, maxRetryAfter, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := retryAfter(h, now)
			if got != tt.want || ok != tt.wantSet {
				t.Errorf("retryAfter(%v) = %v, %v; want %v, %v", tt.header, got, ok, tt.want, tt.wantSet)
			}
		})
	}
}

func TestBackoffDelay(t *testing.T) {
	tests := []struct {
		attempt int
		full    time.Duration // delay before jitter
	}{
		{0, baseDelay},
		{1, 2 * baseDelay},
		{3, 8 * baseDelay},
		{6, maxDelay},
		{100, maxDelay},
	}
	for _, tt := range tests {
		for _, j := range []float64{0, 0.5, 0.999} {
			tr := &retryTransport{clock: &fakeClock{now: epoch}, jitter: func() float64 { return j }}
			got := tr.delay(tt.attempt, nil)
			if got < tt.full/2 || got >= tt.full {
				t.Errorf("delay(%d) with jitter %v = %v, want in [%v, %v)", tt.attempt, j, got, tt.full/2, tt.full)
			}
		}
	}
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func response(status int) *http.Response {
	return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}"))}
}

func TestTransportResendsBody(t *testing.T) {
	var bodies []string
	tr := &retryTransport{
		next: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				return nil, err
			}
			bodies = append(bodies, string(b))
			if len(bodies) < 3 {
				return response(http.StatusBadGateway), nil
			}
			return response(http.StatusOK), nil
		}),
		maxRetries:     5,
		attemptTimeout: time.Minute,
		clock:          &fakeClock{now: epoch},
		jitter:         func() float64 { return 0 },
		log:            slog.New(slog.DiscardHandler),
	}
	req, err := http.NewRequest(http.MethodPost, "http://model.test/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(bodies) != 3 || bodies[0] != `{"model":"m"}` || bodies[2] != bodies[0] {
		t.Errorf("bodies sent = %q, want the same body three times", bodies)
	}
}

func TestTransportAttemptTimeout(t *testing.T) {
	tr := &retryTransport{
		// The endpoint never answers; only the attempt's deadline ends the wait.
		next: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			<-r.Context().Done()
			return nil, r.Context().Err()
		}),
		attemptTimeout: time.Millisecond,
		clock:          &fakeClock{now: epoch},
		jitter:         func() float64 { return 0 },
		log:            slog.New(slog.DiscardHandler),
	}
	req, err := http.NewRequest(http.MethodGet, "http://model.test/v1/models", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.RoundTrip(req)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no response within 1ms") {
		t.Errorf("RoundTrip() error = %v, want a deadline naming the attempt timeout", err)
	}
}

func TestTransientErr(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"unexpected EOF", io.ErrUnexpectedEOF, true},
		{"DNS timeout", &net.DNSError{Err: "timeout", Name: "model.test", IsTimeout: true}, true},
		{"unknown host", &net.DNSError{Err: "no such host", Name: "model.test", IsNotFound: true}, false},
		{"bad certificate", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, false},
		{"TLS to plain HTTP", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, false},
	}
	for _, tt := range tests {
		if got := transientErr(tt.err); got != tt.want {
			t.Errorf("transientErr(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
