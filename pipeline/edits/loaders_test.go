package edits

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/pynames"
)

// loaderRepo is a repository with a src/ layout, a package with tests
// beside it, a tests/ directory without __init__.py, and files named like
// modules the test run imports: its own, which stay.
func loaderRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	writeTree(t, repo, map[string]file{
		"src/mypkg/__init__.py":        {content: ""},
		"src/mypkg/core.py":            {content: "X = 1\n"},
		"src/mypkg/tests/__init__.py":  {content: ""},
		"src/mypkg/tests/test_core.py": {content: "def test(): pass\n"},
		"src/_pytest/__init__.py":      {content: ""},
		"tests/test_calc.py":           {content: "def test(): pass\n"},
		"checks/check_x.py":            {content: "X = 1\n"},
		"py.py":                        {content: "# the repository's own\n"},
		"lib/__init__.py":              {content: ""},
		"lib/json.py":                  {content: "X = 1\n"},
		"x-0.9.dist-info/METADATA":     {content: "Name: x\n"},
	})
	return repo
}

func TestCheckLoaders(t *testing.T) {
	repo := loaderRepo(t)
	names := pynames.Set{"json": true, "pytest": true, "_pytest": true, "py": true, "capsule_testreport": true, "email": true, "test": true}
	tests := []struct {
		name  string
		edits []Edit
		rules Rules
		why   string // a substring of the only refusal; "" when all are accepted
	}{
		// Attack 5: a root pytest.py that python3 -m pytest runs instead.
		{name: "root pytest.py", edits: []Edit{{Path: "pytest.py", Content: "import sys\nsys.exit(0)\n"}},
			why: `as the module pytest.py in the repository root, a top level of Python's import path in the test run, it would stand in for the test runner's own module "pytest"`},
		// Attack 4: the plugin's module.
		{name: "root capsule_testreport.py", edits: []Edit{{Path: "capsule_testreport.py", Content: "x = 1\n"}},
			why: `the test runner's own module "capsule_testreport"`},
		{name: "standard library module in src/", edits: []Edit{{Path: "src/json.py", Content: "x = 1\n"}},
			why: `as the module json.py in src/ (a directory that is not a package)`},
		{name: "standard library module beside the tests", edits: []Edit{{Path: "tests/email.py", Content: "x = 1\n"}},
			why: `the module "email" that the test run's Python provides`},
		{name: "new package of the runner's name", edits: []Edit{{Path: "pytest/__init__.py", Content: "x = 1\n"}},
			why: `as the package pytest/ in the repository root`},
		{name: "new namespace package of a stdlib name", edits: []Edit{{Path: "tests/json/decoder.py", Content: "x = 1\n"}},
			why: `as the package json/ in tests/`},
		{name: "inside a package: allowed", edits: []Edit{{Path: "src/mypkg/json.py", Content: "x = 1\n"}}},
		{name: "a package made by the same answer: allowed", edits: []Edit{{Path: "newpkg/__init__.py", Content: ""}, {Path: "newpkg/json.py", Content: "x = 1\n"}}},
		{name: "the repository's own module: allowed", edits: []Edit{{Path: "py.py", Content: "# changed\n"}}},
		{name: "the repository's own package: allowed", edits: []Edit{{Path: "src/_pytest/newmod.py", Content: "x = 1\n"}}},
		{name: "not Python: allowed", edits: []Edit{{Path: "json.txt", Content: "{}\n"}, {Path: "pytest/README", Content: "x\n"}}},
		{name: "other names: allowed", edits: []Edit{{Path: "helpers.py", Content: "x = 1\n"}, {Path: "tests/test_new.py", Content: "def test(): pass\n"}}},
		{name: "names from the fallback when none are given", edits: []Edit{{Path: "src/os.py", Content: "x = 1\n"}}, rules: Rules{Importable: nil},
			why: `the module "os"`},
		{name: "AllowTestInfrastructure lifts it", edits: []Edit{{Path: "pytest.py", Content: "x = 1\n"}}, rules: Rules{Importable: names, AllowTestInfrastructure: true}},
		{name: "deleting __init__.py exposes a module", edits: []Edit{{Path: "lib/__init__.py", Delete: true}},
			why: `its json.py would stand in for the module "json"`},

		// Attack 6 and the other files that make pytest load code.
		{name: "dist-info entry points", edits: []Edit{{Path: "x-1.0.dist-info/entry_points.txt", Content: "[pytest11]\nx = x\n"}},
			why: "it is package metadata (x-1.0.dist-info/), whose entry points make pytest load plugins on its own"},
		{name: "dist-info metadata", edits: []Edit{{Path: "src/x-1.0.dist-info/METADATA", Content: "Name: x\n"}},
			why: "it is package metadata (x-1.0.dist-info/)"},
		{name: "the repository's dist-info changed", edits: []Edit{{Path: "x-0.9.dist-info/METADATA", Content: "Name: y\n"}},
			why: "you may not modify x-0.9.dist-info/METADATA, which is test infrastructure"},
		{name: "egg-info", edits: []Edit{{Path: "x.egg-info/entry_points.txt", Content: "[pytest11]\nx = x\n"}},
			why: "x.egg-info/"},
		{name: "egg-info file", edits: []Edit{{Path: "x.egg-info", Content: "Name: x\n"}},
			why: "it is package metadata"},
		{name: "entry_points.txt anywhere", edits: []Edit{{Path: "data/entry_points.txt", Content: "[pytest11]\nx = x\n"}},
			why: "it declares entry points"},
		{name: ".pth", edits: []Edit{{Path: "src/x.pth", Content: "import x\n"}}, why: "Python runs .pth files at start-up"},
		{name: "sitecustomize", edits: []Edit{{Path: "sitecustomize.py", Content: "import x\n"}}, why: "Python runs sitecustomize.py at start-up"},
		{name: "conftest anywhere", edits: []Edit{{Path: "src/mypkg/conftest.py", Content: "x = 1\n"}}, why: "pytest loads every conftest.py"},

		// Attack 7: an __init__.py in a directory of tests.
		{name: "new tests/__init__.py", edits: []Edit{{Path: "tests/__init__.py", Content: "import sys\n"}},
			why: "you may not add tests/__init__.py, which is test infrastructure: pytest runs the __init__.py of a directory of tests"},
		{name: "changed __init__.py of a test package", edits: []Edit{{Path: "src/mypkg/tests/__init__.py", Content: "import sys\n"}},
			why: "you may not modify src/mypkg/tests/__init__.py"},
		{name: "deleted __init__.py of a test package", edits: []Edit{{Path: "src/mypkg/tests/__init__.py", Delete: true}},
			why: "you may not delete src/mypkg/tests/__init__.py"},
		{name: "__init__.py beside a new test file", edits: []Edit{{Path: "checks/__init__.py", Content: ""}, {Path: "checks/test_x.py", Content: "def test(): pass\n"}},
			why: "you may not add checks/__init__.py"},
		{name: "__init__.py beside the job's test file", edits: []Edit{{Path: "__init__.py", Content: ""}},
			rules: Rules{Importable: names, Reserved: []string{"test_capsule_reproduction.py"}}, why: "you may not add __init__.py"},
		{name: "__init__.py of a package without tests: allowed", edits: []Edit{{Path: "src/mypkg/__init__.py", Content: "from .core import X\n"}}},
		{name: "__init__.py of a test package unchanged: allowed", edits: []Edit{{Path: "src/mypkg/tests/__init__.py", Content: ""}}},
		{name: "__init__.py of a directory without tests: allowed", edits: []Edit{{Path: "checks/__init__.py", Content: ""}}},

		// A path the job needs for the reproducing test.
		{name: "a directory at the reproducing test's path", edits: []Edit{{Path: "tests/test_capsule_reproduction.py/x.py", Content: "x = 1\n"}},
			rules: Rules{Importable: names, Reserved: []string{"tests/test_capsule_reproduction.py"}},
			why:   "it would make a directory of tests/test_capsule_reproduction.py, the file of the test that shows the issue"},
		{name: "a file where the reproducing test's directory goes", edits: []Edit{{Path: "newtests", Content: "x = 1\n"}},
			rules: Rules{Importable: names, Reserved: []string{"newtests/test_capsule_reproduction.py"}},
			why:   "the test that shows the issue goes in newtests/, which must stay a directory"},
		{name: "the reproducing test itself", edits: []Edit{{Path: "tests/test_capsule_reproduction.py", Content: "x = 1\n"}},
			rules: Rules{Importable: names, Reserved: []string{"tests/test_capsule_reproduction.py"}, AllowTestInfrastructure: true},
			why:   "the job writes it itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules := tt.rules
			if rules.Importable == nil && rules.Reserved == nil && !rules.AllowTestInfrastructure && !strings.Contains(tt.name, "fallback") {
				rules.Importable = names
			}
			accepted, refused := Check(repo, tt.edits, rules)
			if tt.why == "" {
				if len(refused) != 0 || len(accepted) != len(tt.edits) {
					t.Fatalf("Check = %+v, %+v; want all accepted", accepted, plain(refused))
				}
				return
			}
			var hit []Refusal
			for _, r := range refused {
				if strings.Contains(r.Reason, tt.why) {
					hit = append(hit, r)
				}
			}
			if len(hit) != 1 || len(refused) != 1 {
				t.Fatalf("refused = %q; want one refusal saying %q", plain(refused), tt.why)
			}
			if wantInfra := !strings.Contains(tt.name, "reproducing test"); hit[0].Infrastructure != wantInfra {
				t.Errorf("Infrastructure = %v, want %v", hit[0].Infrastructure, wantInfra)
			}
		})
	}
}
