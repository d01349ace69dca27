package repocontext

import (
	"path"
	"strings"
)

// Languages a file's definitions, imports and tests are read in.
const (
	langNone = iota
	langPython
	langGo
	langJS
)

// langOf returns the language of file p by its extension.
func langOf(p string) int {
	switch path.Ext(p) {
	case ".py", ".pyi":
		return langPython
	case ".go":
		return langGo
	case ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts":
		return langJS
	}
	return langNone
}

// testDirs are directory names that hold tests.
var testDirs = makeSet("tests test testing __tests__ spec")

// isTestFile reports whether p is a test by the conventions of Python, Go
// and JavaScript: test_x.py, x_test.py, conftest.py, x_test.go,
// x.test.js, x.spec.ts, or anything under a tests directory.
func isTestFile(p string) bool {
	base := path.Base(p)
	stem, _, _ := strings.Cut(base, ".")
	switch {
	case strings.HasPrefix(base, "test_"), strings.HasSuffix(stem, "_test"), base == "conftest.py",
		strings.Contains(base, ".test."), strings.Contains(base, ".spec."):
		return true
	}
	for dir := range strings.SplitSeq(path.Dir(p), "/") {
		if testDirs[dir] {
			return true
		}
	}
	return false
}
