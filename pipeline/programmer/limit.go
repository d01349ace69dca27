package programmer

import (
	"errors"
	"fmt"
	"io"
	"net/http"
)

// DefaultMaxAnswerBytes is the largest response read from the endpoint
// when Config.MaxAnswerBytes is zero.
const DefaultMaxAnswerBytes = 4 << 20

// tooLargeError ends the read of a response body longer than the limit.
type tooLargeError struct{ limit int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("the response is larger than the limit of %d bytes", e.limit)
}

// limitTransport bounds what is read of each response body, so that an
// endpoint cannot make the client hold more than the limit (go-openai
// reads and decodes whole bodies). A successful response past the limit
// fails its read with a *tooLargeError; an error response is cut at the
// limit, since only its start is quoted.
type limitTransport struct {
	next  http.RoundTripper
	limit int64
}

func (t limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusBadRequest:
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.LimitReader(resp.Body, t.limit), resp.Body}
	case resp.ContentLength > t.limit:
		resp.Body.Close()
		resp.Body = &limitedBody{ReadCloser: http.NoBody, read: resp.ContentLength, limit: t.limit}
	default:
		resp.Body = &limitedBody{ReadCloser: resp.Body, limit: t.limit}
	}
	return resp, nil
}

// limitedBody fails once more than limit bytes have been read.
type limitedBody struct {
	io.ReadCloser
	read, limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.read > b.limit {
		return 0, &tooLargeError{b.limit}
	}
	p = p[:min(int64(len(p)), b.limit+1-b.read)]
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if b.read > b.limit {
		return n, &tooLargeError{b.limit}
	}
	return n, err
}

// isTooLarge reports whether err comes from a response past the limit.
func isTooLarge(err error) bool {
	_, ok := errors.AsType[*tooLargeError](err)
	return ok
}
