// Package signature derives a Python function signature from an example
// call, for tasks that give tests but no signature (MBPP). It reads the
// first call of the function in a test such as
//
//	assert remove_Occ("hello","l") == "heo"
//
// evaluates the literal arguments and names typed parameters the way
// PyCapsule does:
//
//	def remove_Occ(arg_str_1: str, arg_str_2: str) -> str:
//
// The package includes a small evaluator of Python literals (Eval).
package signature

import (
	"fmt"
	"strconv"
	"strings"
)

// Signature is a function signature derived from an example call.
type Signature struct {
	Name    string
	Params  []Param
	Returns Type // unknown unless the call is compared with a literal
}

// Param is one parameter. Positional arguments are named after their type
// (arg_int, arg_list_str; repeated types numbered arg_int_1, arg_int_2),
// keyword arguments keep their keyword, and *xs and **kw become *args and
// **kwargs.
type Param struct {
	Name string
	Type Type
}

// String renders the parameter with its type hint when the type is known.
func (p Param) String() string {
	if h := p.Type.Hint(); h != "" {
		return p.Name + ": " + h
	}
	return p.Name
}

// String renders the signature as a Python def line, such as
// "def remove_Occ(arg_str_1: str, arg_str_2: str) -> str:". Unknown types
// get no hint.
func (s Signature) String() string {
	var b strings.Builder
	b.WriteString("def " + s.Name + "(")
	for i, p := range s.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.String())
	}
	b.WriteString(")")
	if h := s.Returns.Hint(); h != "" {
		b.WriteString(" -> " + h)
	}
	b.WriteString(":")
	return b.String()
}

// FromTest derives the signature of function name from its first call in
// the Python test source. With an empty name it takes the first call in the
// first assert statement, looking through wrappers such as set(...),
// sorted(...), abs(...) and method calls such as math.isclose(...); pass the
// name when the function shares its name with a builtin.
//
// Arguments that are not literals get the unknown type. The return type is
// that of the literal the call is compared with (== or is, or the other
// argument of isclose/assertEqual); otherwise it is unknown.
func FromTest(test, name string) (Signature, error) {
	src, err := parseSource(test)
	if err != nil {
		return Signature{}, fmt.Errorf("signature: %w", err)
	}
	c, ok := src.findCall(name)
	if !ok {
		if name == "" {
			return Signature{}, fmt.Errorf("signature: %w: no function call in the first assert", ErrNoCall)
		}
		return Signature{}, fmt.Errorf("signature: %w: no call of %s", ErrNoCall, strconv.Quote(name))
	}
	return Signature{
		Name:    src.toks[c.name].text,
		Params:  src.params(c),
		Returns: src.returns(c),
	}, nil
}

// params types the arguments of call c and names them.
func (s *source) params(c call) []Param {
	var params []Param
	var positional []int // indexes into params of the positional ones
	star := map[string]bool{}
	for _, a := range s.split(c.open+1, c.close, ",") {
		lo, hi := a[0], a[1]
		switch {
		case lo == hi:
			continue // f(a,) or f()
		case s.is(lo, "*") || s.is(lo, "**"):
			name := "*args"
			if s.toks[lo].text == "**" {
				name = "**kwargs"
			}
			if !star[name] {
				star[name] = true
				params = append(params, Param{Name: name})
			}
		case s.toks[lo].kind == tokName && s.is(lo+1, "=") && lo+2 < hi:
			params = append(params, Param{Name: s.toks[lo].text, Type: s.typeOf(lo+2, hi)})
		default:
			positional = append(positional, len(params))
			params = append(params, Param{Type: s.typeOf(lo, hi)})
		}
	}
	nameParams(params, positional)
	return params
}

// nameParams names the positional params after their types, numbering the
// types that occur more than once and avoiding the keyword names.
func nameParams(params []Param, positional []int) {
	taken := map[string]bool{}
	for _, p := range params {
		if p.Name != "" {
			taken[p.Name] = true
		}
	}
	count := map[string]int{}
	for _, i := range positional {
		count["arg_"+params[i].Type.Name()]++
	}
	seen := map[string]int{}
	for _, i := range positional {
		base := "arg_" + params[i].Type.Name()
		name := base
		if count[base] > 1 || taken[base] {
			for {
				seen[base]++
				name = base + "_" + strconv.Itoa(seen[base])
				if !taken[name] {
					break
				}
			}
		}
		taken[name] = true
		params[i].Name = name
	}
}

// typeOf types the expression in tokens [lo, hi).
func (s *source) typeOf(lo, hi int) Type {
	v, ok := s.literal(lo, hi)
	if !ok {
		return Type{}
	}
	return TypeOf(v)
}
