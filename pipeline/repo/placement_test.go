package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/repocontext"
)

// writeTree writes files (slash-separated path to content) under a new
// directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// ranked is a repository context that ranks paths, in order.
func ranked(paths ...string) repocontext.Context {
	var rc repocontext.Context
	for _, p := range paths {
		rc.Included = append(rc.Included, repocontext.Included{Path: p})
	}
	return rc
}

func TestPlaceRepro(t *testing.T) {
	for _, tc := range []struct {
		name      string
		files     map[string]string
		testFiles []string
		rc        repocontext.Context
		want, why string
	}{
		{
			name: "beside the test that imports the first-ranked module",
			files: map[string]string{"pkg/core/numbers.py": "", "pkg/core/tests/test_basic.py": "from pkg.core.numbers import Rational\n",
				"pkg/other/tests/test_other.py": "import os\n", "tests/test_misc.py": ""},
			testFiles: []string{"pkg/core/tests/test_basic.py", "pkg/other/tests/test_other.py", "tests/test_misc.py"},
			rc:        ranked("pkg/core/numbers.py", "pkg/other/x.py"),
			want:      "pkg/core/tests/test_capsule_reproduction.py", why: "beside pkg/core/tests/test_basic.py, which uses pkg.core.numbers",
		},
		{
			name:      "beside the test named after the module, in a src layout",
			files:     map[string]string{"src/calc/stats.py": "", "tests/unit/test_stats.py": "", "tests/test_cli.py": "import calc\n"},
			testFiles: []string{"tests/test_cli.py", "tests/unit/test_stats.py"},
			rc:        ranked("src/calc/stats.py"),
			want:      "tests/unit/test_capsule_reproduction.py", why: "named after src/calc/stats.py",
		},
		{
			name:      "a relative import counts",
			files:     map[string]string{"xr/core/merge.py": "", "xr/tests/test_merge_ops.py": "from ..core import merge\n", "xr/tests/test_other.py": ""},
			testFiles: []string{"xr/tests/test_merge_ops.py", "xr/tests/test_other.py"},
			rc:        ranked("xr/core/merge.py"),
			want:      "xr/tests/test_capsule_reproduction.py", why: "imports merge",
		},
		{
			name:      "nothing related: tests/, with a free name",
			files:     map[string]string{"tests/test_a.py": "", "tests/test_capsule_reproduction.py": "", "b.py": ""},
			testFiles: []string{"tests/test_a.py"},
			rc:        ranked("b.py"),
			want:      "tests/test_capsule_reproduction_2.py", why: "in tests/",
		},
		{
			name:      "the repository's own naming",
			files:     map[string]string{"lib/x_test.py": "", "lib/y_test.py": "", "lib/x.py": ""},
			testFiles: []string{"lib/x_test.py", "lib/y_test.py"},
			rc:        ranked("lib/x.py"),
			want:      "lib/capsule_reproduction_test.py", why: "beside lib/x_test.py",
		},
		{
			name:  "no baseline test: tests/ when it exists",
			files: map[string]string{"tests/readme.txt": ""},
			want:  "tests/test_capsule_reproduction.py", why: "the baseline ran no test",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := writeTree(t, tc.files)
			pl := placeRepro(repo, tc.testFiles, tc.rc)
			if pl.Path != tc.want || !strings.Contains(pl.Why, tc.why) {
				t.Errorf("placed at %s (%s); want %s (%s)", pl.Path, pl.Why, tc.want, tc.why)
			}
			if why := pl.check(repo, pl.Path); why != "" {
				t.Errorf("its own path refused: %s", why)
			}
		})
	}
}

func TestPlacementCheck(t *testing.T) {
	repo := writeTree(t, map[string]string{"tests/test_a.py": "", "tests/sub/test_b.py": "", "tests/sub/conftest.py": "import pytest\n\n@pytest.fixture\ndef thing():\n    return 1\n"})
	pl := placeRepro(repo, []string{"tests/test_a.py", "tests/sub/test_b.py"}, repocontext.Context{Included: []repocontext.Included{{Path: "tests/sub/test_b.py"}}})
	if pl.Path != "tests/sub/test_capsule_reproduction.py" {
		t.Fatalf("placed at %s", pl.Path)
	}
	for p, want := range map[string]string{
		"tests/test_new.py":        "",
		"tests/sub/new_test.py":    "",
		"../test_x.py":             "not a clean path inside the repository",
		"tests/./test_x.py":        "not a clean path",
		"tests/sub/conftest.py":    "test infrastructure",
		"tests/helpers.py":         "not named as a test file",
		"tests/test_a.py":          "already exists",
		"docs/test_x.py":           "collects no test file in docs/",
		"tests/sub/deeper/test.py": "not named as a test file",
	} {
		if got := pl.check(repo, p); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("check(%s) = %q, want %q", p, got, want)
		}
	}
	// The designer sees the conftest.py whose fixtures its test may use,
	// and not the test file the context shows already.
	near := pl.nearby(repo, repocontext.Context{Included: []repocontext.Included{{Path: "tests/sub/test_b.py"}}})
	if !strings.Contains(near, "tests/sub/conftest.py:\n```python\nimport pytest") || strings.Contains(near, "tests/sub/test_b.py:") || !strings.Contains(near, "goes in tests/sub/") {
		t.Errorf("nearby:\n%s", near)
	}
}
