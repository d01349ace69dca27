package signature

import (
	"errors"
	"fmt"
)

// Errors returned by FromTest and Eval; test for them with errors.Is.
var (
	// ErrSyntax reports source the tokenizer cannot read (an unterminated string).
	ErrSyntax = errors.New("syntax error")
	// ErrUnbalanced reports a bracket that is never closed or closed by the wrong kind.
	ErrUnbalanced = errors.New("unbalanced parentheses")
	// ErrNoCall reports a test without a call of the wanted function.
	ErrNoCall = errors.New("no call found")
	// ErrNotLiteral reports an expression that is not a Python literal.
	ErrNotLiteral = errors.New("not a literal")
)

// maxNesting bounds bracket nesting, as Python's own parser does (at 200).
const maxNesting = 200

// source is tokenized Python with its brackets matched: match[i] is the index
// of the partner of the bracket toks[i], or -1 for other tokens.
type source struct {
	text  string
	toks  []token
	match []int
}

// parseSource tokenizes text and matches its brackets.
func parseSource(text string) (*source, error) {
	toks, err := tokenize(text)
	if err != nil {
		return nil, err
	}
	s := &source{text: text, toks: toks, match: make([]int, len(toks))}
	var open []int
	for i, t := range toks {
		s.match[i] = -1
		if t.kind != tokOp {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			if len(open) == maxNesting {
				return nil, fmt.Errorf("%w: brackets nested more than %d deep at %s", ErrSyntax, maxNesting, s.where(i))
			}
			open = append(open, i)
		case ")", "]", "}":
			if len(open) == 0 {
				return nil, fmt.Errorf("%w: unexpected %q at %s", ErrUnbalanced, t.text, s.where(i))
			}
			o := open[len(open)-1]
			open = open[:len(open)-1]
			if closer(toks[o].text) != t.text {
				return nil, fmt.Errorf("%w: %q at %s closes %q opened at %s",
					ErrUnbalanced, t.text, s.where(i), toks[o].text, s.where(o))
			}
			s.match[o], s.match[i] = i, o
		}
	}
	if len(open) > 0 {
		o := open[len(open)-1]
		return nil, fmt.Errorf("%w: %q at %s is never closed", ErrUnbalanced, toks[o].text, s.where(o))
	}
	return s, nil
}

// closer returns the bracket that closes open.
func closer(open string) string {
	switch open {
	case "(":
		return ")"
	case "[":
		return "]"
	case "{":
		return "}"
	}
	return ""
}

// where describes the position of token i for error messages.
func (s *source) where(i int) string {
	line, col := lineCol(s.text, s.toks[i].pos)
	return fmt.Sprintf("line %d, column %d", line, col)
}

// span returns the source text of tokens [lo, hi).
func (s *source) span(lo, hi int) string {
	if lo >= hi {
		return ""
	}
	return s.text[s.toks[lo].pos:s.toks[hi-1].end]
}

// is reports whether token i exists and is the operator or name text.
func (s *source) is(i int, text string) bool {
	return i >= 0 && i < len(s.toks) && s.toks[i].text == text &&
		(s.toks[i].kind == tokOp || s.toks[i].kind == tokName)
}

// isOpener reports whether token i is an opening bracket.
func (s *source) isOpener(i int) bool {
	return s.match[i] > i
}

// split cuts tokens [lo, hi) at the separator sep outside brackets and
// lambda parameter lists, and returns the pieces as [lo, hi) pairs. A
// trailing separator leaves an empty last piece.
func (s *source) split(lo, hi int, sep string) [][2]int {
	var parts [][2]int
	start := lo
	for i := lo; i < hi; i++ {
		switch {
		case s.isOpener(i):
			i = s.match[i]
		case s.is(i, "lambda"):
			if colon := s.find(i+1, hi, ":"); colon > 0 {
				i = colon
			}
		case s.is(i, sep):
			parts = append(parts, [2]int{start, i})
			start = i + 1
		}
	}
	return append(parts, [2]int{start, hi})
}

// find returns the index of the first token in [lo, hi) outside brackets
// that is the operator or name text, or -1.
func (s *source) find(lo, hi int, text string) int {
	for i := lo; i < hi; i++ {
		switch {
		case s.isOpener(i):
			i = s.match[i]
		case s.is(i, text):
			return i
		}
	}
	return -1
}
