package repoconfig

import (
	"strings"
	"testing"
)

func TestProtected(t *testing.T) {
	defaults := Default().Protected
	tests := []struct {
		path     string
		patterns []string
		want     string // the matching pattern; "" for none
	}{
		{"tests/test_calc.py", defaults, "tests/**"},
		{"tests/unit/deep/helpers.py", defaults, "tests/**"},
		{"test/fixtures/data.json", defaults, "test/**"},
		{"test_x.py", defaults, "**/test_*.py"},
		{"a/b/test_x.py", defaults, "**/test_*.py"},
		{"pkg/calc_test.py", defaults, "**/*_test.py"},
		{".github/workflows/ci.yml", defaults, ".github/**"},
		{"./tests/x.py", defaults, "tests/**"},
		{"calc.py", defaults, ""},
		{"src/testing.py", defaults, ""},
		{"contest_x.py", defaults, ""},
		{"mytests/x.py", defaults, ""},
		{"pkg/calc_test.go", defaults, ""},
		{"tests", defaults, "tests/**"}, // "**" matches zero segments

		{"a/b/c.txt", []string{"a/*"}, ""}, // "*" does not cross "/"
		{"a/b", []string{"a/*"}, "a/*"},
		{"a/bc", []string{"a/?"}, ""},
		{"a/b", []string{"a/?"}, "a/?"},
		{"a/x/y/b/c", []string{"a/**/b/*"}, "a/**/b/*"},
		{"a/b/c", []string{"a/**/b/*"}, "a/**/b/*"},
		{"a/b/b/b/c", []string{"a/**/b/c"}, "a/**/b/c"},
		{"a/b/x/c", []string{"a/**/b/c"}, ""},
		{"x/a/y/b/z", []string{"**/a/**/b/**"}, "**/a/**/b/**"},
		{"x/a/y/c/z", []string{"**/a/**/b/**"}, ""},
		{"src/Main.java", []string{"src/[A-Z]*.java"}, "src/[A-Z]*.java"},
		{"src/main.java", []string{"src/[A-Z]*.java"}, ""},
		{"anything/at/all", []string{"**"}, "**"},
		{"docs/x.md", []string{"docs/[", "docs/*"}, "docs/*"}, // a malformed pattern matches nothing
		{"calc.py", nil, ""},
	}
	for _, tt := range tests {
		got, ok := Protected(tt.path, tt.patterns)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("Protected(%q, %q) = %q, %v; want %q", tt.path, tt.patterns, got, ok, tt.want)
		}
	}
}

// TestProtectedManyStars checks that patterns full of "**" stay fast on deep
// paths that almost match.
func TestProtectedManyStars(t *testing.T) {
	pattern := strings.Repeat("**/a/", 30) + "b"
	path := strings.Repeat("a/", 200) + "c"
	if _, ok := Protected(path, []string{pattern}); ok {
		t.Errorf("%q matched %q", pattern, path)
	}
}

func TestCheckPattern(t *testing.T) {
	valid := []string{"tests/**", "**/test_*.py", "**", "a/**/b", "src/[a-z]*.go", `a\*b`, ".github/**"}
	for _, p := range valid {
		if err := checkPattern(p); err != nil {
			t.Errorf("checkPattern(%q) = %v; want nil", p, err)
		}
	}
	invalid := map[string]string{
		"":          "empty pattern",
		"/etc/**":   "do not start with /",
		"tests/":    `write "tests/**"`,
		"a//b":      "empty path segment",
		"./tests":   `"." segments`,
		"a/../b":    `".." segments`,
		"tests**":   "whole path segment",
		"a/**b/c":   "whole path segment",
		"docs/[a-":  "malformed segment",
		`trailing\`: "malformed segment",
	}
	for p, want := range invalid {
		err := checkPattern(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("checkPattern(%q) = %v; want an error containing %q", p, err, want)
		}
	}
}
