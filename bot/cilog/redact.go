package cilog

import "regexp"

// secret is a credential's shape and what replaces it; the replacement
// keeps the groups that name the credential or end the match.
type secret struct {
	re   *regexp.Regexp
	repl string
}

// word is a credential-like value: one run of eight or more characters of
// the kinds tokens are written with.
const word = `[A-Za-z0-9_\-./+=~]{8,}`

// secrets match credentials by their published shapes.
var secrets = []secret{
	{regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`), "[redacted]"},
	{regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,255}\b`), "[redacted]"},
	{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{22,255}\b`), "[redacted]"},
	{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), "[redacted]"},
	{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`), "[redacted]"},
	{regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`), "[redacted]"},
	{regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`), "[redacted]"},
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), "[redacted]"},
	// user:password@ in a URL
	{regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@`), "${1}[redacted]@"},
	// Authorization: Bearer …, token …, Basic …
	{regexp.MustCompile(`(?i)(\bauthorization:\s*(?:bearer|token|basic)\s+)[^\s"']+`), "${1}[redacted]"},
	// NAME_TOKEN=value, "password": "value" and the like, when the value
	// is one credential-like word (not a call or an index: code stays)
	{regexp.MustCompile(`(?i)(\b[a-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)[a-z0-9_.-]*["']?\s*[=:]\s*)(?:"` + word + `"|'` + word + `'|` + word + `)(\s|$|[,;}\]])`), "${1}[redacted]${2}"},
}

// Redact replaces what looks like a credential in s (GitHub, AWS, OpenAI,
// Slack and GitLab tokens, JSON web tokens, private keys, passwords in
// URLs, authorization headers, and secret-named assignments) with
// "[redacted]". CI logs and check summaries may hold secrets a workflow
// printed; they must not reach the model or a public comment.
func Redact(s string) string {
	for _, sec := range secrets {
		s = sec.re.ReplaceAllString(s, sec.repl)
	}
	return s
}
