package testreport

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

const root = "/capsule/workspace"

// wire writes the agent's records of a channel by hand: each call adds a
// line received on connection conn from pid, which the JSON-encoded
// record of the plugin or the tripwire is.
type wire struct{ b strings.Builder }

func (w *wire) line(conn, pid int, rec string) *wire {
	data, _ := json.Marshal(map[string]any{"conn": conn, "pid": pid, "line": rec})
	w.b.Write(append(data, '\n'))
	return w
}

func (w *wire) closed(conn, pid int) *wire {
	fmt.Fprintf(&w.b, `{"conn":%d,"pid":%d,"closed":true}`+"\n", conn, pid)
	return w
}

func (w *wire) cut(conn, pid int) *wire {
	fmt.Fprintf(&w.b, `{"conn":%d,"pid":%d,"cut":"a line longer than 65536 bytes"}`+"\n", conn, pid)
	return w
}

func (w *wire) raw(s string) *wire { w.b.WriteString(s + "\n"); return w }

func (w *wire) String() string { return w.b.String() }

// session adds a whole session on conn: its start, the records between
// and its end with status.
func (w *wire) session(conn, pid int, status int, recs ...string) *wire {
	w.line(conn, pid, `{"kind": "start", "rootdir": "/capsule/workspace", "pytest": "7.2.1"}`)
	for _, r := range recs {
		w.line(conn, pid, r)
	}
	return w.line(conn, pid, fmt.Sprintf(`{"kind": "end", "exitstatus": %d, "stopped": ""}`, status)).closed(conn, pid)
}

// tripwire adds a tripwire's first line on conn.
func (w *wire) tripwire(conn, pid int) *wire {
	return w.line(conn, pid, `{"kind": "tripwire", "python": "3.11.2", "executable": "/usr/bin/python3"}`)
}

func testRec(fields string) string { return `{"kind": "test", ` + fields + "}" }

func TestParsePytest(t *testing.T) {
	pass := func(name string) string {
		return testRec(`"file": "t.py", "name": "` + name + `", "outcome": "passed"`)
	}
	start := `{"kind": "start", "rootdir": "/capsule/workspace"}`
	for _, tc := range []struct {
		name       string
		report     *wire
		tests      map[string]Outcome // by ID.String()
		processes  []string           // names, then " tripwire" when watched
		incomplete string             // a substring of Incomplete(), or "" when complete
	}{
		{
			name: "one session",
			report: new(wire).tripwire(1, 7).session(2, 7, 1, `{"kind": "collected", "count": 2}`,
				testRec(`"file": "tests/test_a.py", "classes": ["TestA", "TestB"], "name": "test_x", "params": "1-2", "outcome": "failed", "phase": "call", "duration": 0.5, "message": "assert 1 == 2", "longrepr": "E assert 1 == 2"`),
				testRec(`"file": "tests/test_a.py", "classes": [], "name": "test_y", "params": "", "outcome": "passed", "phase": "", "duration": 0.1, "message": "", "longrepr": ""`)).closed(1, 7),
			tests:     map[string]Outcome{"tests/test_a.py::TestA::TestB::test_x[1-2]": Failed, "tests/test_a.py::test_y": Passed},
			processes: []string{"pid 7 tripwire"},
		},
		{
			name:       "a session that never ended",
			report:     new(wire).line(1, 7, start).line(1, 7, pass("test_y")).closed(1, 7).session(2, 9, 0),
			tests:      map[string]Outcome{"t.py::test_y": Passed},
			processes:  []string{"pid 7", "pid 9"},
			incomplete: "1 of 2 test processes ended without finishing their session (pid 7)",
		},
		{
			name:       "a record on a connection that started nothing",
			report:     new(wire).session(1, 7, 0).line(2, 8, pass("test_forged")),
			tests:      map[string]Outcome{},
			processes:  []string{"pid 7"},
			incomplete: `line 4: a connection (pid 8) that starts with a "test" record`,
		},
		{
			name:       "a record after its session ended",
			report:     new(wire).line(1, 7, start).line(1, 7, `{"kind": "end", "exitstatus": 0}`).line(1, 7, pass("test_late")),
			tests:      map[string]Outcome{},
			processes:  []string{"pid 7"},
			incomplete: `a "test" record of pid 7 after its end`,
		},
		{
			name:       "a record after its connection closed",
			report:     new(wire).line(1, 7, start).closed(1, 7).line(1, 7, pass("test_late")),
			tests:      map[string]Outcome{},
			processes:  []string{"pid 7"},
			incomplete: "a record of connection 1 after its end",
		},
		{
			name:       "a connection whose pid changes",
			report:     new(wire).line(1, 7, start).line(1, 8, `{"kind": "end", "exitstatus": 0}`),
			tests:      map[string]Outcome{},
			processes:  []string{"pid 7"},
			incomplete: "connection 1 changed its pid from 7 to 8",
		},
		{
			name:       "the pid is the agent's, never the record's",
			report:     new(wire).session(1, 7, 0, testRec(`"pid": 9, "file": "t.py", "name": "test_x", "outcome": "passed"`)),
			tests:      map[string]Outcome{},
			processes:  []string{"pid 7"},
			incomplete: `unknown field "pid"`,
		},
		{
			name:       "a cut connection",
			report:     new(wire).line(1, 7, start).line(1, 7, pass("test_x")).cut(1, 7).closed(1, 7),
			tests:      map[string]Outcome{"t.py::test_x": Passed},
			processes:  []string{"pid 7"},
			incomplete: "connection 1 (pid 7) was cut: a line longer than 65536 bytes",
		},
		{
			name:       "garbage on the channel",
			report:     new(wire).line(1, 7, start).line(1, 7, "passed passed passed").line(1, 7, `{"kind": "end", "exitstatus": 0}`),
			tests:      map[string]Outcome{},
			processes:  []string{"pid 7"},
			incomplete: "1 lines of the test report could not be read (line 2: not a report record",
		},
		{
			name:       "garbage around the channel's records",
			report:     new(wire).session(1, 7, 0).raw(`{"conn": 1, "pid": 7, "line": "x", "closed": true}`).raw(`{"pid": 7, "closed": true}`).raw("{"),
			tests:      map[string]Outcome{},
			processes:  []string{"pid 7"},
			incomplete: "3 lines of the test report could not be read (line 4: not a channel record",
		},
		{
			name:       "an unknown outcome is never a pass",
			report:     new(wire).session(1, 7, 0, testRec(`"file": "t.py", "name": "test_x", "outcome": "PASSED"`)),
			tests:      map[string]Outcome{},
			processes:  []string{"pid 7"},
			incomplete: "a test record without file, name or valid outcome",
		},
		{
			name:       "unknown fields",
			report:     new(wire).session(1, 7, 0, testRec(`"file": "t.py", "name": "test_x", "outcome": "passed", "trusted": true`)),
			tests:      map[string]Outcome{},
			processes:  []string{"pid 7"},
			incomplete: `unknown field "trusted"`,
		},
		{
			name:       "two records on a line",
			report:     new(wire).session(1, 7, 0, pass("test_x")+" {}"),
			tests:      map[string]Outcome{},
			processes:  []string{"pid 7"},
			incomplete: "more than one record",
		},
		{
			name:       "an end without status",
			report:     new(wire).line(1, 7, start).line(1, 7, `{"kind": "end"}`),
			tests:      map[string]Outcome{},
			processes:  []string{"pid 7"},
			incomplete: "an end record without exit status",
		},
		{
			name: "the same test twice keeps the worst outcome",
			report: new(wire).session(1, 7, 1, pass("test_x"), testRec(`"file": "t.py", "name": "test_x", "outcome": "error", "phase": "teardown"`),
				testRec(`"file": "t.py", "name": "test_x", "outcome": "skipped"`)),
			tests:     map[string]Outcome{"t.py::test_x": Error},
			processes: []string{"pid 7"},
		},
		{
			name: "paths are relative to the workspace, whatever the rootdir",
			report: new(wire).line(1, 7, `{"kind": "start", "rootdir": "/capsule/workspace/sub"}`).
				line(1, 7, testRec(`"file": "tests/test_a.py", "name": "test_x", "outcome": "passed"`)).
				line(1, 7, `{"kind": "collect-error", "path": "tests/test_b.py", "message": "SyntaxError"}`).
				line(1, 7, `{"kind": "end", "exitstatus": 2}`).
				line(2, 8, `{"kind": "start", "rootdir": "/elsewhere"}`).
				line(2, 8, testRec(`"file": "../capsule/workspace/t.py", "name": "test_y", "outcome": "xfailed"`)).
				line(2, 8, testRec(`"file": "t.py", "name": "test_z", "outcome": "xpassed"`)).
				line(2, 8, `{"kind": "end", "exitstatus": 0}`),
			tests:     map[string]Outcome{"sub/tests/test_a.py::test_x": Passed, "t.py::test_y": XFailed, "/elsewhere/t.py::test_z": XPassed},
			processes: []string{"pid 7", "pid 8"},
		},
		{
			name: "sessions are told apart by connection: one inside a test of another",
			report: new(wire).tripwire(1, 7).line(2, 7, start).
				line(3, 7, `{"kind": "start", "rootdir": "/capsule/workspace/inner"}`).
				line(3, 7, pass("test_in")).
				line(3, 7, `{"kind": "end", "exitstatus": 0}`).
				line(2, 7, pass("test_out")).
				line(2, 7, `{"kind": "end", "exitstatus": 0}`),
			tests:     map[string]Outcome{"inner/t.py::test_in": Passed, "t.py::test_out": Passed},
			processes: []string{"pid 7 tripwire", "pid 7 session 2 tripwire"},
		},
		{
			name:      "a pid reused by a later process",
			report:    new(wire).session(1, 7, 0).tripwire(2, 7).session(3, 7, 0, pass("test_x")),
			tests:     map[string]Outcome{"t.py::test_x": Passed},
			processes: []string{"pid 7", "pid 7 session 2 tripwire"},
		},
		{
			// When a tripwire's close is recorded says nothing: the agent
			// reads the connections at once (the plugin checks its own).
			name: "a tripwire of another pid watches nothing; one of the same pid does, closed or not",
			report: new(wire).tripwire(1, 8).tripwire(2, 7).closed(2, 7).
				session(3, 7, 0, pass("test_x")).session(4, 8, 0).session(5, 9, 0),
			tests:     map[string]Outcome{"t.py::test_x": Passed},
			processes: []string{"pid 7 tripwire", "pid 8 tripwire", "pid 9"},
		},
		{
			name: "a tripwire connected after the session started watches nothing",
			report: new(wire).line(1, 7, start).tripwire(2, 7).
				line(1, 7, pass("test_x")).line(1, 7, `{"kind": "end", "exitstatus": 0}`),
			tests:     map[string]Outcome{"t.py::test_x": Passed},
			processes: []string{"pid 7"},
		},
		{
			name:   "audit events on a tripwire's connection only",
			report: new(wire).session(1, 7, 0, `{"kind": "audit", "event": "gc.get_objects", "file": "/capsule/workspace/x.py", "line": 3, "detail": ""}`),
			tests:  map[string]Outcome{}, processes: []string{"pid 7"},
			incomplete: `unknown record kind "audit"`,
		},
		{
			name:   "session records on a tripwire's connection",
			report: new(wire).tripwire(1, 7).line(1, 7, pass("test_x")).session(2, 7, 0),
			tests:  map[string]Outcome{}, processes: []string{"pid 7 tripwire"},
			incomplete: `a "test" record on a tripwire's connection (pid 7)`,
		},
		{name: "empty", report: new(wire), tests: map[string]Outcome{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := ParsePytest([]byte(tc.report.String()), root)
			got := map[string]Outcome{}
			for id, res := range rep.Tests {
				got[id.String()] = res.Outcome
			}
			if !maps.Equal(got, tc.tests) {
				t.Errorf("tests = %v, want %v", got, tc.tests)
			}
			var procs []string
			for _, p := range rep.Processes {
				if p.Tripwire {
					p.Name += " tripwire"
				}
				procs = append(procs, p.Name)
			}
			if !slices.Equal(procs, tc.processes) {
				t.Errorf("processes %q, want %q", procs, tc.processes)
			}
			why := rep.Incomplete()
			if tc.incomplete == "" && why != "" || !strings.Contains(why, tc.incomplete) {
				t.Errorf("Incomplete() = %q, want %q", why, tc.incomplete)
			}
			if rep.Complete() != (why == "") {
				t.Errorf("Complete() = %v with Incomplete() = %q", rep.Complete(), why)
			}
			if len(rep.Integrity) > 0 {
				t.Errorf("integrity failures %+v, want none", rep.Integrity)
			}
		})
	}
}

// The tripwire's events and the sessions' integrity failures: files named
// relative to the workspace, each event kept once, pids the agent's, and a
// tripwire closed during its session's run an integrity failure.
func TestParsePytestTampering(t *testing.T) {
	audit := func(event, file string, line int) string {
		return fmt.Sprintf(`{"kind": "audit", "event": %q, "file": %q, "line": %d, "detail": "d"}`, event, file, line)
	}
	t.Run("events and integrity failures", func(t *testing.T) {
		w := new(wire).tripwire(1, 7).
			line(1, 7, audit("gc.get_objects", "/capsule/workspace/calc/stats.py", 3)).
			line(2, 7, `{"kind": "start", "rootdir": "/capsule/workspace/sub"}`).
			line(1, 7, audit("gc.get_objects", "/capsule/workspace/calc/stats.py", 3)).
			line(1, 7, audit("ctypes.dlopen", "/usr/lib/python3.11/x.py", 9)).
			line(2, 7, `{"kind": "integrity", "check": "hooks", "detail": "a hook was added", "file": "/capsule/workspace/calc/stats.py", "line": 12}`).
			line(2, 7, `{"kind": "integrity", "check": "plugin", "detail": "_outcome replaced", "file": "", "line": 0}`).
			line(2, 7, `{"kind": "end", "exitstatus": 0}`).closed(2, 7).closed(1, 7)
		rep := ParsePytest([]byte(w.String()), root)
		wantAudit := []AuditEvent{{Event: "gc.get_objects", File: "calc/stats.py", Line: 3, Detail: "d", PID: 7},
			{Event: "ctypes.dlopen", File: "/usr/lib/python3.11/x.py", Line: 9, Detail: "d", PID: 7}}
		if !slices.Equal(rep.Audit, wantAudit) {
			t.Errorf("Audit = %+v, want %+v", rep.Audit, wantAudit)
		}
		wantIntegrity := []Integrity{{Check: "hooks", Detail: "a hook was added", File: "calc/stats.py", Line: 12, PID: 7},
			{Check: "plugin", Detail: "_outcome replaced", PID: 7}}
		if !slices.Equal(rep.Integrity, wantIntegrity) {
			t.Errorf("Integrity = %+v, want %+v", rep.Integrity, wantIntegrity)
		}
		if !rep.Complete() || !rep.Processes[0].Tripwire || rep.Processes[0].PID != 7 || rep.Unwatched() != 0 {
			t.Errorf("report: %q, processes %+v", rep.Incomplete(), rep.Processes)
		}
	})

	for _, tc := range []struct {
		name string
		w    *wire
		want string // the integrity failure's detail, or ""
	}{
		{"closed after the session's end", new(wire).tripwire(1, 7).session(2, 7, 0, testRec(`"file": "t.py", "name": "test_x", "outcome": "passed"`)).closed(1, 7), ""},
		// The agent reads connections at once: a tripwire closed at its
		// process's exit may be recorded ahead of records sent before it.
		{"closed ahead of the session's last records", new(wire).tripwire(1, 7).line(2, 7, `{"kind": "start", "rootdir": "/capsule/workspace"}`).closed(1, 7).
			line(2, 7, testRec(`"file": "t.py", "name": "test_x", "outcome": "passed"`)).line(2, 7, `{"kind": "end", "exitstatus": 0}`), ""},
		{"closed just ahead of the end", new(wire).tripwire(1, 7).line(2, 7, `{"kind": "start", "rootdir": "/capsule/workspace"}`).
			line(2, 7, testRec(`"file": "t.py", "name": "test_x", "outcome": "passed"`)).closed(1, 7).line(2, 7, `{"kind": "end", "exitstatus": 0}`), ""},
		{"another pid's tripwire closed", new(wire).tripwire(1, 7).tripwire(2, 8).line(3, 7, `{"kind": "start", "rootdir": "/capsule/workspace"}`).closed(2, 8).
			line(3, 7, testRec(`"file": "t.py", "name": "test_x", "outcome": "passed"`)).line(3, 7, `{"kind": "end", "exitstatus": 0}`), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := ParsePytest([]byte(tc.w.String()), root)
			var got string
			for _, f := range rep.Integrity {
				if f.Check == "tripwire" && f.PID == 7 {
					got = f.Detail
				}
			}
			if got != tc.want || len(rep.Processes) == 0 || !rep.Processes[0].Tripwire {
				t.Errorf("integrity %+v, processes %+v; want %q", rep.Integrity, rep.Processes, tc.want)
			}
		})
	}

	t.Run("a flood of events makes the report incomplete", func(t *testing.T) {
		w := new(wire).tripwire(1, 7)
		for i := range maxAudit + 1 {
			w.line(1, 7, audit("open", "/capsule/workspace/x.py", i))
		}
		w.session(2, 7, 0)
		rep := ParsePytest([]byte(w.String()), root)
		if len(rep.Audit) != maxAudit || !strings.Contains(rep.Incomplete(), fmt.Sprintf("more than %d different audit events", maxAudit)) {
			t.Errorf("%d events kept, Incomplete() = %q", len(rep.Audit), rep.Incomplete())
		}
	})
}

func TestParsePytestFields(t *testing.T) {
	long := strings.Repeat("é", 3000)
	w := new(wire).session(1, 3, 2, `{"kind": "collect-error", "path": "tests/test_b.py", "message": "E   SyntaxError", "longrepr": "..."}`,
		`{"kind": "collected", "count": 4}`,
		testRec(`"file": "tests/test_a.py", "classes": ["T"], "name": "test_x", "params": "a::b", "outcome": "error", "phase": "setup", "duration": 1.5, "message": "`+long+`", "longrepr": "`+long+`"`),
		testRec(`"file": "tests/test_a.py", "classes": [], "name": "test_nan", "params": "", "outcome": "passed", "duration": -3`))
	rep := ParsePytest([]byte(strings.Replace(w.String(), `\"stopped\": \"\"`, `\"stopped\": \"stopping after 1 failures\"`, 1)), root)
	want := Process{Name: "pid 3", PID: 3, Collected: 4, Ended: true, ExitStatus: 2, Stopped: "stopping after 1 failures",
		CollectErrors: []CollectError{{Path: "tests/test_b.py", Message: "E   SyntaxError"}}}
	if got := rep.Processes[0]; got.Name != want.Name || got.PID != 3 || got.Collected != want.Collected || !got.Ended || got.ExitStatus != 2 ||
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
	w := new(wire).line(1, 1, `{"kind": "start", "rootdir": "/capsule/workspace"}`)
	line := testRec(`"file": "t.py", "name": "test_x", "outcome": "passed", "longrepr": "` + strings.Repeat("x", 60000) + `"`)
	for w.b.Len() <= MaxReportBytes {
		w.line(1, 1, line)
	}
	w.line(1, 1, `{"kind": "end", "exitstatus": 0}`)
	rep := ParsePytest([]byte(w.String()), root)
	if !rep.Truncated || rep.MalformedLines != 0 || rep.Complete() {
		t.Errorf("Truncated = %v, %d malformed lines, Complete() = %v", rep.Truncated, rep.MalformedLines, rep.Complete())
	}
}
