package repo

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/capsulehq/capsule/internal/markdown"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/gate"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/pipeline/repocontext"
)

// Bounds of the placement of the reproducing test: the files of the
// context that count as related to the issue, the bytes of a test file
// read to score it, and the bytes of each file added to the designer's
// context.
const (
	relatedFiles   = 5
	maxScoredBytes = 256 << 10
	maxNearbyBytes = 8 << 10
	maxNearbyFiles = 4
)

// placement is where the test designer's file goes, and why.
type placement struct {
	Path string
	Why  string
	// near is the baseline's test file most related to the issue, beside
	// which the file goes; empty when none was found.
	near string
	// dirs are the directories of the baseline's test files: a test
	// file the command collects goes in one of them.
	dirs []string
	// lang is the test's language; pkg and pkgName are a Go test's
	// package import path and name, framework a JavaScript test's; crate
	// is the library a Rust integration test uses, crateDir its crate's
	// directory, edition its Rust edition; pkgName and class are a JUnit
	// test's package and class.
	lang                     programmer.TestLanguage
	pkg, pkgName             string
	framework                string
	crate, crateDir, edition string
	class                    string
}

// placeRepro chooses where the reproducing test goes: a new file in the
// directory of the baseline's test file most related to the issue, the one
// that imports or mentions the modules the repository context ranks first
// (see related); else in tests/, else at the root, when the baseline has
// test files there; else beside most of its test files. The file is named
// test_capsule_reproduction.py, or capsule_reproduction_test.py when the
// directory's tests are named that way, with a number when the name is
// taken.
func placeRepro(repo string, testFiles []string, rc repocontext.Context) placement {
	pl := placement{dirs: testDirs(testFiles), lang: programmer.Pytest}
	dir := ""
	switch near, why := related(repo, testFiles, rc); {
	case near != "":
		dir, pl.near, pl.Why = path.Dir(near), near, "beside "+near+", "+why
	case slices.Contains(pl.dirs, "tests"):
		dir, pl.Why = "tests", "in tests/, where the command collects tests; no test file is related to the issue's code"
	case slices.Contains(pl.dirs, "."):
		dir, pl.Why = ".", "at the root, where the command collects tests; no test file is related to the issue's code"
	case len(pl.dirs) > 0:
		dir = busiest(testFiles)
		pl.Why = "in " + dir + "/, where the command collects most of its tests; no test file is related to the issue's code"
	default:
		if info, err := os.Stat(filepath.Join(repo, "tests")); err == nil && info.IsDir() {
			dir = "tests"
		}
		pl.Why = "in " + cmp.Or(dir, ".") + "/: the baseline ran no test to place it beside"
	}
	stem, ext := strings.TrimSuffix(reproFile, ".py"), ".py"
	if suffixNamed(testFiles, dir) {
		stem, ext = "capsule_reproduction", "_test.py"
	}
	name := path.Join(dir, stem+ext)
	for n := 2; taken(repo, name); n++ {
		name = path.Join(dir, fmt.Sprintf("%s_%d%s", stem, n, ext))
	}
	pl.Path = name
	return pl
}

// taken reports whether anything is at the slash-separated path p in
// repo: a file, a directory (where the test file could not be written) or
// a link.
func taken(repo, p string) bool {
	_, err := os.Lstat(filepath.Join(repo, filepath.FromSlash(p)))
	return err == nil
}

// testDirs lists the directories of test files, "." for the root.
func testDirs(testFiles []string) []string {
	var dirs []string
	for _, f := range testFiles {
		if d := path.Dir(f); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// busiest is the directory holding most of the test files.
func busiest(testFiles []string) string {
	n := map[string]int{}
	best := ""
	for _, f := range testFiles {
		d := path.Dir(f)
		if n[d]++; best == "" || n[d] > n[best] {
			best = d
		}
	}
	return best
}

// suffixNamed reports whether most test files in dir are named *_test.py.
func suffixNamed(testFiles []string, dir string) bool {
	suffix, all := 0, 0
	for _, f := range testFiles {
		if path.Dir(f) == dir {
			all++
			if strings.HasSuffix(f, "_test.py") && !strings.HasPrefix(path.Base(f), "test_") {
				suffix++
			}
		}
	}
	return suffix*2 > all
}

// related finds the baseline's test file most related to the issue: of
// the first relatedFiles files the repository context ranks for it, the
// test file that is one of them, is named after one, or imports or
// mentions one's module, the first-ranked weighing most. why says what
// tied them; near is empty when no test file is related.
func related(repo string, testFiles []string, rc repocontext.Context) (near, why string) {
	var ranked []codeFile
	for _, in := range rc.Included {
		if strings.HasSuffix(in.Path, ".py") && len(ranked) < relatedFiles {
			ranked = append(ranked, newCodeFile(in.Path))
		}
	}
	best := 0
	for _, tf := range testFiles {
		text := readBounded(filepath.Join(repo, filepath.FromSlash(tf)), maxScoredBytes)
		score, tie := 0, ""
		for k, code := range ranked {
			w := len(ranked) - k
			s, how := code.relation(tf, text)
			if s > 0 && tie == "" {
				tie = how
			}
			score += s * w
		}
		if score > best {
			best, near, why = score, tf, tie
		}
	}
	return near, why
}

// codeFile is a file the context ranks for the issue, with the patterns
// of its uses in a test file.
type codeFile struct {
	path, mod, base string
	// uses matches the module's dotted name, imports a use of its last
	// part in an import statement; nil when there is no such name.
	uses, imports *regexp.Regexp
}

func newCodeFile(p string) codeFile {
	c := codeFile{path: p}
	c.mod, c.base = moduleOf(p)
	if c.mod != "" {
		c.uses = regexp.MustCompile(`\b` + regexp.QuoteMeta(c.mod) + `\b`)
	}
	if b := regexp.QuoteMeta(c.base); b != "" {
		c.imports = regexp.MustCompile(`(?m)^\s*(from\s+[\w.]*\s+import\s+[^\n]*\b` + b + `\b|import\s+[\w.]*\b` + b + `\b|from\s+[\w.]*\b` + b + `\s+import)`)
	}
	return c
}

// relation weighs how the test file tf, whose text is given, relates to
// the code file, and says how.
func (c codeFile) relation(tf, text string) (int, string) {
	switch {
	case tf == c.path:
		return 4, "which the repository context ranks among the files the issue concerns"
	case c.base != "" && (path.Base(tf) == "test_"+c.base+".py" || path.Base(tf) == c.base+"_test.py"):
		return 3, "which is named after " + c.path
	case c.uses != nil && c.uses.MatchString(text):
		return 2, "which uses " + c.mod + " (" + c.path + ")"
	case c.imports != nil && c.imports.MatchString(text):
		return 1, "which imports " + c.base + " (" + c.path + ")"
	}
	return 0, ""
}

// moduleOf is the dotted module of a Python file ("calc.stats" for
// calc/stats.py or src/calc/stats.py, the package for an __init__.py) and
// its last part.
func moduleOf(file string) (mod, base string) {
	p := strings.TrimSuffix(file, ".py")
	for _, root := range []string{"src/", "lib/"} {
		p = strings.TrimPrefix(p, root)
	}
	p = strings.TrimSuffix(strings.TrimSuffix(p, "__init__"), "/")
	if p == "" {
		return "", ""
	}
	mod = strings.ReplaceAll(p, "/", ".")
	if !strings.Contains(mod, ".") {
		// A top-level module's name alone is too common a word to
		// count as a use of it.
		return "", mod
	}
	return mod, path.Base(p)
}

// readBounded reads at most n bytes of a file; "" when it cannot be read.
func readBounded(name string, n int64) string {
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, n)
	k, _ := f.Read(buf)
	return string(buf[:k])
}

// check says why the test designer's file may not go at p, or returns
// "": it must be a new Python test file, named as pytest collects test
// files, in a directory of the baseline's test files, and not test
// infrastructure.
func (pl placement) check(repo, p string) string {
	base := path.Base(p)
	switch {
	case !filepath.IsLocal(filepath.FromSlash(p)) || path.Clean(p) != p:
		return fmt.Sprintf("%s is not a clean path inside the repository", p)
	case edits.IsTestInfrastructure(p):
		return fmt.Sprintf("%s is test infrastructure, which the test designer may not write", p)
	case pl.lang == programmer.GoTest && !strings.HasSuffix(base, "_test.go"):
		return fmt.Sprintf("%s is not named as a Go test file (*_test.go)", p)
	case pl.lang == programmer.GoTest && path.Dir(p) != path.Dir(pl.Path):
		return fmt.Sprintf("the test goes in package %s, in %s/", pl.pkg, path.Dir(pl.Path))
	case pl.lang == programmer.RustTest && (path.Ext(base) != ".rs" || path.Dir(p) != path.Dir(pl.Path)):
		return fmt.Sprintf("an integration test of crate %s is a .rs file directly in %s/", pl.crate, path.Dir(pl.Path))
	case pl.lang == programmer.JavaTest && p != pl.Path:
		return fmt.Sprintf("the test is class %s of package %s, in %s", pl.class, pl.pkgName, pl.Path)
	case pl.lang == programmer.JSTest && !isJSTest(p):
		return fmt.Sprintf("%s is not named as a test file %s collects (*.test.ts, *.spec.js, ... or a module under __tests__/)", p, pl.framework)
	case pl.lang == programmer.Pytest && (!strings.HasSuffix(base, ".py") || !strings.HasPrefix(base, "test_") && !strings.HasSuffix(base, "_test.py")):
		return fmt.Sprintf("%s is not named as a test file (test_*.py or *_test.py)", p)
	case isPathIn(repo)(p):
		return fmt.Sprintf("%s already exists: the test goes in a new file", p)
	case len(pl.dirs) > 0 && !slices.Contains(pl.dirs, path.Dir(p)):
		return fmt.Sprintf("the test command collects no test file in %s/", path.Dir(p))
	}
	return ""
}

// nearby is the text added to the test designer's context: the test file
// beside which its file goes and the conftest.py files above it, whose
// fixtures its tests may use, each cut to maxNearbyBytes, leaving out
// files the context shows already.
func (pl placement) nearby(repo string, rc repocontext.Context) string {
	shown := map[string]bool{}
	for _, in := range rc.Included {
		shown[in.Path] = true
	}
	var files []string
	if pl.near != "" {
		files = append(files, pl.near)
	}
	for dir := path.Dir(pl.Path); pl.lang == programmer.Pytest && len(files) < maxNearbyFiles; dir = path.Dir(dir) {
		if c := path.Join(dir, "conftest.py"); isFileIn(repo)(c) {
			files = append(files, c)
		}
		if dir == "." {
			break
		}
	}
	var b strings.Builder
	for _, f := range files {
		if shown[f] {
			continue
		}
		text := readBounded(filepath.Join(repo, filepath.FromSlash(f)), maxNearbyBytes+1)
		if len(text) > maxNearbyBytes {
			text = strings.ToValidUTF8(text[:maxNearbyBytes], "") + "\n" + pl.comment() + " [... cut ...]\n"
		}
		fmt.Fprintf(&b, "\n%s:\n%s\n", f, markdown.Fence(pl.fence(), text))
	}
	if b.Len() == 0 {
		return ""
	}
	switch pl.lang {
	case programmer.GoTest:
		return fmt.Sprintf("\n\nA test of package %s, for its conventions: your file goes beside it in %s/.\n%s", pl.pkg, path.Dir(pl.Path), b.String())
	case programmer.JSTest:
		return fmt.Sprintf("\n\nA test near the code the issue concerns, for its conventions: your file goes beside it in %s/.\n%s", path.Dir(pl.Path), b.String())
	case programmer.RustTest:
		return fmt.Sprintf("\n\nAn integration test of crate %s, for its conventions: your file goes beside it in %s/.\n%s", pl.crate, path.Dir(pl.Path), b.String())
	case programmer.JavaTest:
		return fmt.Sprintf("\n\nA test of package %s, for its conventions: your class goes beside it in %s/.\n%s", pl.pkgName, path.Dir(pl.Path), b.String())
	}
	return fmt.Sprintf("\n\nTests near the code the issue concerns: your file goes in %s/, beside them, and may use the fixtures of these conftest.py files.\n%s",
		path.Dir(pl.Path), b.String())
}

// fence is the language of the test's code blocks.
func (pl placement) fence() string {
	switch pl.lang {
	case programmer.GoTest:
		return "go"
	case programmer.RustTest:
		return "rust"
	case programmer.JSTest:
		return strings.TrimPrefix(path.Ext(pl.Path), ".")
	case programmer.JavaTest:
		return "java"
	}
	return "python"
}

// comment is the test language's line comment.
func (pl placement) comment() string {
	if pl.lang == programmer.Pytest {
		return "#"
	}
	return "//"
}

// place chooses where the reproducing test goes, in the language of the
// job's tests; skipped says why no test is asked for.
func place(repo string, pf *proof, rc repocontext.Context) (pl placement, skipped string) {
	switch {
	case pf.plan.GoJSON:
		return placeGoRepro(repo, pf.testFiles, rc)
	case pf.plan.Cargo:
		return placeRustRepro(repo, pf.plan.Command, rc)
	case pf.plan.WholeRuns() && isMaven(pf.plan.Command):
		return placeJavaRepro(repo, pf.testFiles, rc)
	case pf.plan.WholeRuns() && isFileIn(repo)("package.json"):
		return placeJSRepro(repo, pf.testFiles, rc)
	case pf.plan.WholeRuns():
		return pl, "the test designer writes pytest, Go, Rust, Jest, Vitest and JUnit 5 (Maven) tests, and this repository's tests are read from reports of `" + pf.plan.Command + "`"
	}
	return placeRepro(repo, pf.testFiles, rc), ""
}

// isMaven reports whether a test command runs Maven (mvn, ./mvnw).
func isMaven(command string) bool {
	_, program := repoconfig.ImageFor(command)
	return program == "mvn" || program == "mvnw"
}

// testFile is the designed file's place in a run's report, or why the
// file cannot be a reproducing test: a Go file's tests are the test
// functions it declares (see goTests), a Rust file's the tests of the
// binary cargo builds of it (see rustTestProblem), a JUnit class's those
// its suite holds (see javaTestFile).
func (pl placement) testFile(file, content string) (gate.TestFile, string) {
	switch pl.lang {
	case programmer.RustTest:
		return gate.TestFile{Path: file, Binary: rustBinary(pl.crateDir, file)}, rustTestProblem(content)
	case programmer.JavaTest:
		return javaTestFile(file, content, pl.pkgName, pl.class)
	case programmer.GoTest:
	default:
		return gate.TestFile{Path: file}, ""
	}
	tests, problem := goTests(content, pl.pkgName)
	return gate.TestFile{Path: file, Package: pl.pkg, Tests: tests}, problem
}
