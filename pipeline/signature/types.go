package signature

import (
	"math/big"
	"strings"
)

// kind is the Python type constructor of a Type.
type kind int

const (
	kindAny kind = iota
	kindNone
	kindBool
	kindInt
	kindFloat
	kindComplex
	kindStr
	kindBytes
	kindList
	kindTuple
	kindSet
	kindDict
)

// scalarNames names the kinds without elements.
var scalarNames = map[kind]string{
	kindAny: "any", kindNone: "None", kindBool: "bool", kindInt: "int",
	kindFloat: "float", kindComplex: "complex", kindStr: "str", kindBytes: "bytes",
}

// containerNames names the container kinds.
var containerNames = map[kind]string{
	kindList: "list", kindTuple: "tuple", kindSet: "set", kindDict: "dict",
}

// Type is the inferred Python type of a value. The zero Type is unknown
// ("any").
//
// Element types: a list or set has one (none when empty), a dict two (key and
// value; none when empty), a tuple either one for all positions (homogeneous,
// "tuple_int", tuple[int, ...]) or one per position (heterogeneous,
// "tuple_int_str", tuple[int, str]). Element types are merged across
// elements: int with float gives float, an empty container takes the other's
// element type, and other mixes give "any" ("list_any").
type Type struct {
	kind  kind
	elems []Type
	fixed bool // a tuple with one element type per position
}

// Known reports whether the type is known.
func (t Type) Known() bool { return t.kind != kindAny }

// Name returns the type's name in the style of PyCapsule's parameter names:
// "int", "list_int", "list_list_str", "tuple_int_str", "dict_str_int",
// "list" for an empty list, "list_any" for a mixed one.
func (t Type) Name() string {
	if name, ok := scalarNames[t.kind]; ok {
		return name
	}
	parts := []string{containerNames[t.kind]}
	for _, e := range t.elems {
		parts = append(parts, e.Name())
	}
	return strings.Join(parts, "_")
}

// String returns the type's name.
func (t Type) String() string { return t.Name() }

// Hint returns a Python type hint such as "int", "list[int]",
// "tuple[int, ...]" or "dict[str, int]", or "" when the type is unknown.
// A container whose element type is unknown gets its bare name ("list"),
// so that hints never need typing.Any.
func (t Type) Hint() string {
	switch t.kind {
	case kindAny:
		return ""
	case kindList, kindTuple, kindSet, kindDict:
	default:
		return scalarNames[t.kind]
	}
	name := containerNames[t.kind]
	if len(t.elems) == 0 {
		return name
	}
	hints := make([]string, len(t.elems))
	for i, e := range t.elems {
		if hints[i] = e.Hint(); hints[i] == "" {
			return name
		}
	}
	if t.kind == kindTuple && !t.fixed {
		hints = append(hints, "...")
	}
	return name + "[" + strings.Join(hints, ", ") + "]"
}

// TypeOf returns the type of a value as produced by Eval. Values of other Go
// types, and non-literal parts, have the unknown type.
func TypeOf(v any) Type {
	switch v := v.(type) {
	case nil:
		return Type{kind: kindNone}
	case bool:
		return Type{kind: kindBool}
	case int64, *big.Int:
		return Type{kind: kindInt}
	case float64:
		return Type{kind: kindFloat}
	case complex128:
		return Type{kind: kindComplex}
	case string:
		return Type{kind: kindStr}
	case []byte:
		return Type{kind: kindBytes}
	case List:
		return collection(kindList, v)
	case Set:
		return collection(kindSet, v)
	case Tuple:
		types := make([]Type, len(v))
		for i, e := range v {
			types[i] = TypeOf(e)
		}
		return tupleOf(types)
	case Dict:
		if len(v) == 0 {
			return Type{kind: kindDict}
		}
		key, val := TypeOf(v[0].Key), TypeOf(v[0].Value)
		for _, it := range v[1:] {
			key, val = unify(key, TypeOf(it.Key)), unify(val, TypeOf(it.Value))
		}
		return Type{kind: kindDict, elems: []Type{key, val}}
	}
	return Type{}
}

// collection types a list or set from the union of its element types.
func collection(k kind, elems []any) Type {
	if len(elems) == 0 {
		return Type{kind: k}
	}
	t := TypeOf(elems[0])
	for _, e := range elems[1:] {
		t = unify(t, TypeOf(e))
	}
	return Type{kind: k, elems: []Type{t}}
}

// tupleOf types a tuple with the given element types: homogeneous when they
// unify, per position otherwise.
func tupleOf(types []Type) Type {
	if len(types) == 0 {
		return Type{kind: kindTuple}
	}
	all := types[0]
	for _, t := range types[1:] {
		all = unify(all, t)
	}
	if all.Known() || len(types) == 1 {
		return Type{kind: kindTuple, elems: []Type{all}}
	}
	for _, t := range types {
		if t.Known() {
			return Type{kind: kindTuple, elems: types, fixed: true}
		}
	}
	return Type{kind: kindTuple, elems: []Type{{}}}
}

// unify returns the narrowest type covering a and b: int and float give
// float, an empty container takes the other's element type, different
// kinds give the unknown type.
func unify(a, b Type) Type {
	switch {
	case a.kind == kindInt && b.kind == kindFloat || a.kind == kindFloat && b.kind == kindInt:
		return Type{kind: kindFloat}
	case a.kind != b.kind || a.kind == kindAny:
		return Type{}
	case len(a.elems) == 0: // a scalar, or an empty container
		return b
	case len(b.elems) == 0:
		return a
	}
	if a.kind != kindTuple {
		elems := make([]Type, len(a.elems))
		for i := range elems {
			elems[i] = unify(a.elems[i], b.elems[i])
		}
		return Type{kind: a.kind, elems: elems}
	}
	if a.fixed && b.fixed && len(a.elems) == len(b.elems) {
		elems := make([]Type, len(a.elems))
		for i := range elems {
			elems[i] = unify(a.elems[i], b.elems[i])
		}
		return tupleOf(elems)
	}
	all := a.elems[0]
	for _, elems := range [][]Type{a.elems[1:], b.elems} {
		for _, t := range elems {
			all = unify(all, t)
		}
	}
	return Type{kind: kindTuple, elems: []Type{all}}
}
