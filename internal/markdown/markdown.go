// Package markdown holds the small pieces of GitHub-flavoured Markdown that
// Capsule writes around text it does not control.
package markdown

import "strings"

// Fence returns text in a fenced code block tagged lang, with a fence
// longer than any run of backticks inside, so that no text can close it
// early. Trailing newlines of text are dropped; the block ends with its
// closing fence, without a newline.
func Fence(lang, text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r != '`' {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f
}
