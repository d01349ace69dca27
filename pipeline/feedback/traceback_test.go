package feedback

import (
	"strings"
	"testing"
)

func TestLibrary(t *testing.T) {
	for file, want := range map[string]bool{
		"solution.py":                         false,
		"tests.py":                            false,
		"app/config.py":                       false,
		"/workspace/capsule_harness.py":       true,
		"<frozen importlib._bootstrap>":       true,
		"<string>":                            true,
		"/usr/lib/python3.11/json/decoder.py": true,
		"/root/.pyenv/versions/3.11.7/lib/python3.11/statistics.py": true,
		"/usr/lib/python3/dist-packages/_pytest/python.py":          true,
		"/venv/lib/python3.12/site-packages/numpy/core.py":          true,
		"/workspace/lib/pythonic/helpers.py":                        false,
	} {
		if got := library(file); got != want {
			t.Errorf("library(%q) = %v, want %v", file, got, want)
		}
	}
}

func TestTestFile(t *testing.T) {
	for file, want := range map[string]bool{
		"tests.py": true, "tests/test_ops.py": true, "pkg/tests/helpers.py": true,
		"calc_test.py": true, "test_calc.py": true, "conftest.py": true,
		"solution.py": false, "calc/ops.py": false, "contest.py": false,
	} {
		if got := testFile(file); got != want {
			t.Errorf("testFile(%q) = %v, want %v", file, got, want)
		}
	}
}

// TestLastError reads real tracebacks, as captured, and altered the way
// output of the code can alter them.
func TestLastError(t *testing.T) {
	zero := loadRun(t, "zero_division").Stderr
	chained := loadRun(t, "chained").Stderr
	tests := []struct {
		name    string
		text    string
		typ     string
		frames  int
		context string
	}{
		{"as captured", zero, "ZeroDivisionError", 3, ""},
		{"after output without a newline", strings.Replace(zero, "Traceback", "partial outputTraceback", 1), "ZeroDivisionError", 3, ""},
		{"chained", chained, "ValueError", 2, "KeyError: 'plum'"},
		{"syntax error", loadRun(t, "syntax_error").Stderr, "SyntaxError", 1, ""},
		{"cut short", zero[:strings.Index(zero, "ZeroDivisionError")], "", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := lastError(splitLines(tt.text))
			if ok != (tt.typ != "") || e.typ != tt.typ || len(e.frames) != tt.frames || e.context != tt.context {
				t.Errorf("lastError = %+v, %v; want type %q, %d frames, context %q", e, ok, tt.typ, tt.frames, tt.context)
			}
		})
	}
}
