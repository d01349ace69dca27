package edits

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestInfrastructureChange(t *testing.T) {
	const (
		tox       = "[tox]\nenvlist = py312\n\n[testenv]\ncommands = pytest\n\n[pytest]\naddopts = -ra\n# a comment\n\n[flake8]\nmax-line-length = 100\n"
		setupCfg  = "[metadata]\nname = calc\n\n[options.entry_points]\nconsole_scripts =\n    calc = calc.cli:main\n\n[tool:pytest]\ntestpaths = tests\n"
		pyproject = "[project]\nname = \"calc\"\nversion = \"1.0\"\n\n[tool.pytest.ini_options]\naddopts = \"-ra\"\n\n[tool.black]\nline-length = 100\n"
		module    = "import os\n\n\ndef add(a, b):\n    return a + b\n"
		plugins   = "pytest_plugins = [\n    \"tests.fixtures\",\n]\n\n\ndef test_x():\n    pass\n"
	)
	checkInfrastructureChanges(t, []infrastructureCase{
		{"new conftest", "tests/conftest.py", "-", "import pytest\n", "tests/conftest.py"},
		{"changed conftest", "conftest.py", "x = 1\n", "x = 2\n", "conftest.py"},
		{"deleted conftest", "a/b/conftest.py", "x = 1\n", "-", "a/b/conftest.py"},
		{"conftest as it was", "conftest.py", "x = 1\n", "x = 1\n", ""},
		{"sitecustomize anywhere", "src/sitecustomize.py", "-", "import os\n", "src/sitecustomize.py"},
		{"usercustomize", "usercustomize.py", "-", "import os\n", "usercustomize.py"},
		{"pth file", "lib/site-packages/evil.pth", "-", "import os\n", "lib/site-packages/evil.pth"},
		{"new pytest.ini", "pytest.ini", "-", "[pytest]\n", "pytest.ini"},
		{"hidden pytest.ini", "sub/.pytest.ini", "-", "[pytest]\n", "sub/.pytest.ini"},
		{"pytest.toml", "pytest.toml", "-", "[pytest]\n", "pytest.toml"},

		{"tox: pytest section", "tox.ini", tox, strings.Replace(tox, "-ra", "-p evil", 1), "the [pytest] section of tox.ini"},
		{"tox: testenv commands", "tox.ini", tox, strings.Replace(tox, "commands = pytest", "commands = true", 1), "the [testenv] section of tox.ini"},
		{"tox: new testenv", "tox.ini", tox, tox + "[testenv:lint]\ncommands = true\n", "the [testenv:lint] section of tox.ini"},
		{"tox: other section", "tox.ini", tox, strings.Replace(tox, "100", "120", 1), ""},
		{"tox: comments and blank lines", "tox.ini", tox, strings.Replace(tox, "# a comment\n", "; another\n\n\n", 1), ""},
		{"tox: new file without runner sections", "tox.ini", "-", "[flake8]\nmax-line-length = 100\n", ""},
		{"tox: new file with pytest", "sub/tox.ini", "-", "[pytest]\naddopts = -p evil\n", "the [pytest] section of sub/tox.ini"},
		{"tox: deleted", "tox.ini", tox, "-", "the [pytest] section of tox.ini"},
		{"tox: new empty pytest section", "sub/tox.ini", "[flake8]\n", "[pytest]\n[flake8]\n", "the [pytest] section of sub/tox.ini"},
		{"tox: section case", "tox.ini", tox, tox + "[PyTest]\naddopts = -x\n", "the [PyTest] section of tox.ini"},

		{"setup.cfg: tool:pytest", "setup.cfg", setupCfg, strings.Replace(setupCfg, "tests", "nowhere", 1), "the [tool:pytest] section of setup.cfg"},
		{"setup.cfg: metadata", "setup.cfg", setupCfg, strings.Replace(setupCfg, "name = calc", "name = calculator", 1), ""},
		{"setup.cfg: console script", "setup.cfg", setupCfg, strings.Replace(setupCfg, "calc.cli:main", "calc.cli:run", 1), ""},
		{"setup.cfg: pytest11 entry point", "setup.cfg", setupCfg, strings.Replace(setupCfg, "console_scripts =", "pytest11 =\n    evil = calc.evil\nconsole_scripts =", 1), "the pytest11 entry points in [options.entry_points] of setup.cfg"},
		{"setup.cfg: indented header", "setup.cfg", setupCfg, setupCfg + "  [pytest]\n  addopts = -p evil\n", "the [pytest] section of setup.cfg"},

		{"pyproject: pytest options", "pyproject.toml", pyproject, strings.Replace(pyproject, `"-ra"`, `"-p evil"`, 1), "the [tool.pytest] table of pyproject.toml"},
		{"pyproject: project version", "pyproject.toml", pyproject, strings.Replace(pyproject, "1.0", "1.1", 1), ""},
		{"pyproject: other tool", "pyproject.toml", pyproject, strings.Replace(pyproject, "100", "120", 1), ""},
		{"pyproject: same table, other spelling", "pyproject.toml", pyproject, "[project]\nname = \"calc\"\nversion = \"1.0\"\ntool.pytest.ini_options = { addopts = \"-ra\" }\n" + "[tool.black]\nline-length = 100\n", "the [tool.pytest] table of pyproject.toml"},
		{"pyproject: dotted key at the top", "pyproject.toml", pyproject, "tool.pytest.ini_options.addopts = \"-p evil\"\n", "the [tool.pytest] table of pyproject.toml"},
		{"pyproject: tox", "pyproject.toml", pyproject, pyproject + "[tool.tox]\nlegacy_tox_ini = \"\"\n", "the [tool.tox] table of pyproject.toml"},
		{"pyproject: pytest11 entry point", "pyproject.toml", pyproject, pyproject + "[project.entry-points.pytest11]\nevil = \"calc.evil\"\n", "the [project.entry-points.pytest11] table of pyproject.toml"},
		{"pyproject: broken", "pyproject.toml", pyproject, pyproject + "[tool.pytest\n", "pyproject.toml"},
		{"pyproject: new without pytest", "pyproject.toml", "-", "[project]\nname = \"x\"\n", ""},

		{"module", "calc/ops.py", module, strings.Replace(module, "a + b", "a - b", 1), ""},
		{"new module", "calc/new.py", "-", module, ""},
		{"new test with plugins", "tests/test_x.py", "-", plugins, "pytest_plugins in tests/test_x.py"},
		{"plugins changed", "tests/test_x.py", plugins, strings.Replace(plugins, "fixtures", "evil", 1), "pytest_plugins in tests/test_x.py"},
		{"plugins kept", "tests/test_x.py", plugins, strings.Replace(plugins, "pass", "assert True", 1), ""},
		{"plugins on one line", "calc/x.py", module, module + "pytest_plugins = 'evil'\n", "pytest_plugins in calc/x.py"},
		{"plugins mentioned in a string", "calc/x.py", "-", "def f():\n    return 'pytest_plugins'\n", ""},
		{"not Python", "README.md", "-", "pytest_plugins = evil\n", ""},
	})
}

// infrastructureCase is an edit of one file and what it changes of the
// test infrastructure.
type infrastructureCase struct {
	name     string
	path     string
	old, new string // "-" stands for no file
	what     string // "" when the edit leaves the infrastructure alone
}

// checkInfrastructureChanges runs infrastructureChange on each case.
func checkInfrastructureChanges(t *testing.T, tests []infrastructureCase) {
	t.Helper()
	content := func(s string) []byte {
		if s == "-" {
			return nil
		}
		return []byte(s)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			what, why := infrastructureChange(tt.path, content(tt.old), content(tt.new))
			if what != tt.what {
				t.Errorf("infrastructureChange = %q (%s), want %q", what, why, tt.what)
			}
			if (what == "") != (why == "") {
				t.Errorf("infrastructureChange = %q, %q: want both or neither", what, why)
			}
		})
	}
}

func TestIsTestInfrastructure(t *testing.T) {
	for p, want := range map[string]bool{
		"conftest.py": true, "tests/unit/conftest.py": true, "sitecustomize.py": true, "lib/x.pth": true,
		"pytest.ini": true, "a/.pytest.ini": true,
		"setup.cfg": false, "tox.ini": false, "pyproject.toml": false, "calc/conftest_helpers.py": false, "tests/test_x.py": false,
	} {
		if got := IsTestInfrastructure(p); got != want {
			t.Errorf("IsTestInfrastructure(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestCheckTestInfrastructure runs the rule through Check on a real tree:
// refused by default, also through a directory link, and allowed when the
// rules say so.
func TestCheckTestInfrastructure(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	writeTree(t, repo, map[string]file{
		"calc.py":            {content: "X = 1\n"},
		"tests/test_calc.py": {content: "def test(): pass\n"},
		"tests/conftest.py":  {content: "import pytest\n"},
		"tox.ini":            {content: "[pytest]\naddopts = -ra\n\n[flake8]\nmax-line-length = 100\n"},
	})
	symlink(t, "tests", filepath.Join(repo, "t"))
	edits := []Edit{
		{Path: "tests/conftest.py", Content: "import pytest\n\n\ndef pytest_runtest_makereport(item, call):\n    pass\n"},
		{Path: "t/sub/conftest.py", Content: "import pytest\n"},
		{Path: "tox.ini", Content: "[pytest]\naddopts = -p evil\n\n[flake8]\nmax-line-length = 100\n"},
		{Path: "calc.py", Content: "X = 2\n"},
	}
	accepted, refused := Check(repo, edits, Rules{})
	wantRefused := []Refusal{
		{"tests/conftest.py", "you may not modify tests/conftest.py, which is test infrastructure: pytest loads every conftest.py as a plugin that can decide how each test ends; fix the code, not the tests", true},
		{"t/sub/conftest.py", "you may not add tests/sub/conftest.py, which is test infrastructure: pytest loads every conftest.py as a plugin that can decide how each test ends; fix the code, not the tests", true},
		{"tox.ini", "you may not modify the [pytest] section of tox.ini, which is test infrastructure: it holds the test runner's settings (the rest of the file may change); fix the code, not the tests", true},
	}
	if !reflect.DeepEqual(refused, wantRefused) || !reflect.DeepEqual(accepted, edits[3:]) {
		t.Errorf("Check = %+v\n%+v\nwant %+v\n%+v", accepted, plain(refused), edits[3:], plain(wantRefused))
	}

	accepted, refused = Check(repo, edits, Rules{AllowTestInfrastructure: true})
	if len(refused) != 0 || len(accepted) != 4 || accepted[2].Path != "tests/sub/conftest.py" {
		t.Errorf("Check with AllowTestInfrastructure = %+v, %+v; want all four accepted", accepted, plain(refused))
	}

	// The repository's own protected patterns do not lift the rule.
	accepted, refused = Check(repo, edits[1:2], Rules{Protected: func(string) (string, bool) { return "", false }})
	if len(accepted) != 0 || len(refused) != 1 {
		t.Errorf("Check with nothing protected = %+v, %+v; want the conftest refused", accepted, plain(refused))
	}
}

// TestCheckSymlinkedForbiddenPaths checks every rule on the path resolved
// through real symbolic links: single links, chains, links inside
// subdirectories and links whose names hide what they point to.
func TestCheckSymlinkedForbiddenPaths(t *testing.T) {
	repo := testRepo(t)
	for name, target := range map[string]string{
		"ghlink":          ".github",
		"GHLINK2":         "ghlink",     // a chain: GHLINK2 -> ghlink -> .github
		"chain1":          "chain2",     // a longer chain into tests/
		"chain2":          "testlink",   //
		"docs/up":         "..",         // back to the root from below
		"docs/tests":      "../tests",   // a name that looks harmless
		"docs/gh":         "../.GitHub", // another case of .github, dangling on Linux
		"conf.py":         "tests/test_calc.py",
		"docs/nested/ci":  "../../.github/workflows",
		"docs/nested/git": "../../gitlink",
	} {
		writeTree(t, repo, map[string]file{filepath.Dir(name) + "/.keep": {}})
		symlink(t, target, filepath.Join(repo, name))
	}
	tests := []struct {
		path, reason string
	}{
		{"ghlink/workflows/evil.yml", "ghlink/workflows/evil.yml leads to .github/workflows/evil.yml through a symbolic link, and .github/workflows/evil.yml is under .github/, whose workflows and settings are off limits"},
		{"ghlink/workflows/ci.yml", "ghlink/workflows/ci.yml leads to .github/workflows/ci.yml through a symbolic link, and .github/workflows/ci.yml is under .github/, whose workflows and settings are off limits"},
		{"GHLINK2/workflows/evil.yml", "GHLINK2/workflows/evil.yml leads to .github/workflows/evil.yml through a symbolic link, and .github/workflows/evil.yml is under .github/, whose workflows and settings are off limits"},
		{"docs/up/.github/new.yml", "docs/up/.github/new.yml leads to .github/new.yml through a symbolic link, and .github/new.yml is under .github/, whose workflows and settings are off limits"},
		{"docs/nested/ci/evil.yml", "docs/nested/ci/evil.yml leads to .github/workflows/evil.yml through a symbolic link, and .github/workflows/evil.yml is under .github/, whose workflows and settings are off limits"},
		{"docs/nested/git/hooks/pre-commit", "docs/nested/git/hooks/pre-commit leads to .git/hooks/pre-commit through a symbolic link, and .git/hooks/pre-commit is inside .git"},
		{"chain1/test_calc.py", `you may not modify tests/test_calc.py (protected by "tests/**"); fix the code, not the tests`},
		{"docs/tests/test_calc.py", `you may not modify tests/test_calc.py (protected by "tests/**"); fix the code, not the tests`},
		{"chain1/conftest.py", "you may not add tests/conftest.py, which is test infrastructure: pytest loads every conftest.py as a plugin that can decide how each test ends; fix the code, not the tests"},
		{"docs/up/sitecustomize.py", "you may not add sitecustomize.py, which is test infrastructure: Python runs sitecustomize.py at start-up, before any test; fix the code, not the tests"},
		{"conf.py", "conf.py is a symbolic link to tests/test_calc.py; write that file instead"},
		{"docs/gh/workflows/evil.yml", "docs/gh/workflows/evil.yml goes through a symbolic link that cannot be resolved"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			accepted, refused := Check(repo, []Edit{{Path: tt.path, Content: "x = 1\n"}}, Rules{Protected: protectTests})
			want := []pathReason{{tt.path, tt.reason}}
			if len(accepted) != 0 || !reflect.DeepEqual(plain(refused), want) {
				t.Errorf("Check = %+v, %+v\nwant the refusal %+v", accepted, plain(refused), want)
			}
		})
	}
	// A link to a directory that breaks no rule still works.
	accepted, refused := Check(repo, []Edit{{Path: "chain1/test_new.py", Content: "def test(): pass\n"}}, Rules{Protected: protectTests})
	if len(refused) != 0 || len(accepted) != 1 || accepted[0].Path != "tests/test_new.py" {
		t.Errorf("Check through a chain to tests/ = %+v, %+v; want tests/test_new.py accepted", accepted, plain(refused))
	}
}
