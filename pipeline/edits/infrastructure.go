package edits

import (
	"bytes"
	"cmp"
	"fmt"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// infrastructureChange reports how an edit to the file at the clean path p
// changes the test infrastructure: the files that decide how the tests run
// and end rather than what they test. old is the file's content before the
// edit and new after it; nil stands for a file that does not exist. It
// returns what changes (the file, or the part of it) and why that matters,
// written for the agent, or two empty strings.
//
// Only the file's name and content count: the rule is the same on the path
// the agent wrote and on the path resolved through symbolic links, since
// the last component of a path is never a link.
func infrastructureChange(p string, old, new []byte) (what, why string) {
	if old != nil && new != nil && bytes.Equal(old, new) {
		return "", ""
	}
	base := path.Base(p)
	if why := wholeFile(p); why != "" {
		return p, why
	}
	switch {
	case base == "tox.ini" || base == "setup.cfg":
		return iniChange(p, old, new)
	case base == "pyproject.toml":
		return tomlChange(p, old, new)
	case path.Ext(base) == ".py" && !slices.Equal(pluginDeclarations(old), pluginDeclarations(new)):
		return "pytest_plugins in " + p, "it makes pytest load other modules as plugins"
	}
	if what, why, ok := ecosystemChange(p, old, new); ok {
		return what, why
	}
	return "", ""
}

// IsTestInfrastructure reports whether the file at the slash-separated
// path p is test infrastructure as a whole, such as a conftest.py. Files of
// which only some sections are (setup.cfg, tox.ini, pyproject.toml) are
// not.
func IsTestInfrastructure(p string) bool {
	return wholeFile(p) != ""
}

// wholeFile says why the file at the slash-separated path p is test
// infrastructure as a whole, or returns "".
func wholeFile(p string) string {
	for dir := range strings.SplitSeq(path.Dir(p), "/") {
		if ext := strings.ToLower(path.Ext(dir)); ext == ".dist-info" || ext == ".egg-info" {
			return "it is package metadata (" + dir + "/), whose entry points make pytest load plugins on its own"
		}
	}
	base := path.Base(p)
	switch lower := strings.ToLower(base); {
	case lower == "entry_points.txt":
		return "it declares entry points, through which pytest loads plugins on its own"
	case strings.HasSuffix(lower, ".dist-info") || strings.HasSuffix(lower, ".egg-info"):
		return "it is package metadata, which can make pytest load plugins on its own"
	}
	switch {
	case base == "conftest.py":
		return "pytest loads every conftest.py as a plugin that can decide how each test ends"
	case base == "sitecustomize.py" || base == "usercustomize.py":
		return "Python runs " + base + " at start-up, before any test"
	case path.Ext(base) == ".pth":
		return "Python runs .pth files at start-up, before any test"
	case base == "pytest.ini" || base == ".pytest.ini" || base == "pytest.toml" || base == ".pytest.toml":
		return "it holds pytest's settings"
	}
	return ecosystemFile(p)
}

// runnerSection reports whether the INI section called name configures
// the test runner: pytest's own section and tox's.
func runnerSection(name string) bool {
	switch name = strings.ToLower(name); name {
	case "pytest", "tool:pytest", "tox", "tox:tox", "testenv":
		return true
	}
	return strings.HasPrefix(name, "testenv:")
}

// entryPointsSection is the INI section of setup.cfg that declares entry
// points, among them pytest's plugins (the pytest11 group).
const entryPointsSection = "options.entry_points"

// iniChange compares the test-runner sections of an INI file (tox.ini,
// setup.cfg) before and after an edit; the rest of the file may change.
func iniChange(p string, old, new []byte) (what, why string) {
	before, after := iniSections(old), iniSections(new)
	for _, name := range sortedKeys(before, after) {
		switch {
		case runnerSection(name) && !sameSection(before, after, name):
			return fmt.Sprintf("the [%s] section of %s", name, p), "it holds the test runner's settings (the rest of the file may change)"
		case strings.EqualFold(name, entryPointsSection) && !slices.Equal(iniKey(before[name], "pytest11"), iniKey(after[name], "pytest11")):
			return fmt.Sprintf("the pytest11 entry points in [%s] of %s", name, p), "they declare pytest plugins (the rest of the file may change)"
		}
	}
	return "", ""
}

// iniSections splits an INI file into its sections, by name as written
// between the brackets (trimmed), each as its lines without blank lines,
// comment lines and trailing white space. Lines before the first section
// are under "". A section that appears twice gets the lines of both.
func iniSections(data []byte) map[string][]string {
	sections := make(map[string][]string)
	name := ""
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimRight(line, " \t\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || trimmed[0] == '#' || trimmed[0] == ';':
			continue
		case trimmed[0] == '[':
			// Indented headers count too: parsers disagree on them.
			if end := strings.IndexByte(trimmed, ']'); end > 0 {
				name = strings.TrimSpace(trimmed[1:end])
				if _, ok := sections[name]; !ok {
					sections[name] = []string{} // an empty section counts too
				}
				continue
			}
		}
		sections[name] = append(sections[name], line)
	}
	return sections
}

// sameSection reports whether the section called name is in both or in
// neither of a and b, with the same lines.
func sameSection(a, b map[string][]string, name string) bool {
	x, inA := a[name]
	y, inB := b[name]
	return inA == inB && slices.Equal(x, y)
}

// iniKey returns the lines of key in a section's lines: the line that
// sets it and the indented lines that continue its value.
func iniKey(lines []string, key string) []string {
	var out []string
	in := false
	for _, line := range lines {
		if line[0] == ' ' || line[0] == '\t' {
			if in {
				out = append(out, line)
			}
			continue
		}
		k, _, _ := strings.Cut(strings.ReplaceAll(line, ":", "="), "=")
		in = strings.EqualFold(strings.TrimSpace(k), key)
		if in {
			out = append(out, line)
		}
	}
	return out
}

// runnerTables are the tables of pyproject.toml that configure the test
// runner or declare pytest plugins.
var runnerTables = [][]string{
	{"tool", "pytest"},
	{"tool", "tox"},
	{"project", "entry-points", "pytest11"},
	{"tool", "poetry", "plugins", "pytest11"},
}

// tomlChange compares the test-runner tables of pyproject.toml before and
// after an edit; the rest of the file may change. A file that does not
// parse cannot be checked, so a change to one is refused.
func tomlChange(p string, old, new []byte) (what, why string) {
	before, errBefore := parseTOML(old)
	after, errAfter := parseTOML(new)
	if err := cmp.Or(errAfter, errBefore); err != nil {
		return p, fmt.Sprintf("it does not parse as TOML (%v), so its pytest settings cannot be checked", err)
	}
	for _, table := range runnerTables {
		if !reflect.DeepEqual(lookupTable(before, table), lookupTable(after, table)) {
			return fmt.Sprintf("the [%s] table of %s", strings.Join(table, "."), p), "it holds the test runner's settings (the rest of the file may change)"
		}
	}
	return "", ""
}

// parseTOML decodes a TOML document; nil data is an empty document.
func parseTOML(data []byte) (map[string]any, error) {
	doc := make(map[string]any)
	if _, err := toml.Decode(string(data), &doc); err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		return nil, fmt.Errorf("%s", msg)
	}
	return doc, nil
}

// lookupTable follows keys through nested tables; nil when absent.
func lookupTable(doc map[string]any, keys []string) any {
	var v any = doc
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// pluginDeclaration matches a top-level statement that sets pytest_plugins,
// with the indented or closing lines that continue it.
var pluginDeclaration = regexp.MustCompile(`(?m)^pytest_plugins\b.*(?:\n[ \t)\]}].*)*`)

// pluginDeclarations returns a module's pytest_plugins statements in order.
func pluginDeclarations(src []byte) []string {
	var out []string
	for _, m := range pluginDeclaration.FindAll(src, -1) {
		out = append(out, strings.TrimRight(string(m), " \t\r\n"))
	}
	return out
}

// sortedKeys returns the keys of both maps, sorted, without repeats.
func sortedKeys(a, b map[string][]string) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
