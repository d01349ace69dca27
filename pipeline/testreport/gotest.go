package testreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// maxGoOutput bounds the output kept per Go test while reading.
const maxGoOutput = 8 << 10

// event is one line of `go test -json` (test2json), with the build events
// that go 1.24 and later add.
type event struct {
	Action      string
	Package     string
	ImportPath  string // build-output and build-fail
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
}

// goReader builds a Report from test2json events.
type goReader struct {
	rep *Report
	// pkg maps a package to its process; output holds what each running
	// test printed, and build what each package's build printed.
	pkg    map[string]int
	output map[ID]*strings.Builder
	build  map[string]*strings.Builder
}

// ParseGoTest reads the output of `go test -json`: every test and subtest
// becomes a Result with File set to its package, every package a Process
// (a build failure is its collection error). Lines that are not JSON
// objects are the go command's own messages and are skipped; an object
// that does not parse is malformed. A package that starts and never ends
// leaves the report incomplete; a test that starts and never ends in a
// package that ends is a failure.
func ParseGoTest(data []byte) *Report {
	r := &goReader{rep: newReport(), pkg: map[string]int{}, output: map[ID]*strings.Builder{}, build: map[string]*strings.Builder{}}
	for n, line := range lines(r.rep, data) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil {
			r.rep.malformed(n, fmt.Sprintf("not a test2json event: %v", err))
			continue
		}
		r.read(ev)
	}
	return r.rep
}

func (r *goReader) read(ev event) {
	switch ev.Action {
	case "build-output":
		pkg, _, _ := strings.Cut(ev.ImportPath, " ")
		b, ok := r.build[pkg]
		if !ok {
			b = &strings.Builder{}
			r.build[pkg] = b
		}
		appendBounded(b, ev.Output)
		return
	case "start":
		r.pkg[ev.Package] = len(r.rep.Processes)
		r.rep.Processes = append(r.rep.Processes, Process{Name: ev.Package})
		return
	}
	i, ok := r.pkg[ev.Package]
	if !ok {
		return // build-fail and events of a package that never started
	}
	p := &r.rep.Processes[i]
	if ev.Test == "" {
		if ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip" {
			r.endPackage(p, ev)
		}
		return
	}
	id := ID{File: ev.Package, Name: ev.Test}
	switch ev.Action {
	case "run":
		if !strings.Contains(ev.Test, "/") {
			p.Collected++
		}
		r.output[id] = &strings.Builder{}
	case "output":
		if b, ok := r.output[id]; ok {
			appendBounded(b, ev.Output)
		}
	case "pass", "fail", "skip":
		outcome := map[string]Outcome{"pass": Passed, "fail": Failed, "skip": Skipped}[ev.Action]
		r.finish(id, outcome, time.Duration(ev.Elapsed*float64(time.Second)))
	}
}

// endPackage ends a package's process, failing the tests it left running.
func (r *goReader) endPackage(p *Process, ev event) {
	p.Ended = true
	if ev.Action == "fail" {
		p.ExitStatus = 1
	}
	if ev.FailedBuild != "" {
		msg := ""
		if b, ok := r.build[ev.Package]; ok {
			msg = firstLine(b.String(), "# ")
		}
		p.CollectErrors = append(p.CollectErrors, CollectError{Path: ev.Package, Message: bound(msg, maxMessage)})
	}
	for id := range r.output {
		if id.File == ev.Package {
			r.finish(id, Failed, 0)
			res := r.rep.Tests[id]
			res.Message = "the test did not finish: its package's test binary ended"
			r.rep.Tests[id] = res
		}
	}
}

// finish records a test's result with the output it printed.
func (r *goReader) finish(id ID, outcome Outcome, d time.Duration) {
	out := ""
	if b, ok := r.output[id]; ok {
		out = b.String()
		delete(r.output, id)
	}
	res := Result{ID: id, Outcome: outcome, Duration: max(d, 0)}
	if outcome != Passed {
		res.Message = bound(firstLine(out, "=== ", "--- "), maxMessage)
		res.Longrepr = bound(out, maxLongrepr)
	}
	if outcome == Failed {
		res.Phase = "call"
		if i, ok := r.pkg[id.File]; ok {
			r.rep.Processes[i].Failing++
		}
	}
	r.rep.add(res)
}

// appendBounded appends s to b while b is under maxGoOutput.
func appendBounded(b *strings.Builder, s string) {
	if b.Len() < maxGoOutput {
		b.WriteString(s[:min(len(s), maxGoOutput-b.Len())])
	}
}

// firstLine returns the first non-blank line of s that starts with none of
// skip, trimmed.
func firstLine(s string, skip ...string) string {
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		if line == "" || hasAnyPrefix(line, skip) {
			continue
		}
		return line
	}
	return ""
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
