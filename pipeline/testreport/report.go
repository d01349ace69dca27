// Package testreport collects the outcome of every test of a test command,
// not only its exit status: a pytest plugin that every pytest session of the
// command loads on its own, the reading of the records it sends, the reading
// of `go test -json` output, and the rewriting of commands (unittest run as
// pytest, `go test` with -json) so that they give a per-test report.
//
// The Python side is two files laid out by [HelperFiles] and switched on by
// [Env]: a user site directory (PYTHONUSERBASE) whose .pth line runs
// capsule_boot.py by absolute path when any interpreter starts, before the
// working directory or PYTHONPATH can matter, and whose dist-info declares
// the plugin as a pytest11 entry point. The boot installs a finder that
// serves the plugin only from the helper directory, so no file of the
// workspace can take its place, and a PEP 578 audit hook, the tripwire,
// which sends on the report channel (a Unix socket the sandbox's agent
// serves) the events by which code reaches into the runner: gc object
// walks, ctypes, sys._getframe, replaced function code, opening the channel
// or the helpers, and the like, each with the workspace file and line that
// raised it. The plugin opens one channel connection per pytest session and
// sends, before its end record, the failures of the checks no audit event
// covers: its own globals and code, the test modules in sys.modules, hook
// implementations added during the session, pytest's own functions, its
// connections. capsule_boot.py's docstring states which events are watched
// and which frame an event is attributed to.
//
// A report is written inside the sandbox by the same interpreter as the code
// under test: it is evidence, never proof. Reading it trusts nothing: a line
// that does not parse, a record of a process that never started and a
// process that never finished are all kept in the [Report] and make it
// incomplete, never a pass; which process sent a record is the sandbox's
// word, never the record's. Package gate decides what a report means.
package testreport

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// MaxReportBytes is the most of a report that is read; a longer one is
// incomplete.
const MaxReportBytes = 32 << 20

// Bounds of the texts kept from a report, which the code under test may
// have written.
const (
	maxMessage   = 300
	maxLongrepr  = 2000
	maxMalformed = 20
	// maxAudit bounds the different audit events kept, maxIntegrity the
	// integrity failures: more make the report incomplete, so that a
	// flood of events cannot hide one.
	maxAudit     = 10000
	maxIntegrity = 1000
)

// ID is a test's identity, stable across runs of the same command.
type ID struct {
	// File is the test's file relative to the workspace root (pytest), or
	// its package's import path (go test).
	File string
	// Class holds the enclosing classes, "::"-separated, outermost first.
	Class string
	// Name is the test function's name without parameters; a Go subtest's
	// name is its full "TestX/sub" path.
	Name string
	// Params is the parameter id of a parametrized test, without brackets.
	Params string
}

// String formats the identity as pytest's node id does:
// file::Class::name[params]; an identity of a whole file (no name) is the
// file.
func (id ID) String() string {
	var b strings.Builder
	b.WriteString(id.File)
	if id.Class == "" && id.Name == "" {
		return b.String()
	}
	if id.Class != "" {
		b.WriteString("::" + id.Class)
	}
	b.WriteString("::" + id.Name)
	if id.Params != "" {
		b.WriteString("[" + id.Params + "]")
	}
	return b.String()
}

// Compare orders identities by their parts, for stable listings.
func (id ID) Compare(o ID) int {
	return cmp.Or(strings.Compare(id.File, o.File), strings.Compare(id.Class, o.Class),
		strings.Compare(id.Name, o.Name), strings.Compare(id.Params, o.Params))
}

// Outcome is how a test ended.
type Outcome string

// The outcomes, as pytest names them; go test's pass, fail and skip are
// Passed, Failed and Skipped.
const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"
	Error   Outcome = "error" // in set-up or teardown, not in the test itself
	Skipped Outcome = "skipped"
	XFailed Outcome = "xfailed" // failed as expected
	XPassed Outcome = "xpassed" // passed although expected to fail
)

// rank orders outcomes from best to worst, for a test reported twice.
var rank = map[Outcome]int{Skipped: 0, XFailed: 1, Passed: 2, XPassed: 2, Failed: 3, Error: 4}

// Valid reports whether o is one of the outcomes.
func (o Outcome) Valid() bool { _, ok := rank[o]; return ok }

// Passing reports whether the test ran and passed: passed, or passed
// although marked as expected to fail.
func (o Outcome) Passing() bool { return o == Passed || o == XPassed }

// Failing reports whether the test failed or errored.
func (o Outcome) Failing() bool { return o == Failed || o == Error }

// Result is one test's outcome in a run.
type Result struct {
	ID      ID
	Outcome Outcome
	// Phase is where an error or failure happened: setup, call or teardown.
	Phase    string
	Duration time.Duration
	// Message is one line saying why a test did not pass (the exception),
	// or why it was skipped; Longrepr is a bounded excerpt of its report.
	Message, Longrepr string
}

// Process is one test process of the run: a pytest session, or a package's
// test binary under go test.
type Process struct {
	// Name is the pytest session's pid ("pid 57", "pid 57 session 2" for
	// its process's second session), or the Go package's import path.
	Name string
	// PID is the pytest session's process, as the sandbox saw it connect
	// to the report channel; 0 for go test.
	PID int
	// Tripwire reports that the process had the tripwire installed when
	// its session started: its audit events were watched. Without it,
	// tampering could not be seen (a virtualenv's interpreter, go test).
	Tripwire bool
	// Collected is how many tests the process selected to run; Failing
	// counts the failing or erroring results it recorded.
	Collected, Failing int
	// CollectErrors are the files (or packages) that could not be
	// collected (or built).
	CollectErrors []CollectError
	// Ended reports that the process wrote its end record: it finished its
	// session. ExitStatus is the status it then reported.
	Ended      bool
	ExitStatus int
	// Stopped says why the session stopped before running every test it
	// collected (pytest's -x or --maxfail), or is empty.
	Stopped string
}

// AuditEvent is an event the tripwire saw a test process raise: by which
// code reaches into the runner (gc object walks, ctypes, opening the
// plugin's files and the like), where it came from, and in which process.
type AuditEvent struct {
	// Event is the audit event's name, such as "gc.get_objects".
	Event string
	// File is the file of the code that raised it, relative to the
	// workspace when inside it; Line is its line there.
	File   string
	Line   int
	Detail string
	PID    int
}

// Integrity is a failed integrity check of a test session: the plugin's
// functions, the test modules or the runner's hooks changed during the
// session, or its tripwire was closed.
type Integrity struct {
	Check, Detail string
	// File and Line say where, when known; File is relative to the
	// workspace when inside it.
	File string
	Line int
	PID  int
}

// CollectError is a file or package that could not be collected.
type CollectError struct {
	// Path is the file or directory relative to the workspace root, or
	// the package's import path; empty for the whole session.
	Path    string
	Message string
}

// Report is every test outcome of one run of a test command.
type Report struct {
	// Tests holds each test's result; a test reported more than once (two
	// invocations running the same file) keeps its worst outcome.
	Tests     map[ID]Result
	Processes []Process
	// Audit holds each different event the tripwires recorded, in order;
	// Integrity the sessions' failed integrity checks.
	Audit     []AuditEvent
	Integrity []Integrity
	// Malformed describes the lines that could not be read (at most a
	// few), MalformedLines counts them all.
	Malformed      []string
	MalformedLines int
	// Truncated reports that the report was longer than MaxReportBytes:
	// the rest was not read.
	Truncated bool
	// RunnerWritten names the format of the results when they come from
	// files or output the runner wrote ("JUnit XML", "Jest JSON",
	// "libtest output"; see ParseReportFiles and ParseCargoTest): written
	// in the process that runs the code under test and watched by no
	// tripwire. It is empty for the report channel's records and go test.
	RunnerWritten string
}

// newReport returns an empty report.
func newReport() *Report { return &Report{Tests: map[ID]Result{}} }

// Complete reports whether the report can be read as the whole run: every
// process finished, every line was read, nothing was cut.
func (r *Report) Complete() bool { return r.Incomplete() == "" }

// Incomplete says why the report is not the whole run, or is empty.
func (r *Report) Incomplete() string {
	switch {
	case r.Truncated:
		return fmt.Sprintf("the test report is longer than %d MiB", MaxReportBytes>>20)
	case r.MalformedLines > 0:
		return fmt.Sprintf("%d lines of the test report could not be read (%s)", r.MalformedLines, r.Malformed[0])
	}
	var unfinished []string
	for _, p := range r.Processes {
		if !p.Ended {
			unfinished = append(unfinished, p.Name)
		}
	}
	if len(unfinished) > 0 {
		return fmt.Sprintf("%d of %d test processes ended without finishing their session (%s)",
			len(unfinished), len(r.Processes), strings.Join(unfinished, ", "))
	}
	return ""
}

// Unwatched counts the processes that ran without the tripwire.
func (r *Report) Unwatched() int {
	n := 0
	for _, p := range r.Processes {
		if !p.Tripwire {
			n++
		}
	}
	return n
}

// IDs lists the tests of the report in order.
func (r *Report) IDs() []ID {
	return slices.SortedFunc(maps.Keys(r.Tests), ID.Compare)
}

// CollectErrors lists every process's collection errors.
func (r *Report) CollectErrors() []CollectError {
	var all []CollectError
	for _, p := range r.Processes {
		all = append(all, p.CollectErrors...)
	}
	return all
}

// Stopped says why a process stopped before running all it collected, or
// is empty.
func (r *Report) Stopped() string {
	for _, p := range r.Processes {
		if p.Stopped != "" {
			return p.Stopped
		}
	}
	return ""
}

// add records a result, keeping the worst outcome of a test seen twice.
func (r *Report) add(res Result) {
	if old, ok := r.Tests[res.ID]; ok && rank[old.Outcome] > rank[res.Outcome] {
		return
	}
	r.Tests[res.ID] = res
}

// malformed notes a line that could not be read.
func (r *Report) malformed(line int, why string) {
	r.MalformedLines++
	if len(r.Malformed) < maxMalformed {
		r.Malformed = append(r.Malformed, fmt.Sprintf("line %d: %s", line, why))
	}
}

// bound cuts s to at most n bytes, dropping a rune cut in two, and marks
// the cut.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + " [...]"
}
