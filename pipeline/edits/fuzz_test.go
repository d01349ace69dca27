package edits

import (
	"strings"
	"testing"
)

// fuzzLines are the lines fuzz inputs are made of: few, so that they repeat
// and many alignments compete, with blank, CRLF and non-ASCII lines, and
// lines of "=" (a divider, which a file may hold as an RST heading or a
// merge marker, and a docstring's underline).
var fuzzLines = []string{"a\n", "b\n", "c\n", "\n", "}\n", "\tx := 1\n", "ü\r\n", "\r\n", "=======\n", "    ========\n"}

// fuzzText turns fuzz bytes into text: each byte picks a line, and a high
// bit on the last byte drops the final newline.
func fuzzText(data []byte) string {
	var b strings.Builder
	for _, c := range data {
		b.WriteString(fuzzLines[int(c)%len(fuzzLines)])
	}
	s := b.String()
	if len(data) > 0 && data[len(data)-1]&0x80 != 0 {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

// FuzzDiff diffs random old and new texts, applies the patch with the
// test's strict patcher and checks that it reproduces the new text with a
// shortest edit script.
func FuzzDiff(f *testing.F) {
	f.Add([]byte{}, []byte{0, 1, 2})
	f.Add([]byte{0, 1, 2}, []byte{})
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6}, []byte{0, 1, 2, 3, 4, 5, 7, 7, 0, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{0, 1, 0x82}, []byte{0, 1, 2})
	f.Add([]byte{3, 3, 3, 4, 3, 3, 3, 3, 3, 3, 3, 4, 4}, []byte{4, 3, 3, 3, 3, 3, 3, 3, 3, 4, 3, 0x84})
	f.Fuzz(func(t *testing.T, oldData, newData []byte) {
		old, new := fuzzText(oldData), fuzzText(newData)
		if old == new {
			return
		}
		c, err := newChange("f.txt", StatusModified, old, new, "100644")
		if err != nil {
			t.Fatal(err)
		}
		var w strings.Builder
		c.write(&w)
		got, err := patchApply(map[string]string{"f.txt": old}, w.String())
		if err != nil {
			t.Fatalf("patch does not apply: %v\n%s", err, w.String())
		}
		if got["f.txt"] != new {
			t.Fatalf("patch gives %q, want %q\n%s", got["f.txt"], new, w.String())
		}
		if a, b := splitLines(old), splitLines(new); len(a)*len(b) <= 1e6 {
			added, removed := c.counts()
			if want := len(a) + len(b) - 2*lcsLen(a, b); added+removed != want {
				t.Fatalf("%d lines changed, a shortest edit script changes %d", added+removed, want)
			}
		}
	})
}

// FuzzBlocks writes the change between random texts as blocks and places
// them back, also as the answer parser reads them (split at each line
// "=======" in turn: the right reading is chosen, or the block is refused
// as unclear, never placed wrong), and places random blocks without
// panicking: a block either fails with a message or gives text that holds
// its REPLACE part.
func FuzzBlocks(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, []byte{0, 2, 3}, []byte{1})
	f.Add([]byte{0, 0, 0}, []byte{0, 1, 0}, []byte{0, 0})
	// An RST heading, a merge marker, a numpy docstring's underline.
	f.Add([]byte{0, 8, 3, 1}, []byte{0, 8, 3, 2}, []byte{0, 8})
	f.Add([]byte{0, 1, 8, 2, 4}, []byte{0, 1, 8, 5, 4}, []byte{8})
	f.Add([]byte{5, 9, 1, 2}, []byte{5, 9, 1, 0}, []byte{9, 1})
	f.Fuzz(func(t *testing.T, a, b, s []byte) {
		old, new := fuzzText(a), fuzzText(b)
		if strings.TrimSpace(old) != "" && !strings.Contains(old, "\r") && !strings.Contains(new, "\r") &&
			strings.HasSuffix(old, "\n") == strings.HasSuffix(new, "\n") {
			cur := old
			for _, bl := range BlocksFor(old, new) {
				next, err := replaceBlock(cur, bl)
				if err != nil {
					t.Fatalf("%q -> %q: block %d: %v", old, new, bl.N, err)
				}
				// The block as the parser reads it from the answer.
				search := bl.Search
				if search != "" && !strings.HasSuffix(search, "\n") {
					search += "\n" // as the parser gives it: the same lines
				}
				read, _, err := placeBlock(cur, readings(bl.N, search+"=======\n"+bl.Replace))
				switch {
				case err != nil && !strings.Contains(err.Error(), "which is the divider is unclear"):
					t.Fatalf("%q -> %q: block %d as read: %v", old, new, bl.N, err)
				case err == nil && read != next:
					t.Fatalf("%q -> %q: block %d as read gives %q, want %q", old, new, bl.N, read, next)
				}
				cur = next
			}
			if cur != new {
				t.Fatalf("%q -> %q: the blocks give %q", old, new, cur)
			}
		}
		search := fuzzText(s)
		if _, err := replaceBlock(old, Block{N: 1, Search: search, Replace: "R\n"}); err == nil && !strings.Contains(old, "R\n") {
			if got, _ := replaceBlock(old, Block{N: 1, Search: search, Replace: "R\n"}); !strings.Contains(got, "R") {
				t.Fatalf("placed %q in %q without its REPLACE: %q", search, old, got)
			}
		}
	})
}
