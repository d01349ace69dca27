package signature

import (
	"fmt"
	"strconv"
)

// Values produced by Eval. Python scalars map to Go values: int to int64 (or
// *big.Int when it does not fit), float to float64, complex to complex128,
// str to string, bytes to []byte, bool to bool and None to nil. Containers
// keep source order; duplicates in dicts and sets are not merged.
type (
	// List is a Python list.
	List []any
	// Tuple is a Python tuple.
	Tuple []any
	// Set is a Python set.
	Set []any
	// Dict is a Python dict.
	Dict []Item
)

// Item is one key/value pair of a Dict.
type Item struct {
	Key, Value any
}

// opaque stands for a sub-expression that is not a literal, such as a name,
// a call or an arithmetic expression; it holds the source text.
type opaque string

// Eval evaluates a Python literal expression, as ast.literal_eval does for
// the common cases, plus float('inf') and friends and empty set(), list(),
// tuple() and dict() calls. Anything else is an error wrapping ErrNotLiteral.
func Eval(expr string) (any, error) {
	s, err := parseSource(expr)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	lo, hi := 0, len(s.toks)
	for lo < hi && s.toks[lo].kind == tokNewline {
		lo++
	}
	for hi > lo && s.toks[hi-1].kind == tokNewline {
		hi--
	}
	v, ok := s.literal(lo, hi)
	if !ok {
		return nil, fmt.Errorf("eval: %w: %s", ErrNotLiteral, strconv.Quote(s.span(lo, hi)))
	}
	if o, found := firstOpaque(v); found {
		return nil, fmt.Errorf("eval: %w: %s", ErrNotLiteral, strconv.Quote(string(o)))
	}
	return v, nil
}

// firstOpaque returns the first non-literal part of v, if any.
func firstOpaque(v any) (opaque, bool) {
	var elems []any
	switch v := v.(type) {
	case opaque:
		return v, true
	case List:
		elems = v
	case Tuple:
		elems = v
	case Set:
		elems = v
	case Dict:
		for _, it := range v {
			elems = append(elems, it.Key, it.Value)
		}
	}
	for _, e := range elems {
		if o, ok := firstOpaque(e); ok {
			return o, true
		}
	}
	return "", false
}
