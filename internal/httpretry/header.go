package httpretry

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter bounds what RetryAfter reads, so that no header
// overflows a time.Duration.
const maxRetryAfter = 365 * 24 * time.Hour

// RetryAfter reads the wait a server asks for: OpenAI's Retry-After-Ms
// (milliseconds), else Retry-After in seconds or as an HTTP date (a past
// date is no wait). ok is false when neither header holds a valid value.
func RetryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms >= 0 {
		return time.Duration(min(ms/1000, maxRetryAfter.Seconds()) * float64(time.Second)), true
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
		return time.Duration(min(secs, int64(maxRetryAfter/time.Second))) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return min(max(at.Sub(now), 0), maxRetryAfter), true
	}
	return 0, false
}

// PeekBody returns up to limit bytes of resp's body and puts them back,
// so that whoever reads the response still reads all of it.
func PeekBody(resp *http.Response, limit int64) []byte {
	if resp.Body == nil || resp.Body == http.NoBody {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit))
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
