package repo

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/feedback"
	"github.com/capsulehq/capsule/pipeline/gate"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
)

func TestAttemptTimeout(t *testing.T) {
	for _, tc := range []struct {
		name               string
		timeout, most, run time.Duration
		want               time.Duration
	}{
		{"a quick suite keeps the configured timeout", 5 * time.Minute, 30 * time.Minute, 20 * time.Second, 5 * time.Minute},
		{"a slow suite gets three times its baseline", 5 * time.Minute, 30 * time.Minute, 3*time.Minute + 55*time.Second, 11*time.Minute + 45*time.Second},
		{"within the operator's maximum", 5 * time.Minute, 10 * time.Minute, 4 * time.Minute, 10 * time.Minute},
		{"no maximum set: the timeout is the maximum", time.Minute, 0, 50 * time.Second, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, note := attemptTimeout(Plan{Limits: sandbox.Limits{Timeout: tc.timeout}, MaxTestTimeout: tc.most}, sandbox.Result{Duration: tc.run})
			if got != tc.want || !strings.Contains(note, got.String()) {
				t.Errorf("attemptTimeout = %s (%s), want %s", got, note, tc.want)
			}
		})
	}
}

// report builds a one-process report from "file::name outcome" pairs.
func report(results ...string) *testreport.Report {
	rep := &testreport.Report{Tests: map[gate.ID]testreport.Result{}, Processes: []testreport.Process{{Name: "pid 1", Ended: true}}}
	for _, r := range results {
		name, outcome, _ := strings.Cut(r, " ")
		file, test, _ := strings.Cut(name, "::")
		id := gate.ID{File: file, Name: test}
		rep.Tests[id] = testreport.Result{ID: id, Outcome: testreport.Outcome(outcome)}
	}
	return rep
}

func TestLeftOut(t *testing.T) {
	target := gate.ID{File: "tests/test_r.py", Name: "test_issue"}
	named := gate.ID{File: "tests/test_a.py", Name: "test_named"}
	withError := report("tests/test_a.py::test_x passed")
	withError.Processes[0].CollectErrors = []testreport.CollectError{{Path: "tests/test_r.py", Message: "ImportError"}}
	for _, tc := range []struct {
		name string
		rep  *testreport.Report
		file string
		ids  []gate.ID
		want []string
	}{
		{"the file ran", report("tests/test_r.py::test_other passed", "tests/test_r.py::test_issue failed"), "tests/test_r.py", []gate.ID{target}, nil},
		{"none of the file's tests ran", report("tests/test_a.py::test_x passed"), "tests/test_r.py", []gate.ID{target}, []string{"tests/test_r.py"}},
		{"the file ran but not its target (-k)", report("tests/test_r.py::test_other passed"), "tests/test_r.py", []gate.ID{target}, []string{"tests/test_r.py::test_issue"}},
		{"a collection error stands for the file's tests", withError, "tests/test_r.py", []gate.ID{target}, nil},
		{"a named target that did not run", report("tests/test_a.py::test_x passed"), "", []gate.ID{named}, []string{"tests/test_a.py::test_named"}},
		{"no report", nil, "tests/test_r.py", nil, []string{"tests/test_r.py"}},
	} {
		if got := leftOut(tc.rep, tc.file, tc.ids); !slices.Equal(got, tc.want) {
			t.Errorf("%s: leftOut = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestJoinRuns(t *testing.T) {
	first := testRun{gate: gate.Run{Report: report("tests/test_a.py::test_x passed", "tests/test_r.py::test_issue passed"), ExitCode: 0},
		res: sandbox.Result{Stdout: []byte("1 passed\n"), Duration: time.Second}, cmd: []string{"sh", "-c", "pytest tests/test_a.py"}}
	second := testRun{gate: gate.Run{Report: report("tests/test_r.py::test_issue failed", "tests/test_r.py::test_other xfailed"), ExitCode: 1},
		res: sandbox.Result{Stdout: []byte("1 failed\n"), ExitCode: 1, Duration: 2 * time.Second}}
	second.gate.Report.Processes[0].ExitStatus, second.gate.Report.Processes[0].Failing = 1, 1
	got := joinRuns(first, second, "`pytest tests/test_r.py`, because ...")
	tests := got.gate.Report.Tests
	if len(tests) != 3 || tests[gate.ID{File: "tests/test_r.py", Name: "test_issue"}].Outcome != testreport.Failed || len(got.gate.Report.Processes) != 2 {
		t.Errorf("joined report %+v: want three tests, the worst outcome of test_issue, both processes", got.gate.Report)
	}
	if got.gate.ExitCode != 1 || got.res.ExitCode != 1 || got.res.Duration != 3*time.Second || got.gate.Untrusted() != "" {
		t.Errorf("joined run: exit %d/%d, %s, untrusted %q", got.gate.ExitCode, got.res.ExitCode, got.res.Duration, got.gate.Untrusted())
	}
	if out := string(got.res.Stdout); !strings.Contains(out, "1 passed\n\n$ `pytest tests/test_r.py`, because ...\n1 failed") {
		t.Errorf("joined output:\n%s", out)
	}
	if rec := got.record("img"); rec.Also == "" || rec.Command[2] != "pytest tests/test_a.py" {
		t.Errorf("record %+v", rec)
	}
}

// The error handler reads a failed run's output as the runner the plan
// found in the test command.
func TestFeedbackStyle(t *testing.T) {
	for cmd, want := range map[string]feedback.Style{
		"python3 -m pytest -q":         feedback.Pytest,
		"python -m unittest":           feedback.Unittest,
		"tox -e pytest":                feedback.Pytest,
		"go test ./...":                feedback.Generic,
		"make test":                    feedback.Generic,
		"python -m unittest && pytest": feedback.Pytest,
	} {
		if got := feedbackStyle(testreport.NewPlan(cmd, func(string) bool { return false }).Runner); got != want {
			t.Errorf("%q: style %s, want %s", cmd, got, want)
		}
	}
}
