package testreport

import (
	"slices"
	"strings"
	"testing"
)

func TestGoTestJSON(t *testing.T) {
	for _, tc := range []struct {
		cmd, want string
		ok        bool
	}{
		{"go test ./...", "go test -json ./...", true},
		{"  go test -race -count=1 ./pkg/... ", "go test -json -race -count=1 ./pkg/...", true},
		{"CGO_ENABLED=0 go test -run 'TestA|TestB' ./...", "CGO_ENABLED=0 go test -json -run 'TestA|TestB' ./...", true},
		{"go test -v ./... -args -json=false", "go test -json -v ./... -args -json=false", true},
		{"go test -json ./...", "go test -json ./...", true},
		{"go test --json=true ./...", "go test --json=true ./...", true},
		{"go test -json=false ./...", "", false},
		{"go test -c ./pkg", "", false},
		{"go test -o bin/t.test ./pkg", "", false},
		{"go test -list . ./...", "", false},
		{"go test ./... | go-junit-report", "", false},
		{"go test ./... > out.txt", "", false},
		{"go vet ./... && go test ./...", "", false},
		{"go test $PKGS", "", false},
		{`go test "$(go list ./...)"`, "", false},
		{"go test ./*/", "", false},
		{"go build ./...", "", false},
		{"make test", "", false},
		{"go test 'unclosed", "", false},
		{"", "", false},
	} {
		got, ok := GoTestJSON(tc.cmd)
		if got != tc.want || ok != tc.ok {
			t.Errorf("GoTestJSON(%q) = %q, %v; want %q, %v", tc.cmd, got, ok, tc.want, tc.ok)
		}
	}
}

func TestUnittestAsPytest(t *testing.T) {
	files := []string{"tests/test_ops.py", "test_top.py", "pkg/tests/test_deep.py"}
	isFile := func(p string) bool { return slices.Contains(files, p) }
	const only = " -o python_classes= -o python_functions="
	for _, tc := range []struct {
		cmd, want string
		ok        bool
	}{
		{"python -m unittest", "python -m pytest -o 'python_files=test*.py'" + only + " .", true},
		{"python3 -m unittest -v", "python3 -m pytest -o 'python_files=test*.py'" + only + " -v .", true},
		{"python3.11 -m unittest discover", "python3.11 -m pytest -o 'python_files=test*.py'" + only + " .", true},
		{"python -m unittest discover -s tests -p '*_test.py' -f", "python -m pytest -o 'python_files=*_test.py'" + only + " -x tests", true},
		{"python -m unittest discover tests 'check_*.py'", "python -m pytest -o 'python_files=check_*.py'" + only + " tests", true},
		{"PYTHONHASHSEED=0 python -m unittest -q -b tests.test_ops", "PYTHONHASHSEED=0 python -m pytest -o 'python_files=test*.py'" + only + " -q tests/test_ops.py", true},
		{"python -m unittest tests.test_ops.TestDivide.test_zero", "python -m pytest -o 'python_files=test*.py'" + only + " tests/test_ops.py::TestDivide::test_zero", true},
		{"python -m unittest tests/test_ops.py test_top", "python -m pytest -o 'python_files=test*.py'" + only + " tests/test_ops.py test_top.py", true},
		{"python -m unittest pkg.tests.test_deep.TestX", "python -m pytest -o 'python_files=test*.py'" + only + " pkg/tests/test_deep.py::TestX", true},
		{"python -m unittest discover tests test*.py ..", "", false},
		{"python -m unittest discover -t . -s tests", "", false},
		{"python -m unittest -k divide", "", false},
		{"python -m unittest tests", "", false},
		{"python -m unittest tests.test_missing", "", false},
		{"python -m unittest tests/test_missing.py", "", false},
		{"python -m unittest tests.test_ops.A.b.c", "", false},
		{"python -m unittest tests.test_ops -s tests", "", false},
		{"cd src && python -m unittest", "", false},
		{"python -m pytest", "", false},
		{"python -m unittest discover -s", "", false},
		{"python setup.py test", "", false},
		{"pypy -m unittest", "", false},
	} {
		got, ok := UnittestAsPytest(tc.cmd, isFile)
		if got != tc.want || ok != tc.ok {
			t.Errorf("UnittestAsPytest(%q) =\n  %q, %v; want\n  %q, %v", tc.cmd, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSplitJoinWords(t *testing.T) {
	for _, words := range [][]string{
		{"go", "test", "-run", "TestA|TestB", "./..."},
		{"a b", "it's", "", "x=*.py"},
	} {
		got, ok := splitWords(joinWords(words))
		if !ok || !slices.Equal(got, words) {
			t.Errorf("splitWords(joinWords(%q)) = %q, %v", words, got, ok)
		}
	}
}

func TestPlan(t *testing.T) {
	isFile := func(string) bool { return false }
	for _, tc := range []struct {
		cmd, want string
		goJSON    bool
		runner    Runner
	}{
		{"go test ./...", "go test -json ./...", true, GoRunner},
		{"python -m unittest", "python -m pytest -o 'python_files=test*.py' -o python_classes= -o python_functions= .", false, UnittestRunner},
		{"python -m unittest discover -k fast", "python -m unittest discover -k fast", false, UnittestRunner},
		{"pytest -q", "pytest -q", false, PytestRunner},
		{"tox -e pytest-unittest", "tox -e pytest-unittest", false, PytestRunner},
		{"npm test", "npm test", false, OtherRunner},
		{"go test ./... | tee log", "go test ./... | tee log", false, OtherRunner},
	} {
		p := NewPlan(tc.cmd, isFile)
		if p.Command != tc.want || p.GoJSON != tc.goJSON || p.Runner != tc.runner || !strings.Contains(p.Note, "`"+tc.want+"`") {
			t.Errorf("NewPlan(%q) = %+v; want %q, GoJSON %v, runner %s", tc.cmd, p, tc.want, tc.goJSON, tc.runner)
		}
	}
	goEvents := []byte(`{"Action":"start","Package":"p"}` + "\n" + `{"Action":"run","Package":"p","Test":"TestA"}` + "\n" +
		`{"Action":"pass","Package":"p","Test":"TestA"}` + "\n" + `{"Action":"pass","Package":"p"}` + "\n")
	pytestRecords := []byte(new(wire).line(1, 1, `{"kind": "start", "rootdir": "/w"}`).
		line(1, 1, `{"kind": "test", "file": "t.py", "name": "test_a", "outcome": "passed"}`).String())
	if rep := NewPlan("go test ./...", isFile).Parse(Output{Channel: pytestRecords, Stdout: goEvents}, "/w"); len(rep.Tests) != 1 || !rep.Complete() {
		t.Errorf("go plan read %+v", rep)
	}
	if rep := NewPlan("pytest", isFile).Parse(Output{Channel: pytestRecords, Stdout: goEvents}, "/w"); rep.Tests[ID{File: "t.py", Name: "test_a"}].Outcome != Passed {
		t.Errorf("pytest plan read %+v", rep)
	}
	junit := map[string][]byte{"target/surefire-reports/TEST-a.xml": []byte(`<testsuite name="a.T"><testcase classname="a.T" name="t"><failure/></testcase></testsuite>`)}
	mvn := NewPlan("mvn -o test", isFile).WithReports([]string{"**/target/surefire-reports/TEST-*.xml"}, "where Maven Surefire writes them by default")
	if !strings.Contains(mvn.Note, "else from the report files **/target/surefire-reports/TEST-*.xml, JUnit XML or Jest JSON (where Maven Surefire writes them by default)") {
		t.Errorf("maven plan's note: %s", mvn.Note)
	}
	for _, tc := range []struct {
		name string
		plan Plan
		out  Output
		want string // the report rendered by describeReport, in part
	}{
		{"junit files", mvn, Output{ReportFiles: junit}, "a.T::t\n  failed (call)"},
		{"cut files are truncated", mvn, Output{ReportFiles: junit, ReportFilesCut: true}, "incomplete: the test report is longer"},
		{"a pytest session wins", mvn, Output{Channel: pytestRecords, ReportFiles: junit}, "t.py::test_a\n  passed"},
		{"no files, no report", mvn, Output{}, ""},
		{"files not asked for are not read", NewPlan("mvn -o test", isFile), Output{ReportFiles: junit}, ""},
	} {
		got := describeReport(tc.plan.Parse(tc.out, "/w"))
		if !strings.Contains(got, tc.want) || tc.want == "" && got != "" {
			t.Errorf("%s: read\n%s\nwant it to hold %q", tc.name, got, tc.want)
		}
	}
}

// repoPaths are the paths of a repository for the tests of FindPytest and
// the commands built on it.
var repoPaths = []string{"tests", "tests/test_ops.py", "tests/sub", "tests/sub/test_deep.py", "src", "src/calc", "sympy/core"}

func isRepoPath(p string) bool { return slices.Contains(repoPaths, p) }

func TestFindPytest(t *testing.T) {
	for _, tc := range []struct {
		cmd                             string
		ok, plain                       bool
		prefix, options, selection, all string // words joined by spaces
		setup                           string // joined by " ; "
	}{
		{cmd: "python3 -m pytest -q tests/test_ops.py", ok: true, plain: true, prefix: "python3 -m pytest", options: "-q", all: "tests/test_ops.py"},
		{cmd: "pytest", ok: true, plain: true, prefix: "pytest"},
		{cmd: "PYTHONPATH=src .venv/bin/python -X dev -W error -m pytest -p no:cacheprovider --tb short tests", ok: true, plain: true,
			prefix: "PYTHONPATH=src .venv/bin/python -X dev -W error -m pytest", options: "-p no:cacheprovider --tb short", all: "tests"},
		{cmd: "env PYTHONPATH=src py.test -xvs -k 'mean or median' tests sympy/core", ok: true, plain: true, prefix: "env PYTHONPATH=src py.test",
			options: "-v -s", selection: "-x -k mean or median", all: "tests sympy/core"},
		{cmd: "pytest -rA -pno:warnings --maxfail=2 --deselect tests/test_ops.py::test_a tests", ok: true, plain: true, prefix: "pytest",
			options: "-rA -pno:warnings", selection: "--maxfail=2 --deselect tests/test_ops.py::test_a", all: "tests"},
		// An unknown option takes the next word unless it names a path.
		{cmd: "pytest --frobnicate level tests --flag src", ok: true, plain: true, prefix: "pytest", options: "--frobnicate level --flag", all: "tests src"},
		{cmd: "pytest --lf -- -weird", ok: true, plain: true, prefix: "pytest", selection: "--lf", all: "-weird"},
		{cmd: "pip install -e . && cd sympy && PYTHONPATH=. python -m pytest -q core", ok: true, prefix: "PYTHONPATH=. python -m pytest", options: "-q", all: "core",
			setup: "cd sympy"},
		{cmd: "export A=1; . venv/bin/activate\npython -m pytest tests | tee out", ok: true, prefix: "python -m pytest", all: "tests", setup: "export A=1 ; . venv/bin/activate"},
		{cmd: "python3 -c 'import pytest'"},
		{cmd: "python3 -m unittest"},
		{cmd: "make test"},
		{cmd: "tox -e py -- tests/test_ops.py"},
		{cmd: "python3 -m pytest $(cat tests.txt)"},
	} {
		p, ok := FindPytest(tc.cmd, isRepoPath)
		got := []string{strings.Join(p.Prefix, " "), strings.Join(p.Options, " "), strings.Join(p.Selection, " "), strings.Join(p.Paths, " "), strings.Join(p.Setup, " ; ")}
		want := []string{tc.prefix, tc.options, tc.selection, tc.all, tc.setup}
		if ok != tc.ok || p.Plain != tc.plain || !slices.Equal(got, want) {
			t.Errorf("FindPytest(%q) = %q, ok %v, plain %v; want %q, %v, %v", tc.cmd, got, ok, p.Plain, want, tc.ok, tc.plain)
		}
	}
}

func TestWithTests(t *testing.T) {
	const repro = "tests/sub/test_capsule_reproduction.py"
	for _, tc := range []struct {
		cmd, want string
		added     bool
		why       string // in Why
	}{
		{"python3 -m pytest -q tests/test_ops.py", "python3 -m pytest " + repro + " -q tests/test_ops.py", true, ""},
		{"PYTHONPATH=src python3 -m pytest --cov src tests/test_ops.py", "PYTHONPATH=src python3 -m pytest " + repro + " --cov src tests/test_ops.py", true, ""},
		{"python3 -m pytest -q tests", "python3 -m pytest -q tests", false, ""},
		{"python3 -m pytest -q ./tests/", "python3 -m pytest -q ./tests/", false, ""},
		{"python3 -m pytest -q .", "python3 -m pytest -q .", false, ""},
		// Settings of which files, classes and functions are tests.
		{"python3 -m pytest -o 'python_files=check_*.py' tests", "python3 -m pytest -o 'python_files=check_*.py' tests", false, "its python_files setting (-o)"},
		{"python -m pytest --override-ini=python_functions= tests", "python -m pytest --override-ini=python_functions= tests", false, "its python_functions setting"},
		{"python3 -m pytest -q", "python3 -m pytest -q", false, "names no test path"},
		{"python3 -m pytest -k mean tests/test_ops.py", "python3 -m pytest -k mean tests/test_ops.py", false, "-k option may deselect"},
		{"python3 -m pytest -m 'not slow' tests/test_ops.py", "python3 -m pytest -m 'not slow' tests/test_ops.py", false, "-m option"},
		{"pytest -x tests", "pytest -x tests", false, "stops at the first failure"},
		{"pytest --ignore=tests/sub tests", "pytest --ignore=tests/sub tests", false, "--ignore option"},
		{"pytest --deselect tests/sub tests", "pytest --deselect tests/sub tests", false, "--deselect option"},
		{"pytest -- tests/test_ops.py", "pytest -- tests/test_ops.py", false, "`--`"},
		{"cd tests && pytest test_ops.py", "cd tests && pytest test_ops.py", false, "not one plain pytest invocation"},
		{"make test", "make test", false, "not a pytest command"},
	} {
		got := WithTests(tc.cmd, []string{repro}, isRepoPath)
		if got.Command != tc.want || got.Added != tc.added || tc.why == "" && got.Why != "" || !strings.Contains(got.Why, tc.why) {
			t.Errorf("WithTests(%q) = %+v; want %q, added %v, why %q", tc.cmd, got, tc.want, tc.added, tc.why)
		}
	}
	// Node ids of a file the command names are held by it.
	if got := WithTests("pytest tests/test_ops.py", []string{"tests/test_ops.py::TestDiv::test_zero[1]"}, isRepoPath); got.Added || got.Why != "" {
		t.Errorf("a node id of a named file: %+v", got)
	}
}

func TestTestsCommand(t *testing.T) {
	ids := []string{"tests/test_ops.py::test_a", "tests/sub/test_deep.py::test_b[x y]"}
	for _, tc := range []struct {
		cmd, want, note string
	}{
		{"python3 -m pytest -q -k mean -x tests", "python3 -m pytest tests/test_ops.py::test_a 'tests/sub/test_deep.py::test_b[x y]' -q", ""},
		{"python -m pytest -o 'python_files=test*.py' -o python_classes= -o python_functions= -o xfail_strict=true -v .", "python -m pytest tests/test_ops.py::test_a 'tests/sub/test_deep.py::test_b[x y]' -o xfail_strict=true -v", ""},
		{"PYTHONPATH=src python -m pytest -p no:cacheprovider --maxfail 1 -m 'not slow' --lf", "PYTHONPATH=src python -m pytest tests/test_ops.py::test_a 'tests/sub/test_deep.py::test_b[x y]' -p no:cacheprovider", ""},
		{"pip install -e . && export X=1 && cd tests && py.test --tb=short test_ops.py", "export X=1 && cd tests && py.test /workspace/tests/test_ops.py::test_a '/workspace/tests/sub/test_deep.py::test_b[x y]' --tb=short", ""},
		{"make test", "python3 -m pytest tests/test_ops.py::test_a 'tests/sub/test_deep.py::test_b[x y]'", "python3 -m pytest runs them"},
	} {
		got, note := TestsCommand(tc.cmd, ids, isRepoPath, "/workspace")
		if got != tc.want || !strings.Contains(note, tc.note) || tc.note == "" && note != "" {
			t.Errorf("TestsCommand(%q) = %q, %q; want %q, %q", tc.cmd, got, note, tc.want, tc.note)
		}
	}
}

func TestPlain(t *testing.T) {
	for cmd, want := range map[string]bool{
		"python3 -m pytest -q": true, "PYTHONHASHSEED=0 pytest 'tests/a b.py'": true, "tox -e py311": true,
		"pytest || true": false, "pytest a; pytest b": false, "pytest | tee log": false, "pytest $ARGS": false, "": false,
	} {
		if got := Plain(cmd); got != want {
			t.Errorf("Plain(%q) = %v, want %v", cmd, got, want)
		}
	}
}
