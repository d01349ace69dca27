package repoconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// ErrNoTestCommand is returned when detection finds no test command.
var ErrNoTestCommand = errors.New("no test command detected (looked for pytest, unittest, go test, npm/pnpm/yarn test, cargo test, mvn test and gradle test): set test: in " + Path)

// The commands detection chooses from.
const (
	pytestCommand   = "python3 -m pytest -q"
	unittestCommand = "python3 -m unittest discover -v"
	goCommand       = "go test ./..."
	npmCommand      = "npm test"
	cargoCommand    = "cargo test"
	mavenCommand    = "mvn -o test"
	gradleCommand   = "gradle test"
)

const (
	// maxEntries bounds the walk over a repository's files.
	maxEntries = 20_000
	// maxReadSize bounds what detection reads of one file.
	maxReadSize = 1 << 20
)

// Detection is a test command chosen by looking at a repository's files.
type Detection struct {
	Command string // run in the repository root
	Reason  string // why it was chosen, for the log
}

// DetectTest chooses the command that runs the tests of the repository
// checked out at repoDir. In order of priority: pytest when anything points
// to it, unittest when every Python test file is a unittest module that
// unittest's discovery finds, pytest for other Python test files (it runs
// unittest tests too), go test for a go.mod, npm, pnpm or yarn test (by
// the lock file) for a package.json with a real test script, cargo test for
// a Cargo.toml, mvn test for a pom.xml and gradle test for a Gradle build,
// whose proof is unavailable offline. It returns ErrNoTestCommand when none
// applies.
//
// The walk skips hidden directories, .git, node_modules, vendor, venv and
// .venv, does not follow symbolic links, and stops after 20,000 entries.
func DetectTest(repoDir string) (Detection, error) {
	root, err := os.OpenRoot(repoDir)
	if err != nil {
		return Detection{}, fmt.Errorf("detect test command: %w", err)
	}
	defer root.Close()
	return detect(root.FS(), maxEntries)
}

// detector reports the command it finds in a repository, if any.
type detector func(fsys fs.FS, t *tree) (Detection, bool, error)

// detect is DetectTest on a file system, walking at most limit entries.
func detect(fsys fs.FS, limit int) (Detection, error) {
	t, err := walk(fsys, limit)
	if err != nil {
		return Detection{}, fmt.Errorf("detect test command: %w", err)
	}
	partial := ""
	if t.truncated {
		partial = fmt.Sprintf(" (looked at the first %d files only)", limit)
	}
	for _, find := range []detector{detectPython, detectGo, detectNode, detectCargo, detectMaven, detectGradle} {
		d, ok, err := find(fsys, t)
		if err != nil {
			return Detection{}, fmt.Errorf("detect test command: %w", err)
		}
		if ok {
			d.Reason += partial
			return d, nil
		}
	}
	if partial != "" {
		return Detection{}, fmt.Errorf("%w%s", ErrNoTestCommand, partial)
	}
	return Detection{}, ErrNoTestCommand
}

// TestCommand returns the command that runs the repository's tests: the
// configured one when set, else the detected one, and why it was chosen.
func (c Config) TestCommand(repoDir string) (cmd, reason string, err error) {
	if c.Test != "" {
		src := c.Source
		if src == "" {
			src = "the configuration"
		}
		return c.Test, "from " + src, nil
	}
	d, err := DetectTest(repoDir)
	if err != nil {
		return "", "", err
	}
	return d.Command, d.Reason, nil
}

// tree is what detection knows of a repository's files.
type tree struct {
	top       map[string]bool // regular files in the root directory
	conftests []string        // conftest.py files
	tests     []string        // Python test files, in lexical order
	packages  map[string]bool // directories holding an __init__.py
	truncated bool            // the walk stopped at its limit
}

// walk gathers a tree from fsys, looking at no more than limit entries.
// Directories that cannot be read are skipped.
func walk(fsys fs.FS, limit int) (*tree, error) {
	t := &tree{top: make(map[string]bool), packages: make(map[string]bool)}
	entries := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil
		}
		if p == "." {
			return nil
		}
		if entries++; entries > limit {
			t.truncated = true
			return fs.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if skipDir(name) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		dir := path.Dir(p)
		switch {
		case name == "__init__.py":
			t.packages[dir] = true
		case name == "conftest.py":
			t.conftests = append(t.conftests, p)
		case isPythonTest(name):
			t.tests = append(t.tests, p)
		}
		if dir == "." {
			t.top[name] = true
		}
		return nil
	})
	return t, err
}

// skipDir reports whether the walk leaves out directories called name.
func skipDir(name string) bool {
	switch name {
	case "node_modules", "vendor", "venv", "__pycache__":
		return true
	}
	return strings.HasPrefix(name, ".") // .git, .venv, .tox, ...
}

// marker detects command when the repository's root holds file.
func marker(file, command, reason string) detector {
	return func(_ fs.FS, t *tree) (Detection, bool, error) {
		return Detection{command, reason}, t.top[file], nil
	}
}

var (
	detectGo    = marker("go.mod", goCommand, "go: found go.mod")
	detectCargo = marker("Cargo.toml", cargoCommand, "cargo: found Cargo.toml; libtest's lines on its output give the per-test results, with --no-fail-fast added so that every test binary runs")
	// detectMaven runs Maven offline (-o): the sandbox's tests have no
	// network, so the plugins must come from the image's repository.
	detectMaven = marker("pom.xml", mavenCommand, "maven: found pom.xml; runs offline (-o), Surefire's reports in target/surefire-reports give the per-test results")
)

// detectNode finds a package.json whose test script is not the placeholder
// "npm init" writes, run by the package manager its lock file names, and
// says whether the script runs Jest or Vitest.
func detectNode(fsys fs.FS, t *tree) (Detection, bool, error) {
	if !t.top["package.json"] {
		return Detection{}, false, nil
	}
	pkg, err := readPackageJSON(fsys)
	if err != nil {
		return Detection{}, false, err
	}
	test, _ := pkg.Scripts["test"].(string)
	if strings.TrimSpace(test) == "" || strings.Contains(test, "no test specified") {
		return Detection{}, false, nil
	}
	manager, lock := "npm", ""
	switch {
	case t.top["pnpm-lock.yaml"]:
		manager, lock = "pnpm", "pnpm-lock.yaml"
	case t.top["yarn.lock"]:
		manager, lock = "yarn", "yarn.lock"
	}
	reason := fmt.Sprintf("%s: package.json has scripts.test %q", manager, shorten(test, 60))
	if lock != "" {
		reason += " and " + lock + " is the lock file"
	}
	if runner, byDependency := nodeRunner(test, pkg.DevDependencies, pkg.Dependencies); runner != "" {
		reason += "; it runs " + runner
		if byDependency {
			reason += " (a dependency)"
		}
	}
	command := manager + " test"
	if manager == "yarn" && pkg.PackageManager != "" && !strings.HasPrefix(pkg.PackageManager, "yarn@1.") {
		// Yarn 1 refuses to run any script of a project whose
		// packageManager names another manager or version, unless
		// SKIP_YARN_COREPACK_CHECK is set (to anything).
		command = yarnSkipCheck + " " + command
		reason += fmt.Sprintf("; package.json's packageManager is %q, which the image's Yarn 1 refuses to run without %s", shorten(pkg.PackageManager, 40), yarnSkipCheck)
	}
	if flags, why := nodeReporterFlags(manager, test); flags != "" {
		command += flags
		reason += "; " + why
	} else if why != "" {
		reason += "; " + why
	}
	return Detection{command, reason}, true, nil
}

// yarnSkipCheck is the assignment that lets Yarn 1 run the scripts of a
// project whose package.json's packageManager names a later Yarn.
const yarnSkipCheck = "SKIP_YARN_COREPACK_CHECK=0"

// shellOperators are the characters by which a test script is more than
// one plain command.
const shellOperators = "&|;<>`$()"

// The files detection has Jest and Vitest write their JSON report to.
const (
	jestReport   = "capsule-jest.json"
	vitestReport = "capsule-vitest.json"
)

// nodeReporterFlags returns the words to add to `MANAGER test` so that the
// test script writes Jest's or Vitest's JSON report, and says so; or no
// words and why not, when the script is not one plain invocation of the
// runner (the manager adds the words to the script's end, so they would
// reach another command), or "" for other runners. npm and pnpm take the
// words after `--` (pnpm's test command reads options before it as its
// own, and refuses --json, --reporter and --outputFile); yarn 1 passes
// them on as they are and warns of a `--`.
func nodeReporterFlags(manager, script string) (flags, why string) {
	words := strings.Fields(script)
	// VAR=value, npx and cross-env before the runner
	for len(words) > 0 && (strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") || words[0] == "npx" || words[0] == "cross-env") {
		words = words[1:]
	}
	if len(words) == 0 {
		return "", ""
	}
	runner := path.Base(words[0])
	if runner == "node" {
		// node, its options, then the runner's script, which the
		// words after it reach (node_modules/jest/bin/jest.js).
		i := 1
		for i < len(words) && strings.HasPrefix(words[i], "-") {
			i++
		}
		for _, name := range []string{"jest", "vitest"} {
			if i < len(words) && slices.Contains(strings.Split(words[i], "/"), name) {
				runner, words = name, words[i:]
				break
			}
		}
	}
	var add, file string
	switch runner {
	case "jest":
		add, file = " --json --outputFile="+jestReport, jestReport
	case "vitest":
		if len(words) > 1 && (words[1] == "watch" || words[1] == "dev") {
			return "", "its JSON report is not asked for: the script runs Vitest in watch mode"
		}
		add, file = " --reporter=default --reporter=json --outputFile.json="+vitestReport, vitestReport
	default:
		// The runner, if the script names one, is not its first program.
		named, _ := nodeRunner(script)
		switch {
		case named == "":
			return "", ""
		case strings.ContainsAny(script, shellOperators):
			return "", "its JSON report is not asked for: the script is more than one plain " + named + " command, which options added to it would not reach"
		}
		return "", "its JSON report is not asked for: the script runs " + named + " through " + words[0] + ", which options added to it would reach first"
	}
	if strings.ContainsAny(script, shellOperators) {
		return "", "its JSON report is not asked for: the script is more than one plain " + runnerName[runner] + " command, which options added to it would not reach"
	}
	for _, w := range words[1:] {
		if w == "--json" || strings.HasPrefix(w, "--outputFile") || strings.HasPrefix(w, "--reporter") || strings.HasPrefix(w, "--reporters") || w == "--watch" || w == "--watchAll" {
			return "", "its JSON report is not asked for: the script already chooses its reporters or output, or watches"
		}
	}
	if manager == "npm" || manager == "pnpm" {
		add = " --" + add
	}
	return add, fmt.Sprintf("%s's JSON report is asked for with `%s`, and %s gives the per-test results", runnerName[runner], strings.TrimSpace(add), file)
}

// nodeRunner names the test runner a package's test script runs, Jest or
// Vitest, from the script or else (byDependency) the package's
// dependencies; "" when neither.
func nodeRunner(script string, deps ...map[string]any) (runner string, byDependency bool) {
	for _, name := range []string{"vitest", "jest"} {
		if slices.Contains(strings.Fields(script), name) || strings.Contains(script, "/"+name) {
			return runnerName[name], false
		}
	}
	for _, name := range []string{"vitest", "jest"} {
		for _, d := range deps {
			if _, ok := d[name]; ok {
				return runnerName[name], true
			}
		}
	}
	return "", false
}

// runnerName is how detection's reasons name the Node runners.
var runnerName = map[string]string{"vitest": "Vitest", "jest": "Jest"}

// detectGradle finds a Gradle build. Its wrapper downloads Gradle from
// services.gradle.org, which the sandbox cannot reach, so the reason says
// that no proof can be had offline.
func detectGradle(_ fs.FS, t *tree) (Detection, bool, error) {
	var found string
	for _, name := range []string{"build.gradle.kts", "build.gradle", "settings.gradle.kts", "settings.gradle"} {
		if t.top[name] {
			found = name
			break
		}
	}
	if found == "" {
		return Detection{}, false, nil
	}
	return Detection{gradleCommand, "gradle: found " + found + "; the proof is unavailable offline: Gradle and its wrapper download from services.gradle.org, which the sandbox cannot reach, so the run will most likely fail before any test"}, true, nil
}
