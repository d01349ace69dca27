package testreport

import (
	"bytes"
	"maps"
	"strings"
	"testing"
	"time"
)

const root = "/capsule/workspace"

func TestParsePytest(t *testing.T) {
	start := `{"kind": "start", "pid": 7, "rootdir": "/capsule/workspace", "pytest": "7.2.1"}` + "\n"
	end := `{"kind": "end", "pid": 7, "exitstatus": 1, "stopped": ""}` + "\n"
	test := func(fields string) string { return `{"kind": "test", "pid": 7, ` + fields + "}\n" }
	for _, tc := range []struct {
		name       string
		report     string
		tests      map[string]Outcome // by ID.String()
		processes  int
		incomplete string // a substring of Incomplete(), or "" when complete
	}{
		{
			name: "one process",
			report: start + `{"kind": "collected", "pid": 7, "count": 2}` + "\n" +
				test(`"file": "tests/test_a.py", "classes": ["TestA", "TestB"], "name": "test_x", "params": "1-2", "outcome": "failed", "phase": "call", "duration": 0.5, "message": "assert 1 == 2", "longrepr": "E assert 1 == 2"`) +
				test(`"file": "tests/test_a.py", "classes": [], "name": "test_y", "params": "", "outcome": "passed", "phase": "", "duration": 0.1, "message": "", "longrepr": ""`) + end,
			tests:     map[string]Outcome{"tests/test_a.py::TestA::TestB::test_x[1-2]": Failed, "tests/test_a.py::test_y": Passed},
			processes: 1,
		},
		{
			name: "a process that never ended",
			report: start + test(`"file": "tests/test_a.py", "name": "test_y", "outcome": "passed"`) +
				`{"kind": "start", "pid": 9, "rootdir": "/capsule/workspace"}` + "\n" + `{"kind": "end", "pid": 9, "exitstatus": 0}` + "\n",
			tests:      map[string]Outcome{"tests/test_a.py::test_y": Passed},
			processes:  2,
			incomplete: "1 of 2 test processes ended without finishing their session (pid 7)",
		},
		{
			name:       "a record of a process that never started",
			report:     start + `{"kind": "test", "pid": 8, "file": "t.py", "name": "test_forged", "outcome": "passed"}` + "\n" + end,
			tests:      map[string]Outcome{},
			processes:  1,
			incomplete: `line 2: a "test" record of pid 8, which had not started`,
		},
		{
			name:       "a record after its process ended",
			report:     start + end + test(`"file": "t.py", "name": "test_late", "outcome": "passed"`),
			tests:      map[string]Outcome{},
			processes:  1,
			incomplete: "which had not started",
		},
		{
			name:       "garbage",
			report:     start + "passed passed passed\n" + end,
			tests:      map[string]Outcome{},
			processes:  1,
			incomplete: "1 lines of the test report could not be read (line 2: not a report record",
		},
		{
			name:       "an unknown outcome is never a pass",
			report:     start + test(`"file": "t.py", "name": "test_x", "outcome": "PASSED"`) + end,
			tests:      map[string]Outcome{},
			processes:  1,
			incomplete: "a test record without file, name or valid outcome",
		},
		{
			name:       "unknown fields",
			report:     start + test(`"file": "t.py", "name": "test_x", "outcome": "passed", "trusted": true`) + end,
			tests:      map[string]Outcome{},
			processes:  1,
			incomplete: `unknown field "trusted"`,
		},
		{
			name:       "two records on a line",
			report:     start + strings.TrimSuffix(test(`"file": "t.py", "name": "test_x", "outcome": "passed"`), "\n") + " {}\n" + end,
			tests:      map[string]Outcome{},
			processes:  1,
			incomplete: "more than one record",
		},
		{
			name:       "an end without status",
			report:     start + `{"kind": "end", "pid": 7}` + "\n",
			tests:      map[string]Outcome{},
			processes:  1,
			incomplete: "an end record without exit status",
		},
		{
			name: "the same test twice keeps the worst outcome",
			report: start + test(`"file": "t.py", "name": "test_x", "outcome": "passed"`) +
				test(`"file": "t.py", "name": "test_x", "outcome": "error", "phase": "teardown"`) +
				test(`"file": "t.py", "name": "test_x", "outcome": "skipped"`) + end,
			tests:     map[string]Outcome{"t.py::test_x": Error},
			processes: 1,
		},
		{
			name: "paths are relative to the workspace, whatever the rootdir",
			report: `{"kind": "start", "pid": 7, "rootdir": "/capsule/workspace/sub"}` + "\n" +
				test(`"file": "tests/test_a.py", "name": "test_x", "outcome": "passed"`) +
				`{"kind": "collect-error", "pid": 7, "path": "tests/test_b.py", "message": "SyntaxError"}` + "\n" + end +
				`{"kind": "start", "pid": 8, "rootdir": "/elsewhere"}` + "\n" +
				`{"kind": "test", "pid": 8, "file": "../capsule/workspace/t.py", "name": "test_y", "outcome": "xfailed"}` + "\n" +
				`{"kind": "test", "pid": 8, "file": "t.py", "name": "test_z", "outcome": "xpassed"}` + "\n" +
				`{"kind": "end", "pid": 8, "exitstatus": 0}` + "\n",
			tests:     map[string]Outcome{"sub/tests/test_a.py::test_x": Passed, "t.py::test_y": XFailed, "/elsewhere/t.py::test_z": XPassed},
			processes: 2,
		},
		{
			name:   "pids reused by a later process",
			report: start + end + start + test(`"file": "t.py", "name": "test_x", "outcome": "passed"`) + end,
			tests:  map[string]Outcome{"t.py::test_x": Passed}, processes: 2,
		},
		{
			name: "a session inside a test of another",
			report: `{"kind": "start", "pid": 7, "session": 1, "rootdir": "/capsule/workspace"}` + "\n" +
				`{"kind": "start", "pid": 7, "session": 2, "rootdir": "/capsule/workspace/inner"}` + "\n" +
				`{"kind": "test", "pid": 7, "session": 2, "file": "t.py", "name": "test_in", "outcome": "passed"}` + "\n" +
				`{"kind": "end", "pid": 7, "session": 2, "exitstatus": 0}` + "\n" +
				`{"kind": "test", "pid": 7, "session": 1, "file": "t.py", "name": "test_out", "outcome": "passed"}` + "\n" +
				`{"kind": "end", "pid": 7, "session": 1, "exitstatus": 0}` + "\n",
			tests:     map[string]Outcome{"inner/t.py::test_in": Passed, "t.py::test_out": Passed},
			processes: 2,
		},
		{name: "empty", report: "", tests: map[string]Outcome{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := ParsePytest([]byte(tc.report), root)
			got := map[string]Outcome{}
			for id, res := range rep.Tests {
				got[id.String()] = res.Outcome
			}
			if !maps.Equal(got, tc.tests) {
				t.Errorf("tests = %v, want %v", got, tc.tests)
			}
			if len(rep.Processes) != tc.processes {
				t.Errorf("%d processes, want %d", len(rep.Processes), tc.processes)
			}
			why := rep.Incomplete()
			if tc.incomplete == "" && why != "" || !strings.Contains(why, tc.incomplete) {
				t.Errorf("Incomplete() = %q, want %q", why, tc.incomplete)
			}
			if rep.Complete() != (why == "") {
				t.Errorf("Complete() = %v with Incomplete() = %q", rep.Complete(), why)
			}
		})
	}
}

func TestParsePytestFields(t *testing.T) {
	long := strings.Repeat("é", 3000)
	rep := ParsePytest([]byte(`{"kind": "start", "pid": 3, "rootdir": "/capsule/workspace"}
{"kind": "collect-error", "pid": 3, "path": "tests/test_b.py", "message": "E   SyntaxError", "longrepr": "..."}
{"kind": "collected", "pid": 3, "count": 4}
{"kind": "test", "pid": 3, "file": "tests/test_a.py", "classes": ["T"], "name": "test_x", "params": "a::b", "outcome": "error", "phase": "setup", "duration": 1.5, "message": "`+long+`", "longrepr": "`+long+`"}
{"kind": "test", "pid": 3, "file": "tests/test_a.py", "classes": [], "name": "test_nan", "params": "", "outcome": "passed", "duration": -3}
{"kind": "end", "pid": 3, "exitstatus": 2, "stopped": "stopping after 1 failures"}
`), root)
	want := Process{Name: "pid 3", Collected: 4, Ended: true, ExitStatus: 2, Stopped: "stopping after 1 failures",
		CollectErrors: []CollectError{{Path: "tests/test_b.py", Message: "E   SyntaxError"}}}
	if got := rep.Processes[0]; got.Name != want.Name || got.Collected != want.Collected || !got.Ended || got.ExitStatus != 2 ||
		got.Stopped != want.Stopped || len(got.CollectErrors) != 1 || got.CollectErrors[0] != want.CollectErrors[0] {
		t.Errorf("process = %+v, want %+v", got, want)
	}
	if rep.Stopped() != want.Stopped {
		t.Errorf("Stopped() = %q", rep.Stopped())
	}
	res := rep.Tests[ID{File: "tests/test_a.py", Class: "T", Name: "test_x", Params: "a::b"}]
	if res.Outcome != Error || res.Phase != "setup" || res.Duration != 1500*time.Millisecond {
		t.Errorf("result = %+v", res)
	}
	if len(res.Message) > maxMessage+10 || len(res.Longrepr) > maxLongrepr+10 || !strings.HasSuffix(res.Message, "é [...]") {
		t.Errorf("texts not bounded on a rune: %d and %d bytes, ending %q", len(res.Message), len(res.Longrepr), res.Message[len(res.Message)-10:])
	}
	if d := rep.Tests[ID{File: "tests/test_a.py", Name: "test_nan"}].Duration; d != 0 {
		t.Errorf("a negative duration reads as %v", d)
	}
}

func TestParsePytestTruncated(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"kind": "start", "pid": 1, "rootdir": "/capsule/workspace"}` + "\n")
	line := `{"kind": "test", "pid": 1, "file": "t.py", "name": "test_x", "outcome": "passed", "longrepr": "` + strings.Repeat("x", 1<<20) + `"}` + "\n"
	for b.Len() <= MaxReportBytes {
		b.WriteString(line)
	}
	b.WriteString(`{"kind": "end", "pid": 1, "exitstatus": 0}` + "\n")
	rep := ParsePytest(b.Bytes(), root)
	if !rep.Truncated || rep.MalformedLines != 0 || rep.Complete() {
		t.Errorf("Truncated = %v, %d malformed lines, Complete() = %v", rep.Truncated, rep.MalformedLines, rep.Complete())
	}
}
