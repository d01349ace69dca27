package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// DefaultMaxInFlightBytes is the budget of body bytes held at once, across
// every delivery being read, when Options.MaxInFlightBytes is 0.
const DefaultMaxInFlightBytes = 64 << 20

// chunkSize is the unit bodies are read and held in. A typical issues
// delivery (10 to 30 KB) fits in one.
const chunkSize = 32 << 10

// largeBody is the size past which a body is large: large bodies may take
// only part of the budget (see budget.take), so that a few strangers
// sending big bodies cannot keep GitHub's usual deliveries out.
const largeBody = 1 << 20

// errOverBudget is returned by readBody when the budget has no room left
// for the body.
var errOverBudget = errors.New("webhook: too many bytes in flight")

// budget bounds the memory held by bodies being read. Bodies are held in
// chunks of chunkSize that the budget hands out and takes back; it never
// hands out more than limit bytes at once. Chunks given back are reused
// while other bodies are in flight and, but for a few, dropped once none
// is, so that memory goes back to the system after a burst.
type budget struct {
	limit int64 // bytes held at most
	large int64 // bytes that large bodies may hold at most

	mu   sync.Mutex
	used int64
	free [][]byte
}

func newBudget(limit int64) *budget {
	return &budget{limit: limit, large: limit - limit/4}
}

// reserve sets n bytes (whole chunks) aside for a body that says its length, all or
// nothing, so that bodies admitted together can all be read to their end
// rather than starving one another. A body of more than largeBody bytes
// may use only the large part of the limit.
func (b *budget) reserve(n int64) bool {
	limit := b.limit
	if n > largeBody {
		limit = b.large
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > limit {
		return false
	}
	b.used += n
	return true
}

// release gives back what reserve set aside and did not use.
func (b *budget) release(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	b.trim()
}

// chunk returns a chunk. With reserved true its bytes were set aside by
// reserve; otherwise it is taken from what is left, or not at all (false)
// when that would go past the limit, or past the large part for a chunk
// of a large body.
func (b *budget) chunk(reserved, large bool) ([]byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !reserved {
		limit := b.limit
		if large {
			limit = b.large
		}
		if b.used+chunkSize > limit {
			return nil, false
		}
		b.used += chunkSize
	}
	if n := len(b.free); n > 0 {
		c := b.free[n-1]
		b.free[n-1] = nil
		b.free = b.free[:n-1]
		return c, true
	}
	return make([]byte, chunkSize), true
}

// give takes chunks back.
func (b *budget) give(chunks [][]byte) {
	if len(chunks) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= int64(len(chunks)) * chunkSize
	b.free = append(b.free, chunks...)
	b.trim()
}

// keepIdle is how many free chunks are kept when no body is held, so
// that deliveries one at a time reuse them.
const keepIdle = 8

// trim drops the free chunks past keepIdle when no body is held, so that
// the memory goes back to the system after a burst. b.mu is held.
func (b *budget) trim() {
	if b.used == 0 && len(b.free) > keepIdle {
		clear(b.free[keepIdle:])
		b.free = slices.Clip(b.free[:keepIdle])
	}
}

func roundUp(n int64) int64 { return (n + chunkSize - 1) / chunkSize * chunkSize }

// readBody reads the body in chunks from the budget, computing its HMAC as
// it goes, and returns it only if the MAC matches want; the chunks go back
// to the budget either way. length is the body's Content-Length, or -1
// when unknown: a known length is reserved whole before anything is read,
// an unknown one chunk by chunk. The MAC
// is compared in constant time.
//
// readBody fails with errOverBudget when the budget has no room, with a
// *tooLargeError past limit bytes, and with errBadSignature when the MAC
// does not match. A body refused for any reason is never held past the
// call.
func (b *budget) readBody(r io.Reader, length, limit int64, secret, want []byte) ([]byte, error) {
	reserved := int64(0)
	if length >= 0 {
		reserved = roundUp(length + 1) // the chunks of length bytes, and one to see the end
		if !b.reserve(reserved) {
			return nil, errOverBudget
		}
	}
	mac := hmac.New(sha256.New, secret)
	var (
		chunks [][]byte
		n      int64 // bytes read
	)
	defer func() {
		b.give(chunks)
		if left := reserved - int64(len(chunks))*chunkSize; left > 0 {
			b.release(left)
		}
	}()
	for {
		fromReserve := int64(len(chunks)+1)*chunkSize <= reserved
		c, ok := b.chunk(fromReserve, n >= largeBody)
		if !ok {
			return nil, errOverBudget
		}
		chunks = append(chunks, c)
		got, err := io.ReadFull(r, c)
		n += int64(got)
		mac.Write(c[:got])
		if n > limit {
			return nil, &tooLargeError{limit: limit}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("webhook: read body: %w", err)
		}
	}
	if !hmac.Equal(mac.Sum(nil), want) {
		return nil, errBadSignature
	}
	body := make([]byte, 0, n)
	for _, c := range chunks {
		body = append(body, c[:min(int64(len(c)), n-int64(len(body)))]...)
	}
	return body, nil
}

// tooLargeError is a body past the limit.
type tooLargeError struct{ limit int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("webhook: body larger than %d bytes", e.limit)
}
