package job

import (
	"fmt"
	"strings"
)

// The trailers Capsule puts in its commits' messages: every commit
// carries TrailerIssue, a round's commit TrailerRound too. A branch head
// without TrailerIssue is a commit someone else pushed.
const (
	TrailerIssue = "Capsule-Issue"
	TrailerRound = "Capsule-Round"
)

// withTrailers ends message with the trailers of issue's commit, and of
// round key when it is not empty.
func withTrailers(message string, issue int, key string) string {
	out := strings.TrimRight(message, "\n") + fmt.Sprintf("\n\n%s: %d\n", TrailerIssue, issue)
	if key != "" {
		out += fmt.Sprintf("%s: %s\n", TrailerRound, oneLine(key))
	}
	return out
}

// trailer returns the value of the last trailer named key in message's
// last paragraph (compared case-insensitively, as git does), or "".
func trailer(message, key string) string {
	paragraphs := strings.Split(strings.TrimSpace(strings.ReplaceAll(message, "\r\n", "\n")), "\n\n")
	var value string
	for _, line := range strings.Split(paragraphs[len(paragraphs)-1], "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), key) {
			value = strings.TrimSpace(v)
		}
	}
	return value
}

// oneLine joins s's words on one line, so that it cannot end a trailer
// block early or add a trailer of its own.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
