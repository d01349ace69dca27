package repoconfig

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// maxTestHead is how much of a test file is read to see how it is written.
const maxTestHead = 64 << 10

// isPythonTest reports whether a file called name is a test module by
// pytest's default naming: test_*.py or *_test.py.
func isPythonTest(name string) bool {
	return strings.HasSuffix(name, ".py") &&
		(strings.HasPrefix(name, "test_") || strings.HasSuffix(name, "_test.py"))
}

// pytestSections are the configuration sections that make pytest the
// choice, by file.
var pytestSections = []struct{ file, section string }{
	{"pyproject.toml", "[tool.pytest.ini_options]"},
	{"pyproject.toml", "[tool.pytest]"},
	{"setup.cfg", "[tool:pytest]"},
	{"tox.ini", "[pytest]"},
}

// detectPython chooses between pytest and unittest for a repository with
// Python tests.
func detectPython(fsys fs.FS, t *tree) (Detection, bool, error) {
	markers, err := pytestMarkers(fsys, t)
	if err != nil {
		return Detection{}, false, err
	}
	if len(markers) > 0 {
		found := markers
		if len(t.tests) > 0 {
			found = append([]string{t.tests[0]}, markers...)
		}
		return Detection{pytestCommand, "pytest: found " + andList(found)}, true, nil
	}
	if len(t.tests) == 0 {
		return Detection{}, false, nil
	}
	for _, name := range t.tests {
		why, err := whyNotUnittest(fsys, t, name)
		if err != nil {
			return Detection{}, false, err
		}
		if why != "" {
			return Detection{pytestCommand, "pytest: " + why}, true, nil
		}
	}
	reason := fmt.Sprintf("unittest: found %s", t.tests[0])
	switch n := len(t.tests) - 1; n {
	case 0:
	case 1:
		reason += " and 1 more test file"
	default:
		reason += fmt.Sprintf(" and %d more test files", n)
	}
	reason += ", all unittest.TestCase modules, and no pytest configuration"
	return Detection{unittestCommand, reason}, true, nil
}

// pytestMarkers lists the files that configure pytest.
func pytestMarkers(fsys fs.FS, t *tree) ([]string, error) {
	var found []string
	for _, name := range []string{"pytest.ini", ".pytest.ini"} {
		if t.top[name] {
			found = append(found, name)
		}
	}
	if len(t.conftests) > 0 {
		found = append(found, t.conftests[0])
	}
	for _, s := range pytestSections {
		if !t.top[s.file] {
			continue
		}
		ok, err := hasSection(fsys, s.file, s.section)
		if err != nil {
			return nil, err
		}
		if ok {
			found = append(found, s.file+" "+s.section)
		}
	}
	return found, nil
}

// hasSection reports whether the INI or TOML file name has a line that opens
// section.
func hasSection(fsys fs.FS, name, section string) (bool, error) {
	data, err := readFile(fsys, name, maxReadSize)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", name, err)
	}
	for line := range strings.Lines(string(data)) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), section)
		if ok && (rest == "" || strings.HasPrefix(strings.TrimSpace(rest), "#")) {
			return true, nil
		}
	}
	return false, nil
}

var (
	importsPytest   = regexp.MustCompile(`(?m)^[ \t]*(?:import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*pytest\b|from[ \t]+pytest\b)`)
	importsUnittest = regexp.MustCompile(`(?m)^[ \t]*(?:import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*unittest\b|from[ \t]+unittest\b)`)
	testCaseClass   = regexp.MustCompile(`(?m)^class[ \t]+\w+[ \t]*\([^)]*TestCase`)
	testFunction    = regexp.MustCompile(`(?m)^(?:async[ \t]+)?def[ \t]+test`)
)

// whyNotUnittest says why "python3 -m unittest discover" would not run the
// test file name, or returns "" when it would.
func whyNotUnittest(fsys fs.FS, t *tree, name string) (string, error) {
	head, err := readFile(fsys, name, maxTestHead)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	switch {
	case importsPytest.Match(head):
		return name + " imports pytest", nil
	case !importsUnittest.Match(head):
		return "found " + name, nil
	case testFunction.Match(head):
		return "found " + name + ", which has test functions outside unittest.TestCase", nil
	case !testCaseClass.Match(head):
		return "found " + name + ", which has no unittest.TestCase class", nil
	}
	if ok, _ := path.Match("test*.py", path.Base(name)); !ok {
		return "found " + name + ", which unittest discovery misses (it looks for test*.py)", nil
	}
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if !t.packages[dir] {
			return "found " + name + ", which unittest discovery misses (" + dir + "/ has no __init__.py)", nil
		}
	}
	return "", nil
}

// andList joins items as "a", "a and b" or "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
