package signature

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// decodeString evaluates one string literal token, prefix and quotes
// included. ok is false for f-strings and for escapes it cannot resolve
// (\N{...}).
func decodeString(tok string) (value string, isBytes, ok bool) {
	quote := strings.IndexAny(tok, `'"`)
	if quote < 0 {
		return "", false, false
	}
	prefix := strings.ToLower(tok[:quote])
	if strings.Contains(prefix, "f") {
		return "", false, false
	}
	isBytes = strings.Contains(prefix, "b")
	body := tok[quote:]
	q := body[:1]
	if strings.HasPrefix(body, q+q+q) && len(body) >= 6 {
		q = q + q + q
	}
	if len(body) < 2*len(q) {
		return "", false, false
	}
	body = body[len(q) : len(body)-len(q)]
	if isBytes {
		for i := 0; i < len(body); i++ {
			if body[i] >= utf8.RuneSelf {
				return "", false, false // bytes literals are ASCII only
			}
		}
	}
	if strings.Contains(prefix, "r") {
		return body, isBytes, true
	}
	value, ok = unescape(body, isBytes)
	return value, isBytes, ok
}

// simpleEscapes maps the one-letter escapes to their bytes.
var simpleEscapes = map[byte]byte{
	'\\': '\\', '\'': '\'', '"': '"', 'a': '\a', 'b': '\b',
	'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v',
}

// unescape resolves Python backslash escapes. For bytes, numeric escapes
// give single bytes and \u, \U, \N are not escapes.
func unescape(s string, isBytes bool) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	buf := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			buf = append(buf, s[i])
			continue
		}
		i++
		c := s[i]
		if b, ok := simpleEscapes[c]; ok {
			buf = append(buf, b)
			continue
		}
		switch {
		case c == '\n':
			// A backslash at the end of a line joins the lines.
		case c == 'N' && !isBytes:
			return "", false // named characters need the Unicode name table
		case '0' <= c && c <= '7' || c == 'x' || !isBytes && (c == 'u' || c == 'U'):
			r, n, ok := numericEscape(s, i)
			if !ok || isBytes && r > 0xff {
				return "", false
			}
			if isBytes {
				buf = append(buf, byte(r))
			} else {
				buf = utf8.AppendRune(buf, r)
			}
			i += n - 1
		default:
			buf = append(buf, '\\', c)
		}
	}
	return string(buf), true
}

// numericEscape reads the octal (\101), hexadecimal (\x41) or Unicode
// (\u0041, \U00000041) escape whose letter or first digit is at s[i],
// returning its value and how many bytes it takes from s[i] on.
func numericEscape(s string, i int) (rune, int, bool) {
	c := s[i]
	if '0' <= c && c <= '7' {
		n := 1
		for n < 3 && i+n < len(s) && '0' <= s[i+n] && s[i+n] <= '7' {
			n++
		}
		v, _ := strconv.ParseUint(s[i:i+n], 8, 32)
		return rune(v), n, true
	}
	digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if i+digits >= len(s) {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(s[i+1:i+1+digits], 16, 32)
	if err != nil || v > utf8.MaxRune {
		return 0, 0, false
	}
	return rune(v), 1 + digits, true
}

// stringLit evaluates adjacent string literals, which Python concatenates.
func (s *source) stringLit(lo, hi int) (any, bool) {
	var text strings.Builder
	var bytes []byte
	isBytes := false
	for i := lo; i < hi; i++ {
		t := s.toks[i]
		if t.kind != tokString {
			return nil, false
		}
		v, b, ok := decodeString(t.text)
		if !ok || (i > lo && b != isBytes) {
			return nil, false
		}
		isBytes = b
		if b {
			bytes = append(bytes, v...)
		} else {
			text.WriteString(v)
		}
	}
	if isBytes {
		if bytes == nil {
			bytes = []byte{}
		}
		return bytes, true
	}
	return text.String(), true
}
