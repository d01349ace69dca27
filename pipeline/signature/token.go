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
	t := &tokenizer{src: src}
	for t.i < len(src) {
		if err := t.next(); err != nil {
			return nil, err
		}
	}
	return t.toks, nil
}

// tokenizer is tokenize's state: the source, the position, the bracket
// depth and the tokens so far.
type tokenizer struct {
	src   string
	i     int
	depth int
	toks  []token
}

func (t *tokenizer) emit(kind tokenKind, end int) {
	t.toks = append(t.toks, token{kind: kind, text: t.src[t.i:end], pos: t.i, end: end})
	t.i = end
}

// next reads what starts at the position: a token, or something skipped.
func (t *tokenizer) next() error {
	src, i := t.src, t.i
	c := src[i]
	switch {
	case c == '\n' || c == ';':
		if t.depth == 0 && len(t.toks) > 0 && t.toks[len(t.toks)-1].kind != tokNewline {
			t.emit(tokNewline, i+1)
		}
		t.i = i + 1
	case c == ' ' || c == '\t' || c == '\r' || c == '\f':
		t.i++
	case c == '#':
		for t.i < len(src) && src[t.i] != '\n' {
			t.i++
		}
	case c == '\\' && (strings.HasPrefix(src[i+1:], "\n") || strings.HasPrefix(src[i+1:], "\r\n")):
		t.i += 2
	case c == '\'' || c == '"':
		return t.str(i)
	case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
		t.emit(tokNumber, scanNumber(src, i))
	default:
		return t.wordOrOperator()
	}
	return nil
}

// str emits the string literal whose opening quote is at from.
func (t *tokenizer) str(from int) error {
	end, err := scanString(t.src, from)
	if err != nil {
		return err
	}
	t.emit(tokString, end)
	return nil
}

// wordOrOperator emits a name, a prefixed string (r"...", b'...') or an
// operator, counting brackets.
func (t *tokenizer) wordOrOperator() error {
	src, i := t.src, t.i
	r, size := utf8.DecodeRuneInString(src[i:])
	if isIdentStart(r) {
		end := scanName(src, i)
		if end < len(src) && (src[end] == '\'' || src[end] == '"') && isStringPrefix(src[i:end]) {
			return t.str(end)
		}
		t.emit(tokName, end)
		return nil
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
		t.depth++
	case ")", "]", "}":
		t.depth = max(t.depth-1, 0)
	}
	t.emit(tokOp, end)
	return nil
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
