package agent

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

func TestHeadTail(t *testing.T) {
	tests := []struct {
		name      string
		limit     int
		writes    []string
		want      string
		truncated bool
	}{
		{name: "fits", limit: 10, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "exactly full", limit: 4, writes: []string{"abcd"}, want: "abcd"},
		{name: "one big write", limit: 4, writes: []string{"abcdefgh"}, want: "ab\n[... 4 bytes of output omitted ...]\ngh", truncated: true},
		{name: "many small writes wrap", limit: 6, writes: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}, want: "abc\n[... 3 bytes of output omitted ...]\nghi", truncated: true},
		{name: "write across the wrap", limit: 6, writes: []string{"abcd", "ef", "ghij"}, want: "abc\n[... 4 bytes of output omitted ...]\nhij", truncated: true},
		{name: "zero limit", limit: 0, writes: []string{"abc"}, want: "\n[... 3 bytes of output omitted ...]\n", truncated: true},
		{name: "odd limit", limit: 5, writes: []string{"0123456789"}, want: "012\n[... 5 bytes of output omitted ...]\n89", truncated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHeadTail(tt.limit)
			var total int
			for _, w := range tt.writes {
				n, err := h.Write([]byte(w))
				if err != nil || n != len(w) {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
				total += n
			}
			if got := string(h.Bytes()); got != tt.want {
				t.Errorf("Bytes() = %q, want %q", got, tt.want)
			}
			if h.Truncated() != tt.truncated {
				t.Errorf("Truncated() = %v, want %v", h.Truncated(), tt.truncated)
			}
			if h.Total() != int64(total) {
				t.Errorf("Total() = %d, want %d", h.Total(), total)
			}
		})
	}
}

// TestHeadTailMatchesNaive compares the ring buffer against a simple model
// over many write patterns.
func TestHeadTailMatchesNaive(t *testing.T) {
	src := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz", 20)
	for limit := 0; limit < 40; limit += 3 {
		for step := 1; step < 50; step += 7 {
			h := NewHeadTail(limit)
			for i := 0; i < len(src); i += step {
				h.Write([]byte(src[i:min(i+step, len(src))]))
			}
			headN := limit - limit/2
			want := src[:headN] + "\n[... " + strconv.Itoa(len(src)-limit) + " bytes of output omitted ...]\n" + src[len(src)-limit/2:]
			if got := h.Bytes(); !bytes.Equal(got, []byte(want)) {
				t.Fatalf("limit %d step %d: got %q, want %q", limit, step, got, want)
			}
		}
	}
}
