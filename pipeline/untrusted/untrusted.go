// Package untrusted keeps text from outside Capsule (issues, comments,
// reviews) as data in a prompt: Clean strips what hides instructions from
// the people who read the text (HTML comments, invisible and bidirectional
// characters), and a Boundary encloses it in tags that the text cannot
// close, their name carrying a random suffix drawn once a job.
package untrusted

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// Clean removes HTML comments (an unclosed one to the end of the text, as
// GitHub hides it), format characters (zero-width characters, the
// bidirectional controls U+202A-202E and U+2066-2069, tag characters
// U+E0000-E007F, the byte order mark and the like), variation selectors,
// invisible fillers and control characters other than tab and newline.
// A CR of a CRLF is kept out too.
func Clean(s string) string {
	var b strings.Builder
	for {
		start := strings.Index(s, "<!--")
		if start < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:start])
		end := strings.Index(s[start+4:], "-->")
		if end < 0 {
			break
		}
		s = s[start+4+end+3:]
	}
	return strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, b.String())
}

// invisible reports whether r shows nothing, or changes how the text
// around it shows, without being a plain space.
func invisible(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Variation_Selector, r):
		return true
	case r >= 0xE0000 && r <= 0xE007F: // tags, some unassigned
		return true
	}
	switch r {
	case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800: // Hangul fillers, the blank Braille pattern
		return true
	}
	return false
}

// Boundary is the pair of tags around untrusted text in a prompt:
// <issue-x> and </issue-x>, x being 32 random hexadecimal digits.
type Boundary struct{ tag string }

// NewBoundary draws a boundary's suffix from random (crypto/rand.Reader
// in production; tests pass a fixed source).
func NewBoundary(random io.Reader) (Boundary, error) {
	var buf [16]byte
	if _, err := io.ReadFull(random, buf[:]); err != nil {
		return Boundary{}, fmt.Errorf("draw a boundary: %w", err)
	}
	return Boundary{tag: "issue-" + hex.EncodeToString(buf[:])}, nil
}

// Random is a boundary drawn from crypto/rand, which does not fail.
func Random() Boundary {
	b, err := NewBoundary(rand.Reader)
	if err != nil {
		panic(err) // crypto/rand.Reader never fails on supported systems
	}
	return b
}

// IsZero reports whether b was never drawn.
func (b Boundary) IsZero() bool { return b.tag == "" }

// Tag is the tags' name, e.g. "issue-3f9c...".
func (b Boundary) Tag() string { return b.tag }

// Wrap cleans text and encloses it in the boundary's tags. Any
// occurrence of the tag's name in the text is removed first, so that not
// even a text that knew it could close the boundary.
func (b Boundary) Wrap(text string) string {
	return b.Enclose(Clean(text))
}

// Enclose encloses text in the boundary's tags as Wrap does, but without
// cleaning it: for text that must stay exact, such as a repository's
// files, whose lines the model quotes back. Only the tag's name is
// removed from it.
func (b Boundary) Enclose(text string) string {
	for strings.Contains(text, b.tag) {
		text = strings.ReplaceAll(text, b.tag, "")
	}
	return "<" + b.tag + ">\n" + text + "\n</" + b.tag + ">"
}
