package signature

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokenKind classifies a token of the Python subset the package reads.
type tokenKind int

const (
	tokNewline tokenKind = iota // end of a logical line (or ';')
	tokName
	tokNumber
	tokString
	tokOp
)

// token is one lexical token; text is its source text, [pos, end) its byte span.
type token struct {
	kind tokenKind
	text string
	pos  int
	end  int
}

// operators lists the multi-character operators, longest first.
var operators = []string{
	"**=", "//=", ">>=", "<<=", "...",
	"==", "!=", "<=", ">=", "->", ":=", "**", "//", "<<", ">>",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
}

// tokenize splits Python source into tokens. Comments, blank lines and
// newlines inside brackets are dropped, as in Python; the only error is an
// unterminated string.
func tokenize(src string) ([]token, error) {
	var toks []token
	depth := 0
	emit := func(kind tokenKind, pos, end int) {
		toks = append(toks, token{kind: kind, text: src[pos:end], pos: pos, end: end})
	}
	newline := func(pos, end int) {
		if depth == 0 && len(toks) > 0 && toks[len(toks)-1].kind != tokNewline {
			emit(tokNewline, pos, end)
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n' || c == ';':
			newline(i, i+1)
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\\' && (strings.HasPrefix(src[i+1:], "\n") || strings.HasPrefix(src[i+1:], "\r\n")):
			i += 2
		case c == '\'' || c == '"':
			end, err := scanString(src, i)
			if err != nil {
				return nil, err
			}
			emit(tokString, i, end)
			i = end
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			end := scanNumber(src, i)
			emit(tokNumber, i, end)
			i = end
		default:
			r, size := utf8.DecodeRuneInString(src[i:])
			if isIdentStart(r) {
				end := scanName(src, i)
				if end < len(src) && (src[end] == '\'' || src[end] == '"') && isStringPrefix(src[i:end]) {
					send, err := scanString(src, end)
					if err != nil {
						return nil, err
					}
					emit(tokString, i, send)
					i = send
					continue
				}
				emit(tokName, i, end)
				i = end
				continue
			}
			end := i + size
			for _, op := range operators {
				if strings.HasPrefix(src[i:], op) {
					end = i + len(op)
					break
				}
			}
			switch src[i:end] {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth = max(depth-1, 0)
			}
			emit(tokOp, i, end)
			i = end
		}
	}
	return toks, nil
}

// scanString returns the end of the string literal whose opening quote is at
// src[i]. A backslash always escapes the next character for the purpose of
// finding the end, in raw strings too, as in Python.
func scanString(src string, i int) (int, error) {
	q := src[i]
	triple := strings.Repeat(string(q), 3)
	j := i + 1
	if strings.HasPrefix(src[i:], triple) {
		j = i + 3
		for j < len(src) {
			switch {
			case src[j] == '\\':
				j += 2
			case strings.HasPrefix(src[j:], triple):
				return j + 3, nil
			default:
				j++
			}
		}
	} else {
		for j < len(src) && src[j] != '\n' {
			switch src[j] {
			case '\\':
				j += 2
			case q:
				return j + 1, nil
			default:
				j++
			}
		}
	}
	line, col := lineCol(src, i)
	return 0, fmt.Errorf("%w: unterminated string literal at line %d, column %d", ErrSyntax, line, col)
}

// scanNumber returns the end of the numeric literal starting at src[i]. It is
// greedy: trailing letters belong to the token, so "1abc" is one (invalid)
// number rather than a number followed by a name.
func scanNumber(src string, i int) int {
	if p := strings.ToLower(src[i:min(i+2, len(src))]); p == "0x" || p == "0o" || p == "0b" {
		return scanName(src, i+2)
	}
	j := i
	for j < len(src) {
		c := src[j]
		switch {
		case isDigit(c) || c == '_' || c == '.':
			j++
		case (c == 'e' || c == 'E') && j+1 < len(src) && (src[j+1] == '+' || src[j+1] == '-'):
			j += 2
		default:
			return scanName(src, j)
		}
	}
	return j
}

// scanName returns the end of the identifier characters starting at src[i].
func scanName(src string, i int) int {
	for i < len(src) {
		r, size := utf8.DecodeRuneInString(src[i:])
		if !isIdentStart(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) {
			break
		}
		i += size
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }

// isStringPrefix reports whether p may prefix a string literal (r, b, u, f
// and their combinations, any case).
func isStringPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf":
		return true
	}
	return false
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(src string, pos int) (line, col int) {
	pos = min(pos, len(src))
	before := src[:pos]
	line = strings.Count(before, "\n") + 1
	col = utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}
