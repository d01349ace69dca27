package edits

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/capsulehq/capsule/pipeline/pynames"
)

// infrastructureError is a refusal of an edit for being test
// infrastructure, which Rules.AllowTestInfrastructure lifts.
type infrastructureError struct{ msg string }

func (e *infrastructureError) Error() string { return e.msg }

// refuseReserved refuses accepted edits that write a file the job writes
// itself, or that would make a directory of one (a file below it) or a
// file of a directory it lies in.
func refuseReserved(vs []verdict, reserved []string) {
	for i := range vs {
		v := &vs[i]
		if v.err != nil {
			continue
		}
		for _, r := range reserved {
			p := v.edit.Path
			switch {
			case p == r:
				v.err = fmt.Errorf("you may not write %s: the job writes it itself (the test that shows the issue); fix the code, not the test", r)
			case strings.HasPrefix(p, r+"/"):
				v.err = fmt.Errorf("%s cannot be written: it would make a directory of %s, the file of the test that shows the issue", p, r)
			case strings.HasPrefix(r, p+"/"):
				v.err = fmt.Errorf("%s cannot be written: the test that shows the issue goes in %s/, which must stay a directory", p, p)
			}
		}
	}
}

// answer is what Check knows of an answer's edits as a whole, for the
// rules that depend on more than one file: which files it writes and
// deletes, over the repository on disk.
type answer struct {
	res      resolver
	vs       []verdict
	writes   map[string]bool // accepted edits that leave a file
	deletes  map[string]bool // accepted edits that delete one
	reserved []string
}

func newAnswer(res resolver, vs []verdict, reserved []string) *answer {
	a := &answer{res: res, vs: vs, writes: map[string]bool{}, deletes: map[string]bool{}, reserved: reserved}
	for _, v := range vs {
		switch {
		case v.err != nil:
		case v.edit.Delete:
			a.deletes[v.edit.Path] = true
		default:
			a.writes[v.edit.Path] = true
		}
	}
	return a
}

// exists reports whether the clean path p is in the repository after the
// answer: on disk and not deleted, or written.
func (a *answer) exists(p string) bool {
	if a.writes[p] {
		return true
	}
	_, err := os.Lstat(a.res.abs(p))
	return err == nil && !a.deletes[p]
}

// onDisk reports whether the clean path p is in the repository before the
// answer.
func (a *answer) onDisk(p string) bool {
	_, err := os.Lstat(a.res.abs(p))
	return err == nil
}

// topLevel reports whether the directory dir ("" for the root) is a top
// level of Python's import path in a test run after the answer: the root
// (the working directory), and any directory that is not a package, which
// pytest may put on sys.path for the tests in it, or PYTHONPATH may name
// (src/ and the like).
func (a *answer) topLevel(dir string) bool {
	return dir == "" || !a.exists(path.Join(dir, "__init__.py"))
}

// refuseLoaders refuses the accepted edits through which Python or pytest
// would load the answer's code on its own, before or instead of the tests:
// a new top-level module or package whose name the test run imports
// (names; nil means pynames.Fallback()), and a new, changed or deleted
// __init__.py in a directory of tests. Files the repository has already
// are its own and stay.
func (a *answer) refuseLoaders(names pynames.Set) {
	if names == nil {
		names = pynames.Fallback()
	}
	for i := range a.vs {
		v := &a.vs[i]
		if v.err != nil {
			continue
		}
		var why string
		switch p := v.edit.Path; {
		case path.Base(p) == "__init__.py" && (v.old == nil || v.edit.Delete || string(v.old) != v.edit.Content) && a.holdsTests(path.Dir(p)):
			why = fmt.Sprintf("you may not %s %s, which is test infrastructure: pytest runs the __init__.py of a directory of tests before its tests, "+
				"and it can put other modules in their place; fix the code, not the tests", verbOf(v), p)
		case v.old == nil && !v.edit.Delete:
			why = a.shadows(p, names)
		case v.edit.Delete && path.Base(p) == "__init__.py":
			why = a.exposes(path.Dir(p), names)
		}
		if why != "" {
			v.err, v.infrastructure = &infrastructureError{why}, true
		}
	}
}

// verbOf says what the verdict's edit does to its file.
func verbOf(v *verdict) string {
	switch {
	case v.old == nil:
		return "add"
	case v.edit.Delete:
		return "delete"
	}
	return "modify"
}

// shadows says why the new file at p would stand in for a module the test
// run imports, or returns "": p is X.py, or lies below a new directory X,
// in a top-level directory, and X is an importable name.
func (a *answer) shadows(p string, names pynames.Set) string {
	if path.Ext(p) != ".py" {
		return ""
	}
	parts := strings.Split(p, "/")
	for i, part := range parts {
		dir, last := path.Join(parts[:i]...), i == len(parts)-1
		name := part
		if last {
			name = strings.TrimSuffix(part, ".py")
		} else if a.onDisk(path.Join(dir, part)) {
			continue // the repository's own directory
		}
		if !names.Has(name) || !a.topLevel(dir) {
			continue
		}
		what := "module " + name + ".py"
		if !last {
			what = "package " + name + "/"
		}
		return fmt.Sprintf("you may not add %s, which is test infrastructure: as the %s in %s, a top level of Python's import path in the test run, "+
			"it would stand in for %s; give it another name, or put it inside a package (a directory with an __init__.py)",
			p, what, dirName(dir), importedAs(name))
	}
	return ""
}

// exposes says why deleting the __init__.py of dir would make one of its
// modules stand in for a module the test run imports, or returns "".
func (a *answer) exposes(dir string, names pynames.Set) string {
	entries, err := os.ReadDir(a.res.abs(dir))
	if err != nil {
		return ""
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".py")
		if (e.IsDir() || name != e.Name()) && names.Has(name) && a.exists(path.Join(dir, e.Name())) {
			return fmt.Sprintf("you may not delete %s/__init__.py, which is test infrastructure: %s would then be a top level of Python's import path, "+
				"and its %s would stand in for %s", dir, dir+"/", e.Name(), importedAs(name))
		}
	}
	return ""
}

// holdsTests reports whether the directory dir holds tests after the
// answer: it is called test, tests or testing, or it holds a test module
// (test_*.py, *_test.py) on disk, in the answer or reserved by the job.
func (a *answer) holdsTests(dir string) bool {
	switch path.Base(dir) {
	case "test", "tests", "testing":
		return true
	}
	isTest := func(p string) bool {
		base := path.Base(p)
		return path.Dir(p) == dir && path.Ext(base) == ".py" && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py"))
	}
	for p := range a.writes {
		if isTest(p) {
			return true
		}
	}
	if slices.ContainsFunc(a.reserved, isTest) {
		return true
	}
	entries, err := os.ReadDir(a.res.abs(dir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return true // cannot tell: count it as one
	}
	for _, e := range entries {
		if p := path.Join(dir, e.Name()); !e.IsDir() && isTest(p) && !a.deletes[p] {
			return true
		}
	}
	return false
}

// dirName names a directory for messages.
func dirName(dir string) string {
	if dir == "" {
		return "the repository root"
	}
	return dir + "/ (a directory that is not a package)"
}

// importedAs says what a module name stands for in the test run.
func importedAs(name string) string {
	if slices.Contains(pynames.Runner, name) {
		return fmt.Sprintf("the test runner's own module %q", name)
	}
	return fmt.Sprintf("the module %q that the test run's Python provides (the standard library's, or an installed package's)", name)
}
