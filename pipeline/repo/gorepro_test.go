package repo

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repocontext"
)

func TestGoModule(t *testing.T) {
	for _, tc := range []struct {
		name, gomod, want string
	}{
		{"plain", "module example.com/calc\n\ngo 1.22\n", "example.com/calc"},
		{"quoted, commented", "// a module\nmodule \"example.com/q\" // why\n", "example.com/q"},
		{"a modulex line is not a module line", "modulex example.com/no\n", ""},
		{"none", "go 1.22\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"go.mod": tc.gomod})
			if got := goModule(dir); got != tc.want {
				t.Errorf("goModule = %q, want %q", got, tc.want)
			}
		})
	}
	if got := goModule(t.TempDir()); got != "" {
		t.Errorf("goModule without go.mod = %q", got)
	}
}

func TestPlaceGoRepro(t *testing.T) {
	repo := writeTree(t, map[string]string{
		"go.mod":               "module example.com/calc\n",
		"calc.go":              "package calc\n",
		"calc_test.go":         "package calc\n",
		"stats/mean.go":        "// Package stats does sums.\npackage stats\n",
		"stats/mean_test.go":   "package stats_test\n",
		"stats/doc_test.go":    "package stats\n",
		"untested/untested.go": "package untested\n",
	})
	packages := []string{"example.com/calc", "example.com/calc/stats", "other.org/x"}
	for _, tc := range []struct {
		name             string
		rc               repocontext.Context
		path, pkg, pname string
		near, why        string
	}{
		{"the package of the first ranked Go file", ranked("README.md", "untested/untested.go", "stats/mean_test.go", "stats/mean.go", "calc.go"),
			"stats/capsule_reproduction_test.go", "example.com/calc/stats", "stats", "stats/doc_test.go", "holds stats/mean.go"},
		{"the root package", ranked("calc.go"), "capsule_reproduction_test.go", "example.com/calc", "calc", "calc_test.go", "holds calc.go"},
		{"nothing ranked", ranked(), "capsule_reproduction_test.go", "example.com/calc", "calc", "calc_test.go", "the first the baseline tested"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, problem := placeGoRepro(repo, packages, tc.rc)
			if problem != "" {
				t.Fatal(problem)
			}
			if pl.Path != tc.path || pl.pkg != tc.pkg || pl.pkgName != tc.pname || pl.near != tc.near || !strings.Contains(pl.Why, tc.why) || pl.lang != programmer.GoTest {
				t.Errorf("placeGoRepro = %+v; want %s in %s (%s) beside %s, %q", pl, tc.path, tc.pkg, tc.pname, tc.near, tc.why)
			}
			if why := pl.check(repo, pl.Path); why != "" {
				t.Errorf("check(%s) = %q", pl.Path, why)
			}
		})
	}

	pl, _ := placeGoRepro(repo, packages, ranked("stats/mean.go"))
	for p, want := range map[string]string{
		"stats/other_test.go":   "",
		"stats/mean_test.go":    "already exists",
		"stats/repro.go":        "not named as a Go test file",
		"capsule_x_test.go":     "the test goes in package example.com/calc/stats, in stats/",
		"../stats/x_test.go":    "not a clean path",
		"stats/testdata/x.go":   "not named as a Go test file",
		"untested/some_test.go": "the test goes in package",
	} {
		if got := pl.check(repo, p); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("check(%s) = %q, want %q", p, got, want)
		}
	}
	near := pl.nearby(repo, repocontext.Context{})
	if !strings.Contains(near, "stats/doc_test.go:\n```go\npackage stats\n```") || !strings.Contains(near, "A test of package example.com/calc/stats") {
		t.Errorf("nearby:\n%s", near)
	}

	if err := os.WriteFile(filepath.Join(repo, "stats", "capsule_reproduction_test.go"), []byte("package stats\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if pl, _ := placeGoRepro(repo, packages, ranked("stats/mean.go")); pl.Path != "stats/capsule_reproduction_2_test.go" {
		t.Errorf("with the name taken: %s", pl.Path)
	}
	if _, problem := placeGoRepro(repo, []string{"other.org/x"}, ranked()); !strings.Contains(problem, "no test of a package of module example.com/calc") {
		t.Errorf("no tested package of the module: %q", problem)
	}
	if _, problem := placeGoRepro(t.TempDir(), packages, ranked()); !strings.Contains(problem, "no go.mod") {
		t.Errorf("no go.mod: %q", problem)
	}
}

func TestGoTests(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		tests         []string
		problem       string
	}{
		{"two tests and a helper", "package stats\n\nimport \"testing\"\n\nfunc TestMeanEmpty(t *testing.T) {}\nfunc Test(t *testing.T) {}\nfunc Testify(t *testing.T) {}\nfunc helper() {}\nfunc BenchmarkX(b *testing.B) {}\nfunc (s suite) TestM(t *testing.T) {}\ntype suite struct{}\n",
			[]string{"Test", "TestMeanEmpty"}, ""},
		{"external test package", "package stats_test\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n", []string{"TestA"}, ""},
		{"wrong package", "package main\n\nfunc TestA(t *testing.T) {}\n", nil, "in package main; write it in package stats or stats_test"},
		{"TestMain", "package stats\n\nimport \"testing\"\n\nfunc TestMain(m *testing.M) {}\nfunc TestA(t *testing.T) {}\n", nil, "declares TestMain"},
		{"init", "package stats\n\nfunc init() {}\nfunc TestA(t *testing.T) {}\n", nil, "declares init"},
		{"linkname", "package stats\n\nimport _ \"unsafe\"\n\n//go:linkname exit os.Exit\nfunc exit(int)\nfunc TestA(t *testing.T) {}\n", nil, "//go:linkname"},
		{"no test", "package stats\n\nfunc helper() {}\n", nil, "declares no test function"},
		{"syntax", "package stats\n\nfunc TestA(t *testing.T) {\n", nil, "does not parse as Go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tests, problem := goTests(tc.content, "stats")
			if !slices.Equal(tests, tc.tests) || tc.problem == "" && problem != "" || !strings.Contains(problem, tc.problem) {
				t.Errorf("goTests = %v, %q; want %v, %q", tests, problem, tc.tests, tc.problem)
			}
		})
	}
}
