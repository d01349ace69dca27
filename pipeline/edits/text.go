package edits

import "strings"

// isBinary reports whether s is binary data rather than text: whether it
// holds a NUL byte, which neither a model's answer nor a text patch carries.
func isBinary[S ~string | ~[]byte](s S) bool {
	for i := range len(s) {
		if s[i] == 0 {
			return true
		}
	}
	return false
}

// matchLineEndings gives the new content of a file CRLF line endings when
// the old content uses them throughout and the new content has no carriage
// return at all: models write LF, and a patch that changes every line ending
// hides the real change.
func matchLineEndings(old, new string) string {
	n := strings.Count(old, "\n")
	if n == 0 || strings.Count(old, "\r\n") != n || strings.Contains(new, "\r") {
		return new
	}
	return strings.ReplaceAll(new, "\n", "\r\n")
}

// splitLines splits s after each newline. Every line keeps its "\n" except
// the last when s does not end with one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
