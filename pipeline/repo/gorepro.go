package repo

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repocontext"
)

// goReproFile is the Go reproducing test's file name.
const goReproFile = "capsule_reproduction_test.go"

// goModule is the module path the go.mod at the repository's root
// declares, or "" when there is none or it declares none.
func goModule(repo string) string {
	f, err := os.Open(filepath.Join(repo, "go.mod"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || rest == "" || rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		rest, _, _ = strings.Cut(rest, "//")
		mod := strings.TrimSpace(rest)
		if unq, err := strconv.Unquote(mod); err == nil {
			mod = unq
		}
		return mod
	}
	return ""
}

// packageDir is the directory, relative to the repository and "." for
// the root, of the package with import path pkg in module mod; ok is
// false for a package outside the module.
func packageDir(mod, pkg string) (dir string, ok bool) {
	if pkg == mod {
		return ".", true
	}
	rest, ok := strings.CutPrefix(pkg, mod+"/")
	return rest, ok && rest != ""
}

// placeGoRepro chooses where a Go reproducing test goes: in the package
// of the first Go file the repository context ranks for the issue whose
// tests the baseline ran, else in the first package the baseline tested.
// packages are the import paths of the baseline's tested packages. The
// file is capsule_reproduction_test.go, with a number when the name is
// taken; its package clause must be the package's name or its external
// test package. problem says why no Go test can be placed.
func placeGoRepro(repo string, packages []string, rc repocontext.Context) (pl placement, problem string) {
	mod := goModule(repo)
	if mod == "" {
		return pl, "the test designer writes Go tests in the module at the repository's root, and there is no go.mod there"
	}
	pl.lang = programmer.GoTest
	byDir := map[string]string{}
	for _, pkg := range packages {
		if dir, ok := packageDir(mod, pkg); ok {
			if _, seen := byDir[dir]; !seen {
				pl.dirs = append(pl.dirs, dir)
				byDir[dir] = pkg
			}
		}
	}
	if len(pl.dirs) == 0 {
		return pl, "the baseline ran no test of a package of module " + mod
	}
	dir := ""
	for _, in := range rc.Included {
		if d := path.Dir(in.Path); strings.HasSuffix(in.Path, ".go") && !strings.HasSuffix(in.Path, "_test.go") && byDir[d] != "" {
			dir, pl.Why = d, "in package "+byDir[d]+", which holds "+in.Path+", the first Go file the repository context ranks for the issue"
			break
		}
	}
	if dir == "" {
		dir = pl.dirs[0]
		pl.Why = "in package " + byDir[dir] + ", the first the baseline tested; the repository context ranks no file of a tested package"
	}
	pl.pkg = byDir[dir]
	if pl.pkgName = packageName(repo, dir); pl.pkgName == "" {
		return pl, "no Go file of " + dir + "/ names its package"
	}
	pl.near = neighbourTest(repo, dir)
	name := path.Join(dir, goReproFile)
	stem := strings.TrimSuffix(goReproFile, "_test.go")
	for n := 2; taken(repo, name); n++ {
		name = path.Join(dir, fmt.Sprintf("%s_%d_test.go", stem, n))
	}
	pl.Path = name
	return pl, ""
}

// packageName is the package clause of the first (by name) non-test Go
// file of dir that parses, or "".
func packageName(repo, dir string) string {
	entries, _ := os.ReadDir(filepath.Join(repo, filepath.FromSlash(dir)))
	for _, e := range entries {
		n := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(repo, filepath.FromSlash(dir), n), nil, parser.PackageClauseOnly)
		if err == nil {
			return f.Name.Name
		}
	}
	return ""
}

// neighbourTest is the first (by name) _test.go file of dir, shown to
// the test designer for the package's conventions, or "".
func neighbourTest(repo, dir string) string {
	entries, _ := os.ReadDir(filepath.Join(repo, filepath.FromSlash(dir)))
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), "_test.go") {
			return path.Join(dir, e.Name())
		}
	}
	return ""
}

// goTests checks a Go reproducing test file and lists its top-level test
// functions. It must parse, belong to the package pkgName or its
// external test package, declare at least one TestXxx(t *testing.T), and
// hold nothing that changes how the package's tests run or end: no
// TestMain, no init function, no //go: directive (go:linkname could
// reach into the runtime).
func goTests(content, pkgName string) (tests []string, problem string) {
	f, err := parser.ParseFile(token.NewFileSet(), "test.go", content, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, "the file does not parse as Go: " + err.Error()
	}
	if n := f.Name.Name; n != pkgName && n != pkgName+"_test" {
		return nil, fmt.Sprintf("the file is in package %s; write it in package %s or %s_test", n, pkgName, pkgName)
	}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if strings.HasPrefix(c.Text, "//go:") {
				return nil, "the file has a //go: directive (" + strings.Fields(c.Text)[0] + "), which a reproducing test may not use"
			}
		}
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil {
			continue
		}
		switch name := fn.Name.Name; {
		case name == "TestMain" || name == "init":
			return nil, "the file declares " + name + ", which changes how the package's tests run; write only test functions"
		case isTestFunc(fn):
			tests = append(tests, name)
		}
	}
	if len(tests) == 0 {
		return nil, "the file declares no test function (func TestXxx(t *testing.T))"
	}
	slices.Sort(tests)
	return tests, ""
}

// isTestFunc reports whether fn is a test function as go test finds them:
// named Test, or Test followed by a character that is not a lower-case
// letter, with one parameter.
func isTestFunc(fn *ast.FuncDecl) bool {
	rest, ok := strings.CutPrefix(fn.Name.Name, "Test")
	if !ok || fn.Type.Params == nil || fn.Type.Params.NumFields() != 1 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return rest == "" || !unicode.IsLower(r)
}
