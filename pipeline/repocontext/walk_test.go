package repocontext

import (
	"reflect"
	"testing"
)

func TestWalkSkips(t *testing.T) {
	dir := writeRepo(t, map[string]string{
		"main.py":                     "",
		".github/workflows/ci.yml":    "",
		".gitignore":                  "",
		".git/config":                 "",
		".venv/lib/site.py":           "",
		".tox/py3/x.py":               "",
		"venv/lib/x.py":               "",
		"node_modules/pkg/index.js":   "",
		"vendor/mod/x.go":             "",
		"pkg/__pycache__/x.pyc":       "",
		"dist/pkg.whl":                "",
		"build/lib/x.py":              "",
		"docs/api/generated.md":       "",
		"docs/guide.md":               "",
		"pkg/mod.py":                  "",
		"pkg/fixtures/data.json":      "",
		"other/fixtures/data.json":    "",
		"api/keep.md":                 "",
		"pkg/link.py":                 linkPrefix + "mod.py",
		"pkg/build_tools/__init__.py": "",
	})
	// A path skips that directory only; a name, however written, all so named.
	r, err := openRepo(dir, []string{"docs/api", "fixtures/", "/other"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	want := []string{
		".github/workflows/ci.yml",
		".gitignore",
		"api/keep.md",
		"docs/guide.md",
		"main.py",
		"pkg/build_tools/__init__.py",
		"pkg/link.py",
		"pkg/mod.py",
	}
	if !reflect.DeepEqual(r.files, want) {
		t.Errorf("files:\n got %q\nwant %q", r.files, want)
	}
	if !r.symlink[r.index["pkg/link.py"]] || r.symlink[r.index["pkg/mod.py"]] {
		t.Error("symlinks not marked as such")
	}
}

func TestNewDirFilter(t *testing.T) {
	skip := newDirFilter([]string{"docs", "src/gen/", ""})
	tests := []struct {
		rel, name string
		want      bool
	}{
		{"docs", "docs", true},
		{"a/docs", "docs", true},
		{"src/gen", "gen", true},
		{"gen", "gen", false},
		{".github", ".github", false},
		{".cache", ".cache", true},
		{"a/.hidden", ".hidden", true},
		{"src", "src", false},
		{"build", "build", true},
	}
	for _, tt := range tests {
		if got := skip(tt.rel, tt.name); got != tt.want {
			t.Errorf("skip(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

func TestIsTestFile(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"tests/helpers.py", true},
		{"test_ops.py", true},
		{"calc/ops_test.py", true},
		{"calc/ops_test.go", true},
		{"conftest.py", true},
		{"web/ops.test.ts", true},
		{"web/__tests__/ops.js", true},
		{"web/ops.spec.js", true},
		{"calc/ops.py", false},
		{"calc/testing_utils.py", false},
		{"contest.py", false},
	}
	for _, tt := range tests {
		if got := isTestFile(tt.path); got != tt.want {
			t.Errorf("isTestFile(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
