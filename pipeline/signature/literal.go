package signature

import (
	"math"
	"strconv"
	"strings"
)

// literal evaluates tokens [lo, hi) as a literal, reporting false when the
// region as a whole is not one. Elements of a container that are not
// literals become opaque values, so the container still has a type.
func (s *source) literal(lo, hi int) (any, bool) {
	if lo >= hi {
		return nil, false
	}
	first := s.toks[lo]
	if v, ok := s.complexSum(lo, hi); ok {
		return v, true
	}
	switch {
	case s.is(lo, "-") || s.is(lo, "+"):
		v, ok := s.literal(lo+1, hi)
		if !ok {
			return nil, false
		}
		if first.text == "+" {
			return positive(v)
		}
		return negate(v)
	case s.isOpener(lo) && s.match[lo] == hi-1:
		return s.container(lo, hi)
	case first.kind == tokString:
		return s.stringLit(lo, hi)
	case first.kind == tokNumber && hi-lo == 1:
		return parseNumber(first.text)
	case first.kind == tokName && hi-lo == 1:
		switch first.text {
		case "True":
			return true, true
		case "False":
			return false, true
		case "None":
			return nil, true
		}
	case first.kind == tokName && s.is(lo+1, "(") && s.match[lo+1] == hi-1:
		return s.constructor(lo, hi)
	}
	return nil, false
}

// constructor evaluates the few calls that stand for literals Python cannot
// write directly: float('inf'), float('nan') and empty set(), list(),
// tuple(), dict().
func (s *source) constructor(lo, hi int) (any, bool) {
	name := s.toks[lo].text
	if hi-lo == 3 {
		switch name {
		case "set":
			return Set{}, true
		case "list":
			return List{}, true
		case "tuple":
			return Tuple{}, true
		case "dict":
			return Dict{}, true
		}
		return nil, false
	}
	if name != "float" || hi-lo != 4 || s.toks[lo+2].kind != tokString {
		return nil, false
	}
	arg, ok := s.stringLit(lo+2, lo+3)
	str, isStr := arg.(string)
	if !ok || !isStr {
		return nil, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(str), 64)
	if err != nil && !math.IsInf(f, 0) {
		return nil, false
	}
	return f, true
}

// container evaluates a bracketed region: a parenthesised value or tuple, a
// list, a set or a dict.
func (s *source) container(lo, hi int) (any, bool) {
	inner := [2]int{lo + 1, hi - 1}
	if inner[0] == inner[1] {
		switch s.toks[lo].text {
		case "(":
			return Tuple{}, true
		case "[":
			return List{}, true
		}
		return Dict{}, true
	}
	if s.find(inner[0], inner[1], "for") >= 0 {
		// A comprehension: the container kind is known, its elements are not.
		text := opaque(s.span(inner[0], inner[1]))
		switch s.toks[lo].text {
		case "[":
			return List{text}, true
		case "{":
			if s.find(inner[0], inner[1], ":") >= 0 {
				return Dict{{Key: text, Value: text}}, true
			}
			return Set{text}, true
		}
		return nil, false // a generator expression
	}
	parts := s.split(inner[0], inner[1], ",")
	trailingComma := len(parts) > 1 && parts[len(parts)-1][0] == parts[len(parts)-1][1]
	if trailingComma {
		parts = parts[:len(parts)-1]
	}
	for _, p := range parts {
		if p[0] == p[1] {
			return nil, false // "[1,,2]" is a syntax error
		}
	}
	switch s.toks[lo].text {
	case "(":
		if len(parts) == 1 && !trailingComma {
			return s.literal(parts[0][0], parts[0][1])
		}
		return Tuple(s.elements(parts)), true
	case "[":
		return List(s.elements(parts)), true
	}
	if s.find(parts[0][0], parts[0][1], ":") < 0 && !s.is(parts[0][0], "**") {
		return Set(s.elements(parts)), true
	}
	d := make(Dict, 0, len(parts))
	for _, p := range parts {
		if s.is(p[0], "**") {
			d = append(d, Item{Key: opaque(s.span(p[0], p[1])), Value: opaque(s.span(p[0], p[1]))})
			continue
		}
		colon := s.find(p[0], p[1], ":")
		if colon < 0 {
			return nil, false // a dict entry without a key
		}
		d = append(d, Item{Key: s.element(p[0], colon), Value: s.element(colon+1, p[1])})
	}
	return d, true
}

// elements evaluates each part, keeping non-literals as opaque values.
func (s *source) elements(parts [][2]int) []any {
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = s.element(p[0], p[1])
	}
	return out
}

// element evaluates tokens [lo, hi), or returns them as an opaque value.
func (s *source) element(lo, hi int) any {
	if v, ok := s.literal(lo, hi); ok {
		return v
	}
	return opaque(s.span(lo, hi))
}
