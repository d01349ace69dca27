package testreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseJestJSONFixtures reads the real JSON reports of Jest and
// Vitest in testdata/jest (see its README for how they were made)
// against their golden renderings.
func TestParseJestJSONFixtures(t *testing.T) {
	// The reports were written in /tmp/capsule-samples (see the README),
	// which stands for the workspace.
	checkFixtures(t, "testdata/jest/*.json", 2, func(t *testing.T, p string, data []byte) *Report {
		return ParseJestJSON(filepath.Base(p), data, "/tmp/capsule-samples")
	})
}

// jestDoc is a small Jest JSON report with one file of three tests.
const jestDoc = `{"numTotalTests": 3, "numPassedTests": 1, "numFailedTests": 1, "numPendingTests": 1, "numTodoTests": 0,
 "numRuntimeErrorTestSuites": 0, "success": false, "wasInterrupted": false, "testResults": [
  {"name": "/workspace/src/calc.test.js", "status": "failed", "message": "", "assertionResults": [
   {"ancestorTitles": ["calc", "add"], "title": "adds", "status": "passed", "duration": 2, "failureMessages": []},
   {"ancestorTitles": ["calc"], "title": "subs", "status": "failed", "duration": 1,
    "failureMessages": ["\u001b[2mexpect(\u001b[22mreceived).toBe(expected)\nExpected: 1\nReceived: 2\n    at Object.<anonymous> (src/calc.test.js:5:1)"]},
   {"ancestorTitles": [], "title": "later", "status": "pending", "failureMessages": []}]},
  {"name": "/workspace/src/broken.test.js", "status": "failed", "message": "Test suite failed to run\n\nCannot find module './nowhere'", "assertionResults": []}]}`

// TestParseJestJSON covers the identities and outcomes, and the reports
// that cannot be trusted.
func TestParseJestJSON(t *testing.T) {
	rep := ParseJestJSON("capsule-jest.json", []byte(jestDoc), "/workspace")
	want := "process capsule-jest.json: collected 3, failing 1, ended true, exit 1\n" +
		"src/calc.test.js::later\n  skipped 0s\n" +
		"src/calc.test.js::calc::subs\n  failed (call) 1ms\n  message: expect(received).toBe(expected)\n" +
		"src/calc.test.js::calc::add::adds\n  passed 2ms\n"
	if got := describeReport(rep); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
	if errs := rep.CollectErrors(); len(errs) != 1 || errs[0].Path != "src/broken.test.js" || errs[0].Message != "Test suite failed to run" {
		t.Errorf("collect errors = %+v", errs)
	}
	hook := strings.Replace(jestDoc, `"status": "failed", "message": "", "assertionResults"`, `"status": "failed", "message": "afterAll failed", "assertionResults"`, 1)
	hook = strings.Replace(hook, `"title": "subs", "status": "failed"`, `"title": "subs", "status": "passed"`, 1)
	hook = strings.Replace(hook, `"numPassedTests": 1, "numFailedTests": 1`, `"numPassedTests": 2, "numFailedTests": 0`, 1)
	if errs := ParseJestJSON("r.json", []byte(hook), "/workspace").CollectErrors(); len(errs) != 2 || errs[0].Message != "afterAll failed" {
		t.Errorf("a file that failed in a hook: collect errors = %+v", errs)
	}
	if rep.RunnerWritten != "Jest JSON" {
		t.Errorf("RunnerWritten = %q", rep.RunnerWritten)
	}
	for _, tc := range []struct {
		name, doc, why string
	}{
		{"totals that do not match", strings.Replace(jestDoc, `"numPassedTests": 1`, `"numPassedTests": 2`, 1), "its totals say 3 tests, 2 passed"},
		{"a test added to a passing report", strings.Replace(jestDoc, `"title": "later"`, `"title": "later", "status": "passed"}, {"title": "forged"`, 1), "but it lists 4"},
		{"an unknown status", strings.Replace(jestDoc, `"status": "pending"`, `"status": "fine"`, 1), `the unknown status "fine"`},
		{"an interrupted run", strings.Replace(jestDoc, `"wasInterrupted": false`, `"wasInterrupted": true`, 1), "the run was interrupted"},
		{"not JSON", jestDoc[:100], "not a Jest JSON report"},
		{"two values", jestDoc + "{}", "more than one JSON value"},
		{"another JSON document", `{"tests": []}`, "no numTotalTests or success"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := ParseJestJSON("r.json", []byte(tc.doc), "/workspace")
			if rep.Complete() || !strings.Contains(rep.Incomplete(), tc.why) {
				t.Errorf("incomplete = %q, want it to say %q", rep.Incomplete(), tc.why)
			}
		})
	}
}

// TestParseReportFiles reads JUnit XML and Jest JSON files of one run
// together, each by its format.
func TestParseReportFiles(t *testing.T) {
	rep := ParseReportFiles(map[string][]byte{
		"junit.xml":         []byte(`<testsuite name="s"><testcase classname="c" name="t"/></testsuite>`),
		"capsule-jest.json": []byte("\n  " + jestDoc),
	}, "/workspace")
	if !rep.Complete() || len(rep.Processes) != 2 || len(rep.Tests) != 4 || rep.RunnerWritten != "Jest JSON and JUnit XML" {
		t.Errorf("report: %d processes, %d tests, %q, incomplete %q", len(rep.Processes), len(rep.Tests), rep.RunnerWritten, rep.Incomplete())
	}
	plan := NewPlan("npm test -- --json --outputFile=capsule-jest.json", func(string) bool { return false }).WithReports([]string{"capsule-jest.json"}, "detected")
	rep = plan.Parse(Output{ReportFiles: map[string][]byte{"capsule-jest.json": []byte(jestDoc)}}, "/workspace")
	if !plan.WholeRuns() || !rep.Complete() || len(rep.Tests) != 3 {
		t.Errorf("Plan.Parse of a Jest report: %d tests, incomplete %q", len(rep.Tests), rep.Incomplete())
	}
}

// FuzzJestJSON checks that any input gives a report that holds together:
// no panic, bounded texts, every failing test counted by its process.
func FuzzJestJSON(f *testing.F) {
	paths, _ := filepath.Glob("testdata/jest/*.json")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(jestDoc))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep := ParseJestJSON("r.json", data, "/workspace")
		if len(rep.Processes) != 1 {
			t.Fatalf("%d processes for one file", len(rep.Processes))
		}
		p := rep.Processes[0]
		tests, failing := checkHolds(t, rep)
		if p.Ended && (failing > p.Failing || tests > p.Collected) {
			t.Fatalf("%d failing of %d tests, process counted %d of %d", failing, len(rep.Tests), p.Failing, p.Collected)
		}
		if p.Ended != (rep.MalformedLines == 0 && !rep.Truncated) {
			t.Fatalf("ended %v with %d malformed", p.Ended, rep.MalformedLines)
		}
	})
}

// TestJestSummaries checks a Jest or Vitest JSON report against the
// runner's summary on the run's output: a report rewritten after the
// runner printed its summary cannot be trusted.
func TestJestSummaries(t *testing.T) {
	// jestDoc lists 3 tests, 1 failed.
	const (
		jest   = "Test Suites: 2 failed, 2 total\nTests:       1 failed, 1 skipped, 1 passed, 3 total\nSnapshots:   0 total\n"
		vitest = " Test Files  2 failed (2)\n      Tests  1 failed | 1 skipped | 1 passed (3)\n   Start at  04:37:27\n"
	)
	for _, tc := range []struct {
		name           string
		stdout, stderr string
		files          int
		why            string // "" for a report that can be trusted
	}{
		{name: "Jest's summary agrees", stderr: jest},
		{name: "Vitest's summary agrees", stdout: vitest},
		{name: "Vitest's summary in colour", stdout: "      \x1b[2mTests \x1b[22m \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\x1b[1m\x1b[32m2 passed\x1b[39m\x1b[22m\x1b[90m (3)\x1b[39m\n"},
		{name: "no summary", stdout: "ok\n"},
		{name: "a test's output indented by Jest", stderr: "    console.log\n      Tests:       9 total\n" + jest},
		{name: "Jest's summary counts another failure", stderr: strings.Replace(jest, "1 failed, 1 skipped", "2 failed", 1),
			why: `the runner's summary "Tests:       2 failed, 1 passed, 3 total" says 3 tests, 2 failed, but its JSON report lists 3, 1 failed: the report was changed after the runner wrote it`},
		{name: "Jest's summary counts other tests", stderr: strings.Replace(jest, "3 total", "4 total", 1), why: "says 4 tests, 1 failed"},
		{name: "Vitest's summary counts another failure", stdout: strings.Replace(vitest, "1 failed | 1 skipped", "2 failed", 1), why: "says 3 tests, 2 failed"},
		{name: "a forged summary beside the real one", stderr: "Tests:       0 failed, 3 total\n" + jest, why: "says 3 tests, 0 failed"},
		{name: "the real summary beside a forged one", stderr: jest + "Tests:       3 passed, 3 total\n", why: "says 3 tests, 0 failed"},
		{name: "two report files are not checked", stderr: strings.Replace(jest, "3 total", "4 total", 1), files: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string][]byte{"capsule-jest.json": []byte(jestDoc)}
			if tc.files == 2 {
				files["junit.xml"] = []byte(`<testsuite name="s"><testcase classname="c" name="t"/></testsuite>`)
			}
			plan := NewPlan("npm test -- --json --outputFile=capsule-jest.json", func(string) bool { return false }).WithReports([]string{"capsule-jest.json", "junit.xml"}, "detected")
			rep := plan.Parse(Output{Stdout: []byte(tc.stdout), Stderr: []byte(tc.stderr), ReportFiles: files}, "/workspace")
			switch {
			case tc.why == "" && !rep.Complete():
				t.Errorf("incomplete: %s", rep.Incomplete())
			case tc.why != "" && (rep.Complete() || !strings.Contains(rep.Incomplete(), tc.why)):
				t.Errorf("incomplete = %q, want it to say %q", rep.Incomplete(), tc.why)
			}
		})
	}
}
