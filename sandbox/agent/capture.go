package agent

import (
	"bytes"
	"fmt"
)

// HeadTail is an io.Writer that keeps the first and the last bytes written
// to it within a fixed budget and counts everything, so that a flood of
// output costs no memory beyond the budget while the end of the output
// (where test runners print their summary) survives.
type HeadTail struct {
	limit int
	head  []byte
	tail  []byte // ring buffer once full
	next  int    // next write position in tail when full
	full  bool
	total int64
}

// NewHeadTail returns a HeadTail that keeps at most limit bytes.
func NewHeadTail(limit int) *HeadTail {
	if limit < 0 {
		limit = 0
	}
	return &HeadTail{limit: limit}
}

// Write records p. It never fails.
func (h *HeadTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	headCap := h.limit - h.limit/2
	if room := headCap - len(h.head); room > 0 {
		take := min(room, len(p))
		h.head = append(h.head, p[:take]...)
		p = p[take:]
	}
	tailCap := h.limit / 2
	if tailCap == 0 || len(p) == 0 {
		return n, nil
	}
	if len(p) >= tailCap {
		h.tail = append(h.tail[:0], p[len(p)-tailCap:]...)
		h.next, h.full = 0, true
		return n, nil
	}
	if !h.full {
		if room := tailCap - len(h.tail); len(p) <= room {
			h.tail = append(h.tail, p...)
			h.full = len(h.tail) == tailCap
			return n, nil
		}
		// Grow to capacity, then wrap.
		room := tailCap - len(h.tail)
		h.tail = append(h.tail, p[:room]...)
		p = p[room:]
		h.full = true
		h.next = 0
	}
	for len(p) > 0 {
		c := copy(h.tail[h.next:], p)
		p = p[c:]
		h.next = (h.next + c) % tailCap
	}
	return n, nil
}

// Total is the number of bytes written, kept or not.
func (h *HeadTail) Total() int64 { return h.total }

// Truncated reports whether some bytes were dropped.
func (h *HeadTail) Truncated() bool { return h.total > int64(len(h.head)+len(h.tail)) }

// Bytes returns the kept output. When bytes were dropped, a marker line
// saying how many stands where they were.
func (h *HeadTail) Bytes() []byte {
	var b bytes.Buffer
	b.Write(h.head)
	if dropped := h.total - int64(len(h.head)+len(h.tail)); dropped > 0 {
		fmt.Fprintf(&b, "\n[... %d bytes of output omitted ...]\n", dropped)
	}
	if h.full {
		b.Write(h.tail[h.next:])
		b.Write(h.tail[:h.next])
	} else {
		b.Write(h.tail)
	}
	return b.Bytes()
}
