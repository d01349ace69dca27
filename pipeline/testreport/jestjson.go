package testreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// jestReport is the JSON report of Jest (`--json --outputFile=F`) and of
// Vitest's json reporter, which writes Jest's format: the fields both
// write that the reading needs.
type jestReport struct {
	NumTotalTests   *int `json:"numTotalTests"`
	NumPassedTests  int  `json:"numPassedTests"`
	NumFailedTests  int  `json:"numFailedTests"`
	NumPendingTests int  `json:"numPendingTests"`
	NumTodoTests    int  `json:"numTodoTests"`
	// NumRuntimeErrorTestSuites counts the files that failed to run.
	NumRuntimeErrorTestSuites int        `json:"numRuntimeErrorTestSuites"`
	Success                   *bool      `json:"success"`
	WasInterrupted            bool       `json:"wasInterrupted"`
	TestResults               []jestFile `json:"testResults"`
}

// jestFile is one test file's results.
type jestFile struct {
	Name             string       `json:"name"`
	Status           string       `json:"status"`
	Message          string       `json:"message"`
	AssertionResults []jestResult `json:"assertionResults"`
}

// jestResult is one test's result.
type jestResult struct {
	AncestorTitles  []string `json:"ancestorTitles"`
	Title           string   `json:"title"`
	Status          string   `json:"status"`
	Duration        *float64 `json:"duration"`
	FailureMessages []string `json:"failureMessages"`
}

// jestOutcomes maps the statuses of Jest's and Vitest's results.
var jestOutcomes = map[string]Outcome{
	"passed": Passed, "failed": Failed,
	"pending": Skipped, "skipped": Skipped, "todo": Skipped, "disabled": Skipped,
}

// ParseJestJSON reads one JSON report of Jest (`--json --outputFile`) or
// of Vitest's json reporter (`--reporter=json --outputFile`), named name,
// into a Report of one Process named by name. A test's identity is its
// file (relative to root, the workspace as the sandbox saw it), its
// enclosing describe blocks, "::"-separated, and its title. A file that
// failed with no failing test (it failed to run, or in a hook) is a
// collection error of its file.
//
// The report is written by the process that runs the code under test,
// after the tests, and is read as hostile: it must be one JSON object of
// at most MaxReportBytes with at most MaxJUnitTests results; its totals
// must match the results it lists (numTotalTests, numPassedTests,
// numFailedTests, and pending with todo as skipped); an unknown status
// and an interrupted run make it incomplete; and a run it says did not
// succeed must show a failure, else the gate finds the disagreement.
func ParseJestJSON(name string, data []byte, root string) *Report {
	rep := newReport()
	rep.RunnerWritten = "Jest JSON"
	(&jestReader{rep: rep, root: path.Clean(root)}).file(name, data)
	return rep
}

// jestReader builds a Report from Jest JSON reports.
type jestReader struct {
	rep  *Report
	root string
	// tests counts the results read in all files.
	tests int
	// read counts the files read whole, and total and failed their
	// totals: what the runner's summary must agree with.
	read, total, failed int
}

// file reads one JSON report as one process.
func (r *jestReader) file(name string, data []byte) {
	r.rep.Processes = append(r.rep.Processes, Process{Name: name})
	p := &r.rep.Processes[len(r.rep.Processes)-1]
	fail := func(why string) { r.rep.malformed(0, name+": "+why) }
	if len(data) > MaxReportBytes {
		r.rep.Truncated = true
		return
	}
	var doc jestReport
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		fail(fmt.Sprintf("not a Jest JSON report: %v", err))
		return
	}
	if dec.More() {
		fail("more than one JSON value")
		return
	}
	if doc.NumTotalTests == nil || doc.Success == nil {
		fail("not a Jest JSON report: no numTotalTests or success")
		return
	}
	if doc.WasInterrupted {
		fail("the run was interrupted")
		return
	}
	var passed, failed, skipped, total int
	for _, f := range doc.TestResults {
		file := rebase(r.root, f.Name)
		failedBefore := failed
		for _, a := range f.AssertionResults {
			if r.tests++; r.tests > MaxJUnitTests {
				fail(fmt.Sprintf("more than %d tests", MaxJUnitTests))
				return
			}
			outcome, ok := jestOutcomes[a.Status]
			if !ok {
				fail(fmt.Sprintf("test %q has the unknown status %q", a.Title, a.Status))
				return
			}
			total++
			switch {
			case outcome == Passed:
				passed++
			case outcome == Failed:
				failed++
			default:
				skipped++
			}
			r.rep.add(r.result(file, a, outcome))
		}
		// A file that failed with no failing test failed to run, or in a
		// hook outside its tests: its error is the file's.
		if f.Status == "failed" && failed == failedBefore {
			p.CollectErrors = append(p.CollectErrors, CollectError{Path: file, Message: bound(firstLine(strings.TrimSpace(stripANSI(f.Message))), maxMessage)})
		}
	}
	pending := doc.NumPendingTests + doc.NumTodoTests
	if total != *doc.NumTotalTests || passed != doc.NumPassedTests || failed != doc.NumFailedTests || skipped != pending {
		fail(fmt.Sprintf("its totals say %d tests, %d passed, %d failed, %d pending or todo, but it lists %d, %d passed, %d failed, %d skipped",
			*doc.NumTotalTests, doc.NumPassedTests, doc.NumFailedTests, pending, total, passed, failed, skipped))
		return
	}
	p.Collected, p.Failing, p.Ended = total, failed, true
	r.read, r.total, r.failed = r.read+1, r.total+total, r.failed+failed
	if !*doc.Success {
		p.ExitStatus = 1
	}
}

// result is the Result of one test of file.
func (r *jestReader) result(file string, a jestResult, outcome Outcome) Result {
	res := Result{ID: ID{File: file, Class: strings.Join(a.AncestorTitles, "::"), Name: a.Title}, Outcome: outcome}
	if a.Duration != nil && *a.Duration > 0 && *a.Duration < 1e12 {
		res.Duration = time.Duration(*a.Duration * float64(time.Millisecond))
	}
	if outcome == Failed {
		text := stripANSI(strings.Join(a.FailureMessages, "\n"))
		res.Phase = "call"
		res.Message = bound(firstLine(strings.TrimSpace(text)), maxMessage)
		res.Longrepr = bound(strings.TrimSpace(text), maxLongrepr)
	}
	return res
}

// stripANSI drops the colour sequences Jest puts in its messages.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	return ansiEscape.ReplaceAllString(s, "")
}

// The runners' summary lines of tests: Jest's on its standard error
// ("Tests:       1 failed, 16 passed, 17 total"), Vitest's default
// reporter's on its standard output ("      Tests  1 failed | 16 passed (17)").
var (
	jestSummary   = regexp.MustCompile(`(?m)^Tests:[ \t]+(.*?)(\d+) total[ \t]*\r?$`)
	vitestSummary = regexp.MustCompile(`(?m)^[ \t]*Tests[ \t]+(.*?)\((\d+)\)[ \t]*\r?$`)
	summaryFailed = regexp.MustCompile(`(\d+) failed`)
)

// summaries checks the runner's summary lines on a run's output against
// the one JSON report read: the runner prints its summary before it
// writes the report, and code under test that rewrites the report after
// the run (a timer or an exit hook of a test that ran in the runner's
// process, a process it left behind) cannot take back what was printed.
// Every summary line must count the report's tests and failures, else the
// report cannot be trusted. A run of several JSON reports, or whose
// output shows no summary (a reporter other than the default), is not
// checked.
func (r *jestReader) summaries(stdout, stderr []byte) {
	if r.read != 1 || len(r.rep.Processes) != 1 {
		return
	}
	for _, out := range [][]byte{stderr, stdout} {
		text := stripANSI(string(out))
		for _, re := range []*regexp.Regexp{jestSummary, vitestSummary} {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				total, _ := strconv.Atoi(m[2])
				failed := 0
				if f := summaryFailed.FindStringSubmatch(m[1]); f != nil {
					failed, _ = strconv.Atoi(f[1])
				}
				if total != r.total || failed != r.failed {
					r.rep.malformed(0, fmt.Sprintf("the runner's summary %q says %d tests, %d failed, but its JSON report lists %d, %d failed: the report was changed after the runner wrote it",
						bound(strings.TrimSpace(m[0]), maxMessage), total, failed, r.total, r.failed))
					return
				}
			}
		}
	}
}
