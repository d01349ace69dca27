package repocontext

import (
	"bytes"
	"strings"
)

// defPrefixes are the modifiers that may precede a definition keyword in
// JavaScript and TypeScript (and async in Python).
var defPrefixes = [][]byte{
	[]byte("export "), []byte("default "), []byte("async "),
	[]byte("declare "), []byte("abstract "),
}

// defKeywords introduce a named definition in Python, Go, JavaScript or
// TypeScript.
var defKeywords = [][]byte{
	[]byte("def "), []byte("class "), []byte("function "), []byte("function* "),
	[]byte("func "), []byte("type "), []byte("interface "), []byte("enum "),
	[]byte("const "), []byte("let "), []byte("var "),
}

// defStart marks the first letters of defPrefixes and defKeywords.
var defStart = [256]bool{'a': true, 'c': true, 'd': true, 'e': true, 'f': true, 'i': true, 'l': true, 't': true, 'v': true}

// funcKeyword starts a Go function, whose receiver is skipped.
var funcKeyword = []byte("func ")

// definedName returns the name a source line defines, or nil: a Python def
// or class, a Go func (method receivers skipped) or type, a JavaScript or
// TypeScript function, class or declaration, or a top-level assignment
// "NAME = ..." such as a Python constant. It matches on text alone, so
// it serves every language at once.
func definedName(line []byte) []byte {
	t := trimIndent(line)
	indented := len(t) < len(line)
	if len(t) == 0 || indented && !defStart[t[0]] {
		return nil // the common case, cut short
	}
	for stripped := true; stripped; {
		stripped = false
		for _, p := range defPrefixes {
			if bytes.HasPrefix(t, p) {
				t, stripped = trimIndent(t[len(p):]), true
			}
		}
	}
	for _, kw := range defKeywords {
		if !bytes.HasPrefix(t, kw) {
			continue
		}
		rest := trimIndent(t[len(kw):])
		if bytes.Equal(kw, funcKeyword) && len(rest) > 0 && rest[0] == '(' {
			rest = skipParens(rest)
		}
		return identAt(rest)
	}
	if indented {
		return nil // not a top-level assignment
	}
	name := identAt(t)
	after := trimIndent(t[len(name):])
	if name != nil && len(after) > 0 && (after[0] == ':' || after[0] == '=' && (len(after) == 1 || after[1] != '=')) {
		return name
	}
	return nil
}

// skipParens skips the parenthesised group at the start of b and the
// blanks after it.
func skipParens(b []byte) []byte {
	depth := 0
	for i, c := range b {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return trimIndent(b[i+1:])
			}
		}
	}
	return nil
}

// sigKeywords introduce the definitions whose header the issue may state
// as a signature.
var sigKeywords = []string{"def ", "class ", "func ", "function "}

// parseSignature reads a definition header such as
// "def divide(a: float, b: float) -> float:" or "func Divide(a, b int) int {"
// and returns the defined name and the header as it should be stated:
// blanks collapsed, the trailing ":" or "{" and any body cut.
func parseSignature(s string) (name, header string, ok bool) {
	t := strings.TrimSpace(s)
	body := t
	for _, p := range []string{"export ", "default ", "async "} {
		body = strings.TrimPrefix(body, p)
	}
	var kw string
	for _, k := range sigKeywords {
		if strings.HasPrefix(body, k) {
			kw = k
			break
		}
	}
	if kw == "" {
		return "", "", false
	}
	rest := []byte(strings.TrimSpace(body[len(kw):]))
	if kw == "func " && len(rest) > 0 && rest[0] == '(' {
		rest = skipParens(rest)
	}
	id := identAt(rest)
	if id == nil {
		return "", "", false
	}
	// Cut where the body starts: at the ":" or "{" after the parameter
	// list and result; keep the whole text when the list is unbalanced.
	start := len(t) - len(rest) + len(id)
	if open := strings.IndexByte(t[start:], '('); open >= 0 && strings.TrimSpace(t[start:start+open]) == "" {
		after := skipParens([]byte(t[start+open:]))
		if after == nil {
			return string(id), strings.Join(strings.Fields(t), " "), true
		}
		start = len(t) - len(after)
	}
	end := len(t)
	if i := strings.IndexAny(t[start:], ":{"); i >= 0 {
		end = start + i
	}
	return string(id), strings.Join(strings.Fields(t[:end]), " "), true
}
