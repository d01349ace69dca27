package signature

// call locates a call expression: toks[name] is the callee, toks[open] and
// toks[close] its parentheses.
type call struct {
	name, open, close int
}

// keywords are Python's reserved words; "not (x)" is not a call.
var keywords = wordSet(
	"False", "None", "True", "and", "as", "assert", "async", "await", "break",
	"class", "continue", "def", "del", "elif", "else", "except", "finally",
	"for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
	"not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
)

// wrappers are builtins that tests wrap around the call under test; with no
// function name given, FromTest looks inside them.
var wrappers = wordSet(
	"abs", "all", "any", "bool", "dict", "enumerate", "filter", "float",
	"frozenset", "int", "isinstance", "len", "list", "map", "max", "min",
	"print", "range", "repr", "reversed", "round", "set", "sorted", "str",
	"sum", "tuple", "type", "zip",
)

// comparers are functions whose two positional arguments are an actual and
// an expected value.
var comparers = wordSet("isclose", "assertEqual", "assertAlmostEqual", "assert_equal")

// precedesOperand lists the tokens after which an expression starts, so
// that "f(x) == 3" there compares the call itself rather than, say, "2 *
// f(x)".
var precedesOperand = wordSet("assert", "(", "[", "{", ",", "=", ":", "and", "or", "not", "return", "if", "else")

// endsOperand lists the tokens that end a compared operand.
var endsOperand = wordSet(",", ")", "]", "}", ":", "=", "and", "or", "if", "else", "for",
	"==", "!=", "<", ">", "<=", ">=", "is", "in", "not")

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// findCall returns the first call of name, ignoring method calls and
// definitions. With an empty name it returns the first call from the first
// assert statement on that is neither a method call nor a call of a
// wrapper, or failing that the first call of a wrapper ("assert sum(1, 2)
// == 3" tests a function named sum).
func (s *source) findCall(name string) (call, bool) {
	from := 0
	if name == "" {
		for i, t := range s.toks {
			if t.kind == tokName && t.text == "assert" {
				from = i
				break
			}
		}
	}
	var fallback call
	hasFallback := false
	for i := from; i+1 < len(s.toks); i++ {
		t := s.toks[i]
		if t.kind != tokName || keywords[t.text] || !s.is(i+1, "(") ||
			s.is(i-1, ".") || s.is(i-1, "def") || s.is(i-1, "class") {
			continue
		}
		c := call{name: i, open: i + 1, close: s.match[i+1]}
		switch {
		case t.text == name || name == "" && !wrappers[t.text]:
			return c, true
		case name == "" && !hasFallback:
			fallback, hasFallback = c, true
		}
	}
	return fallback, hasFallback
}

// returns infers the return type of call c from the literal it is compared
// with, or returns the unknown type.
func (s *source) returns(c call) Type {
	lo, hi := c.name, c.close+1 // the call is tokens [lo, hi)
	for s.is(lo-1, "(") && s.is(hi, ")") && s.match[lo-1] == hi && !s.isCallParen(lo-1) {
		lo, hi = lo-1, hi+1
	}
	var exp [2]int
	switch {
	case (s.is(hi, "==") || s.is(hi, "is")) && s.startsOperand(lo):
		exp = [2]int{hi + 1, s.operandEnd(hi + 1)}
	case (s.is(lo-1, "==") || s.is(lo-1, "is")) && s.endsOperand(hi):
		exp = [2]int{s.operandStart(lo - 1), lo - 1}
	case s.is(lo-1, "(") || s.is(lo-1, ","):
		var ok bool
		if exp, ok = s.otherComparerArg(lo, hi); !ok {
			return Type{}
		}
	default:
		return Type{}
	}
	v, ok := s.literal(exp[0], exp[1])
	if _, partial := firstOpaque(v); !ok || partial {
		return Type{}
	}
	return TypeOf(v)
}

// otherComparerArg returns the other positional argument when tokens
// [lo, hi) are a positional argument of a comparer such as math.isclose.
func (s *source) otherComparerArg(lo, hi int) ([2]int, bool) {
	open := lo - 1
	for open >= 0 && !s.isOpener(open) {
		switch {
		case s.toks[open].kind == tokNewline || s.is(open, "="):
			return [2]int{}, false // a statement boundary, or a keyword argument
		case s.match[open] >= 0:
			open = s.match[open] // a closer: skip its group
		}
		open--
	}
	if open < 1 || !s.is(open, "(") || s.toks[open-1].kind != tokName || !comparers[s.toks[open-1].text] {
		return [2]int{}, false
	}
	var args [][2]int
	for _, a := range s.split(open+1, s.match[open], ",") {
		if a[0] < a[1] && !(s.toks[a[0]].kind == tokName && s.is(a[0]+1, "=")) {
			args = append(args, a)
		}
	}
	if len(args) < 2 {
		return [2]int{}, false
	}
	switch {
	case args[0] == [2]int{lo, hi}:
		return args[1], true
	case args[1] == [2]int{lo, hi}:
		return args[0], true
	}
	return [2]int{}, false
}

// isCallParen reports whether the "(" at i opens an argument list rather
// than a parenthesised expression.
func (s *source) isCallParen(i int) bool {
	if i == 0 {
		return false
	}
	prev := s.toks[i-1]
	switch prev.kind {
	case tokName:
		return !keywords[prev.text]
	case tokString:
		return true
	case tokOp:
		return prev.text == ")" || prev.text == "]" || prev.text == "}"
	}
	return false
}

// startsOperand reports whether an operand may start at token i.
func (s *source) startsOperand(i int) bool {
	return i == 0 || s.toks[i-1].kind == tokNewline || precedesOperand[s.toks[i-1].text] &&
		s.toks[i-1].kind != tokString
}

// endsOperand reports whether an operand may end before token i.
func (s *source) endsOperand(i int) bool {
	return i >= len(s.toks) || s.toks[i].kind == tokNewline ||
		endsOperand[s.toks[i].text] && s.toks[i].kind != tokString
}

// operandEnd returns the end of the operand that starts at token i.
func (s *source) operandEnd(i int) int {
	for ; !s.endsOperand(i); i++ {
		if s.isOpener(i) {
			i = s.match[i]
		}
	}
	return i
}

// operandStart returns the start of the operand that ends before token i.
func (s *source) operandStart(i int) int {
	for ; !s.startsOperand(i); i-- {
		if j := s.match[i-1]; j >= 0 && j < i-1 {
			i = j + 1 // jump to just after the opener; the loop steps onto it
		}
	}
	return i
}
