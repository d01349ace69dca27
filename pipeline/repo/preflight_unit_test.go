package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/gate"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
)

// TestBaselineFailure tells a test command the environment cannot run
// from one that runs and fails, from its exit status, output and report
// alone.
func TestBaselineFailure(t *testing.T) {
	own := func(name string) bool { return name == "calc" || name == "tests" }
	ran := &testreport.Report{Tests: map[gate.ID]testreport.Result{{File: "tests/test_a.py", Name: "test_a"}: {Outcome: testreport.Passed}}}
	collectErr := &testreport.Report{Tests: map[gate.ID]testreport.Result{}, Processes: []testreport.Process{{Ended: true, ExitStatus: 2,
		CollectErrors: []testreport.CollectError{{Path: "tests/test_a.py", Message: "ModuleNotFoundError: No module named 'yaml.loader'"}}}}}
	tests := []struct {
		name   string
		runner testreport.Runner
		code   int
		out    string
		rep    *testreport.Report
		want   string // what the failure says; "" for none
	}{
		{"dash: command not found", testreport.PytestRunner, 127, "sh: 1: pytest: not found\n", nil, "`pytest` was not found (exit status 127)"},
		{"bash: command not found", testreport.OtherRunner, 127, "bash: line 1: tox: command not found\n", nil, "`tox` was not found (exit status 127)"},
		{"a wrapper's own status", testreport.OtherRunner, 1, "> test\n> jest\n\nsh: 1: jest: not found\n", nil, "`jest` was not found (exit status 1)"},
		{"127 unexplained", testreport.OtherRunner, 127, "", nil, "a command it runs was not found (exit status 127)"},
		{"no runner", testreport.PytestRunner, 1, "/usr/bin/python3: No module named pytest\n", nil, "Python has no module `pytest`: the test runner is not installed"},
		{"nothing collected", testreport.PytestRunner, 5, "\nno tests ran in 0.01s\n", nil, "nothing was collected (exit status 5)"},
		{"nothing collected under make", testreport.OtherRunner, 2, "make: *** [test] Error 5\n",
			&testreport.Report{Tests: map[gate.ID]testreport.Result{}, Processes: []testreport.Process{{Ended: true, ExitStatus: 5}}}, "nothing was collected (exit status 2)"},
		{"unittest ran none", testreport.UnittestRunner, 5, "\n----\nRan 0 tests in 0.000s\n\nNO TESTS RAN\n", nil, "nothing was collected"},
		{"path not there", testreport.PytestRunner, 4, "ERROR: file or directory not found: tests/unit\n", nil, "names a path that is not there: tests/unit"},
		{"third-party module", testreport.PytestRunner, 2, "E   ModuleNotFoundError: No module named 'requests'\n1 error in 0.1s\n", nil,
			"Python module `requests` is not installed (ModuleNotFoundError), and it is not part of the repository"},
		{"third-party submodule, from the report", testreport.PytestRunner, 2, "1 error in 0.1s\n", collectErr, "Python module `yaml` is not installed"},
		{"the repository's own module", testreport.PytestRunner, 2, "E   ModuleNotFoundError: No module named 'calc.nothere'\n", nil, ""},
		{"own first, then third-party", testreport.PytestRunner, 2, "No module named 'calc.x'\nModuleNotFoundError: No module named 'calc.x'\nModuleNotFoundError: No module named 'numpy'\n", nil, "`numpy`"},
		{"an import error that is not a missing module", testreport.PytestRunner, 2, "E   ImportError: cannot import name 'x' from 'calc'\n", nil, ""},
		{"a syntax error", testreport.PytestRunner, 2, "E   SyntaxError: invalid syntax\n", nil, ""},
		{"tests ran and some failed on a missing module", testreport.PytestRunner, 1, "ModuleNotFoundError: No module named 'requests'\n", ran, ""},
		{"tests ran, then 127", testreport.OtherRunner, 127, "sh: 1: lint: not found\n", ran, ""},
		{"tests fail", testreport.PytestRunner, 1, "1 failed, 2 passed\n", nil, ""},
		{"passes", testreport.PytestRunner, 0, "no tests ran\n", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := testRun{res: sandbox.Result{ExitCode: tt.code, Stdout: []byte(tt.out)}, gate: gate.Run{Report: tt.rep}}
			e := baselineFailure(Plan{TestCommand: "the command"}, tt.runner, tr, own)
			switch {
			case tt.want == "" && e != nil:
				t.Fatalf("a failure of the environment: %+v", e)
			case tt.want == "":
			case e == nil:
				t.Fatalf("no failure of the environment, want %q", tt.want)
			case !strings.Contains(e.What, tt.want):
				t.Errorf("What = %q, want %q in it", e.What, tt.want)
			case e.Phase != "baseline" || e.Command != "the command" || e.Fix == "" || e.Tail != strings.TrimRight(tt.out, "\n"):
				t.Errorf("failure = %+v", e)
			}
		})
	}
}

// TestOwnModules claims the repository's packages, namespace packages and
// modules at any depth, and nothing of a virtual environment or a hidden
// directory.
func TestOwnModules(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"src/pkg/__init__.py", "tests/helpers.py", "ns/sub/mod.py", "setup.py",
		".venv/lib/site-packages/requests/__init__.py", "env/pyvenv.cfg", "env/lib/yaml/__init__.py", ".hidden/numpy.py"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	own := ownModules(dir)
	for name, want := range map[string]bool{"pkg": true, "src": true, "helpers": true, "ns": true, "sub": true, "mod": true, "setup": true,
		"requests": false, "yaml": false, "numpy": false, "lib": false, "env": false, "pytest": false} {
		if got := own(name); got != want {
			t.Errorf("own(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestTail keeps the last lines of a long output, within its byte bound.
func TestTail(t *testing.T) {
	var lines []string
	for i := range 50 {
		lines = append(lines, strings.Repeat("x", i))
	}
	got := tail(strings.Join(lines, "\n") + "\n")
	if want := strings.Join(lines[30:], "\n"); got != want {
		t.Errorf("tail = %q, want %q", got, want)
	}
	if got := tail(strings.Repeat("é", 3000)); len(got) > tailBytes || !strings.HasSuffix(got, "é") {
		t.Errorf("tail of a long line: %d bytes", len(got))
	}
}
