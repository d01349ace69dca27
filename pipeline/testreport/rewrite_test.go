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
	}{
		{"go test ./...", "go test -json ./...", true},
		{"python -m unittest", "python -m pytest -o 'python_files=test*.py' -o python_classes= -o python_functions= .", false},
		{"pytest -q", "pytest -q", false},
		{"npm test", "npm test", false},
		{"go test ./... | tee log", "go test ./... | tee log", false},
	} {
		p := NewPlan(tc.cmd, isFile)
		if p.Command != tc.want || p.GoJSON != tc.goJSON || !strings.Contains(p.Note, "`"+tc.want+"`") {
			t.Errorf("NewPlan(%q) = %+v; want %q, GoJSON %v", tc.cmd, p, tc.want, tc.goJSON)
		}
	}
	goEvents := []byte(`{"Action":"start","Package":"p"}` + "\n" + `{"Action":"run","Package":"p","Test":"TestA"}` + "\n" +
		`{"Action":"pass","Package":"p","Test":"TestA"}` + "\n" + `{"Action":"pass","Package":"p"}` + "\n")
	pytestRecords := []byte(new(wire).line(1, 1, `{"kind": "start", "rootdir": "/w"}`).
		line(1, 1, `{"kind": "test", "file": "t.py", "name": "test_a", "outcome": "passed"}`).String())
	if rep := NewPlan("go test ./...", isFile).Parse(pytestRecords, goEvents, "/w"); len(rep.Tests) != 1 || !rep.Complete() {
		t.Errorf("go plan read %+v", rep)
	}
	if rep := NewPlan("pytest", isFile).Parse(pytestRecords, goEvents, "/w"); rep.Tests[ID{File: "t.py", Name: "test_a"}].Outcome != Passed {
		t.Errorf("pytest plan read %+v", rep)
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
