// Package httpbody holds helpers for HTTP response bodies shared by the
// clients that retry requests.
package httpbody

import (
	"context"
	"io"
)

// CancelOnClose returns body, which ends its request's context (cancel)
// once it is closed, so that a per-attempt timeout lasts until the caller
// has read the response.
func CancelOnClose(body io.ReadCloser, cancel context.CancelFunc) io.ReadCloser {
	return &cancelOnClose{ReadCloser: body, cancel: cancel}
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
