package work

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// CommandPrefix starts a comment that speaks to Capsule.
const CommandPrefix = "/capsule"

// PullRequestCommand reads a comment on Capsule's pull request. ok is true
// when its first non-empty line starts with "/capsule" (in any case),
// followed by white space or the end of the line: the comment then asks
// for a TriggerCommand round. request is the reviewer's request, the text
// after "/capsule" (the rest of that line and the lines below), trimmed;
// it is empty for "/capsule" alone and for "/capsule retry" alone, which
// ask for a round with no request of their own.
func PullRequestCommand(body string) (request string, ok bool) {
	rest := strings.TrimLeftFunc(body, unicode.IsSpace)
	if len(rest) < len(CommandPrefix) || !strings.EqualFold(rest[:len(CommandPrefix)], CommandPrefix) {
		return "", false
	}
	rest = rest[len(CommandPrefix):]
	if r, _ := utf8.DecodeRuneInString(rest); rest != "" && !unicode.IsSpace(r) {
		return "", false // "/capsules", "/capsule-bot"
	}
	request = strings.TrimSpace(rest)
	if words := strings.Fields(request); len(words) == 1 && strings.EqualFold(words[0], "retry") {
		return "", true
	}
	return request, true
}
