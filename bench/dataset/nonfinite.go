package dataset

import (
	"errors"
	"strings"
)

// nonFinite maps the bare literals Python's json module writes for
// non-finite floats to standard JSON numbers. 1e999 overflows to infinity
// when Python reads it back, so the values survive the trip into a test
// harness unchanged. NaN has no such spelling and is rejected.
var nonFinite = map[string]string{"Infinity": "1e999", "-Infinity": "-1e999"}

// replaceNonFinite rewrites the bare literals Infinity and -Infinity outside
// strings; other text, including string contents, is copied unchanged.
func replaceNonFinite(data []byte) ([]byte, error) {
	var out strings.Builder
	out.Grow(len(data))
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			out.WriteByte(c)
			continue
		}
		if c == '"' {
			inString = true
			out.WriteByte(c)
			continue
		}
		if c == '-' || isLetter(c) {
			j := i + 1
			for j < len(data) && isLetter(data[j]) {
				j++
			}
			word := string(data[i:j])
			if repl, ok := nonFinite[word]; ok {
				out.WriteString(repl)
				i = j - 1
				continue
			}
			if word == "NaN" || word == "-NaN" {
				return nil, errors.New("invalid JSON: NaN literals are not supported")
			}
			out.WriteString(word)
			i = j - 1
			continue
		}
		out.WriteByte(c)
	}
	return []byte(out.String()), nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
