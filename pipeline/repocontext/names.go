package repocontext

import (
	"bytes"
	"strings"
)

// isIdentByte reports whether c may appear in an identifier.
func isIdentByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isIdent reports whether s is an ASCII identifier.
func isIdent(s string) bool {
	if s == "" || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return true
}

// isDottedName reports whether s is one or more identifiers joined by dots.
func isDottedName(s string) bool {
	for part := range strings.SplitSeq(s, ".") {
		if !isIdent(part) {
			return false
		}
	}
	return true
}

// identAt returns the identifier at the start of b, or nil.
func identAt(b []byte) []byte {
	n := 0
	for n < len(b) && isIdentByte(b[n]) {
		n++
	}
	if n == 0 || '0' <= b[0] && b[0] <= '9' {
		return nil
	}
	return b[:n]
}

// isSnake reports whether identifier s has an underscore between letters
// or digits, as code names do and English words do not.
func isSnake(s string) bool {
	i := strings.IndexByte(strings.Trim(s, "_"), '_')
	return i > 0
}

// isCamel reports whether identifier s mixes case inside a word, as in
// TimeParser or parseDuration.
func isCamel(s string) bool {
	lower := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z' && lower:
			return true
		}
	}
	return false
}

// isUpperFirst reports whether s starts with a capital letter, as class
// names do.
func isUpperFirst(s string) bool {
	return s != "" && 'A' <= s[0] && s[0] <= 'Z'
}

// containsWord reports whether word occurs in b as a whole identifier.
func containsWord(b []byte, word string) bool {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(word))
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(word)
		if (start == 0 || !isIdentByte(b[start-1])) && (end == len(b) || !isIdentByte(b[end])) {
			return true
		}
		off = start + 1
	}
}

// stopNames are names too common to point at a file: keywords, built-ins
// and the standard methods of Python, Go and JavaScript, and test helpers.
var stopNames = makeSet(`
	and as assert async await break class continue def del elif else except
	finally for from global if import in is lambda nonlocal not or pass raise
	return try while with yield None True False self cls
	abs all any bool bytes callable chr dict dir divmod enumerate eval exec
	filter float format frozenset getattr hasattr hash hex id input int
	isinstance issubclass iter len list map max min next object oct open ord
	pow print property range repr reversed round set setattr slice sorted
	staticmethod classmethod str sum super tuple type vars zip
	Exception BaseException ArithmeticError AssertionError AttributeError
	EOFError FileNotFoundError ImportError IndexError KeyError KeyboardInterrupt
	LookupError ModuleNotFoundError NameError NotImplementedError OSError IOError
	OverflowError RecursionError RuntimeError StopIteration SyntaxError
	SystemExit TypeError UnicodeDecodeError UnicodeEncodeError ValueError
	ZeroDivisionError Warning DeprecationWarning UserWarning
	append extend insert pop remove clear copy get keys values items update
	join split strip lstrip rstrip replace startswith endswith lower upper
	encode decode read write close readlines
	__init__ __main__ __name__ __call__ __str__ __repr__ __eq__ __enter__ __exit__
	main setUp tearDown assertEqual assertTrue assertFalse assertRaises
	assertIn assertIsNone raises fixture mark parametrize approx
	func var const package nil err error make new go defer chan string
	fmt Println Printf Sprintf Errorf
	function let this null undefined console log require module exports
	export default constructor prototype then catch async
`)

// makeSet splits s into a set of words.
func makeSet(s string) map[string]bool {
	set := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}
