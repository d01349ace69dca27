package programmer

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/capsulehq/capsule/internal/httpretry"
)

// TestRetryDecision checks the model endpoint's policy; httpretry's
// tests cover the mechanism, and TestCompleteRetries the two together.
func TestRetryDecision(t *testing.T) {
	now := epoch
	tests := []struct {
		name   string
		status int
		header map[string]string
		err    error
		want   httpretry.Decision
	}{
		{name: "200", status: 200, want: httpretry.Decision{}},
		{name: "400", status: 400, want: httpretry.Decision{}},
		{name: "404", status: 404, want: httpretry.Decision{}},
		{name: "408", status: 408, want: httpretry.Backoff("HTTP 408")},
		{name: "429", status: 429, want: httpretry.Backoff("HTTP 429")},
		{name: "500", status: 500, want: httpretry.Backoff("HTTP 500")},
		{name: "503 with Retry-After", status: 503, header: map[string]string{"Retry-After": "7"},
			want: httpretry.After(7*time.Second, "HTTP 503 (Retry-After)")},
		{name: "429 with Retry-After-Ms", status: 429, header: map[string]string{"Retry-After-Ms": "250"},
			want: httpretry.After(250*time.Millisecond, "HTTP 429 (Retry-After)")},
		{name: "a long Retry-After is capped", status: 429, header: map[string]string{"Retry-After": "86400"},
			want: httpretry.After(maxRetryAfter, "HTTP 429 (Retry-After)")},
		{name: "a long Retry-After date is capped", status: 429, header: map[string]string{"Retry-After": now.Add(time.Hour).Format(http.TimeFormat)},
			want: httpretry.After(maxRetryAfter, "HTTP 429 (Retry-After)")},
		{name: "400 with Retry-After", status: 400, header: map[string]string{"Retry-After": "1"}, want: httpretry.Decision{}},
		{name: "connection refused", err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, want: httpretry.Backoff("no response")},
		{name: "unknown host", err: &net.DNSError{Err: "no such host", Name: "model.test", IsNotFound: true}, want: httpretry.Decision{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := httpretry.Attempt{Err: tt.err, Now: now}
			if tt.err == nil {
				a.Response = &http.Response{StatusCode: tt.status, Header: http.Header{}}
				for k, v := range tt.header {
					a.Response.Header.Set(k, v)
				}
			}
			if got := retryDecision(a); got != tt.want {
				t.Errorf("retryDecision() = %+v, want %+v", got, tt.want)
			}
		})
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
