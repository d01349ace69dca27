package dataset

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"
)

var (
	//go:embed compare.py
	compareSource string
	//go:embed numpy_shim.py
	numpyShimSource string
	//go:embed harness.py
	harnessSource string

	harnessTemplate = template.Must(template.New("harness").
			Funcs(template.FuncMap{"py": pyString}).
			Parse(harnessSource))
)

// harness describes a generated EvalPlus test: call the entry point on every
// input and compare with the canonical solution, as EvalPlus does.
type harness struct {
	EntryPoint string
	Reference  string   // complete canonical solution
	Inputs     []string // JSON arrays of argument lists, concatenated
	Atol       float64
	PolyRoot   bool // HumanEval/32: accept any root instead of the reference's
}

// source renders the harness as a Python check(candidate).
func (h harness) source() (string, error) {
	for _, s := range append([]string{h.EntryPoint, h.Reference}, h.Inputs...) {
		if !utf8.ValidString(s) {
			return "", fmt.Errorf("harness for %s: invalid UTF-8", h.EntryPoint)
		}
	}
	data := struct {
		harness
		Atol string
	}{h, strconv.FormatFloat(h.Atol, 'g', -1, 64)}
	var b strings.Builder
	b.WriteString(compareSource)
	b.WriteString("\n\n")
	if err := harnessTemplate.Execute(&b, data); err != nil {
		return "", fmt.Errorf("harness for %s: %w", h.EntryPoint, err)
	}
	return b.String(), nil
}

// pyString quotes s as a Python string literal. For valid UTF-8, Go's quoting
// uses only escapes Python reads the same way (\n, \", \\, \xNN, \uNNNN, ...).
func pyString(s string) string { return strconv.Quote(s) }

// withoutNumpy makes a test that imports numpy run without it: the import
// line falls back to a pure-Python stand-in with the same allclose.
func withoutNumpy(test string) string {
	const line = "import numpy as np"
	lines := strings.Split(test, "\n")
	found := false
	for i, l := range lines {
		if strings.TrimRight(l, " \t\r") == line {
			lines[i] = compareSource + numpyShimSource
			found = true
		}
	}
	if !found {
		return test
	}
	return strings.Join(lines, "\n")
}
