// Package report renders the texts Capsule posts on GitHub: the pull
// request, the status comment on the issue, the reply to a sender without
// enough permission, and the job summary of the GitHub Action; for a
// round on the pull request, its entry in the body's log of rounds, its
// status comment and its replies in review threads.
//
// Every text states the outcome plainly: it says the tests pass only when
// the attempt log says so. Texts with a size limit keep within it by
// leaving out parts of the attempt log, oldest attempts first, and say
// what they left out.
package report

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/capsulehq/capsule/internal/markdown"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// MaxBody is GitHub's limit on a pull request or comment body, in
// characters. GitHub counts Unicode code points, so this package counts
// runes (utf8.RuneCountInString), not bytes: a body of 65,536 "é" is
// 131,072 bytes and still fits.
const MaxBody = 65536

// MaxTitle is GitHub's limit on a pull request title, in characters.
const MaxTitle = 256

// MaxStepSummary is the limit on a GitHub Actions job summary
// ($GITHUB_STEP_SUMMARY), in bytes.
const MaxStepSummary = 1 << 20

// Issue names the issue being worked on.
type Issue struct {
	Owner, Repo string
	Number      int
	Title       string
}

// code renders s as an inline code span, with a fence longer than any run
// of backticks inside.
func code(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// cell makes Markdown safe for one table cell: one line, pipes escaped.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// text makes plain text safe as Markdown: GitHub drops what reads as an
// HTML tag, such as "<nil>".
func text(s string) string {
	return strings.ReplaceAll(s, "<", "&lt;")
}

// quote puts text in a block quote, line by line.
func quote(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// paragraph writes s as a paragraph of text, or in a fence when it spans
// lines, followed by a blank line.
func paragraph(b *strings.Builder, s string) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "\n") {
		b.WriteString(markdown.Fence("text", s) + "\n")
	} else {
		b.WriteString(text(s) + "\n")
	}
	b.WriteString("\n")
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return cutRunes(s, n-1) + "…"
}

// cutRunes returns the first n runes of s.
func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// cutBytes returns the longest prefix of s of at most n bytes that ends
// between UTF-8 sequences.
func cutBytes(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// duration rounds d for people: to the millisecond under a minute, to the
// second above.
func duration(d time.Duration) string {
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(time.Millisecond).String()
}

// plural writes "1 model call", "2 model calls".
func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return attemptlog.Commas(n) + " " + one + "s"
}

// join lists phrases: "a", "a and b", "a, b and c".
func join(phrases []string) string {
	switch len(phrases) {
	case 0:
		return ""
	case 1:
		return phrases[0]
	}
	return strings.Join(phrases[:len(phrases)-1], ", ") + " and " + phrases[len(phrases)-1]
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return strings.ToUpper(string(r)) + s[n:]
}
