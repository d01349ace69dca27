package testreport

import (
	"bytes"
	"cmp"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The lines of libtest's output (the harness of `cargo test`), and of
// cargo's status lines on the standard error that name each test binary.
var (
	cargoRunning = regexp.MustCompile(`^running (\d+) tests?$`)
	cargoResult  = regexp.MustCompile(`^test (.+) \.\.\. (ok|FAILED|ignored(?:, .*)?|bench: .*)$`)
	cargoSummary = regexp.MustCompile(`^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured; (\d+) filtered out(?:; finished in \S+)?$`)
	cargoFailure = regexp.MustCompile(`^---- (.+) std(?:out|err) ----$`)
	cargoBinary  = regexp.MustCompile(`^\s+Running (?:unittests )?(\S+)(?: \((\S+)\))?$`)
	cargoDoc     = regexp.MustCompile(`^\s+Doc-tests (\S+)$`)
	cargoTerse   = regexp.MustCompile(`^[.Fi]+(?: \d+/\d+)?$`)
	cargoDocLine = regexp.MustCompile(`^(.*) \(line (\d+)\)$`)
	cargoBuild   = regexp.MustCompile("^error: could not compile `([^`]+)`(?: \\(([^)]*)\\))?")
	ansiEscape   = regexp.MustCompile("\x1b\\[[0-9;]*m")
)

// ParseCargoTest reads the output of `cargo test`: libtest's lines on the
// standard output (stdout) and cargo's on the standard error (stderr),
// whose "Running" and "Doc-tests" lines name the test binaries in the
// order they ran. Each binary is a Process whose tests' File is its
// source (src/lib.rs, tests/it.rs; "CRATE (doc-tests)" for doc tests, and
// the source with the binary's name when two share it), "test binary N"
// when the standard error names none.
//
// The output is written by the processes that run the code under test,
// which may print anything, also past libtest's capture; so it is read as
// hostile, and only what libtest's own structure vouches for counts:
//   - a binary's results are the "test NAME ... ok|FAILED|ignored" lines
//     between its "running N tests" line and its "test result:" line,
//     before its "failures:" or "successes:" (--show-output) section,
//     whose captured output may look like anything, each test once;
//   - they must add up to N and to the summary's counts, which must agree
//     with its "ok" or "FAILED"; a block that does not, a block opened
//     inside another, and a block never closed make the report
//     incomplete, as does a number of blocks that differs from the
//     binaries cargo named.
//
// A forged line therefore needs a forged block around it that matches
// cargo's count of binaries: what is left is what the proof names a
// runner-written report. Doc tests are named without their line ("src/lib.rs
// - add", a second example of one item "[2]"), so that a fix that moves
// them keeps their identity.
func ParseCargoTest(stdout, stderr []byte) *Report {
	r := &cargoReader{rep: newReport(), names: cargoBinaries(stderr)}
	r.rep.RunnerWritten = "libtest output"
	for n, line := range lines(r.rep, stdout) {
		r.line(n, cleanLine(line))
	}
	if r.block != nil {
		r.rep.malformed(0, fmt.Sprintf("%s: its results end before libtest's summary", r.block.name))
		r.block = nil
	}
	if r.names != nil && len(r.rep.Processes) != len(r.names) {
		r.rep.malformed(0, fmt.Sprintf("cargo ran %d test binaries, but %d blocks of libtest results were read", len(r.names), len(r.rep.Processes)))
	}
	r.rep.Processes = append(r.rep.Processes, cargoBuildErrors(stderr)...)
	return r.rep
}

// cargoBuildErrors reads cargo's standard error for the targets that did
// not compile ("error: could not compile `calc` (test "it")"): each is a
// process that stopped at its collection, whose collection error is at
// its source as cargo names test binaries (tests/it.rs for an integration
// test, src/lib.rs for the library, "crate calc" for another target) and
// says the compiler's errors before it. Such a line, even forged, can only
// fail a run.
func cargoBuildErrors(stderr []byte) []Process {
	var procs []Process
	var diag strings.Builder
	inError := false
	for line := range bytes.SplitSeq(stderr, []byte("\n")) {
		s := cleanLine(line)
		if m := cargoBuild.FindStringSubmatch(s); m != nil {
			where := "crate " + m[1]
			switch kind := m[2]; {
			case strings.HasPrefix(kind, `test "`) && strings.HasSuffix(kind, `"`):
				where = "tests/" + strings.TrimSuffix(strings.TrimPrefix(kind, `test "`), `"`) + ".rs"
			case kind == "lib" || kind == "lib test":
				where = "src/lib.rs"
			}
			msg := cmp.Or(strings.TrimSpace(diag.String()), s)
			procs = append(procs, Process{Name: "the build of " + where, Ended: true, ExitStatus: 101,
				CollectErrors: []CollectError{{Path: where, Message: bound(msg, maxLongrepr)}}})
			diag.Reset()
			inError = false
			continue
		}
		switch {
		case strings.HasPrefix(s, "error[") || strings.HasPrefix(s, "error:"):
			inError = true
		case strings.TrimSpace(s) == "" || strings.HasPrefix(s, "warning"):
			inError = false
		}
		if inError && diag.Len() < maxLongrepr {
			diag.WriteString(s + "\n")
		}
	}
	return procs
}

// cleanLine drops a line's carriage return and colours.
func cleanLine(line []byte) string {
	s := string(bytes.TrimRight(line, "\r"))
	if strings.Contains(s, "\x1b") {
		s = ansiEscape.ReplaceAllString(s, "")
	}
	return s
}

// cargoBinaries returns the names of the test binaries cargo's standard
// error lists, in order, or nil when it lists none.
func cargoBinaries(stderr []byte) []string {
	var names []string
	for line := range bytes.SplitSeq(stderr, []byte("\n")) {
		s := cleanLine(line)
		switch m := cargoBinary.FindStringSubmatch(s); {
		case m != nil && m[2] != "":
			names = append(names, m[1]+"\x00"+binaryStem(m[2]))
		case m != nil:
			names = append(names, binaryStem(m[1])+"\x00")
		default:
			if m := cargoDoc.FindStringSubmatch(s); m != nil {
				names = append(names, m[1]+" (doc-tests)\x00")
			}
		}
	}
	// A source two binaries share is named with the binary.
	count := map[string]int{}
	for _, n := range names {
		src, _, _ := strings.Cut(n, "\x00")
		count[src]++
	}
	for i, n := range names {
		src, bin, _ := strings.Cut(n, "\x00")
		names[i] = src
		if count[src] > 1 && bin != "" {
			names[i] = src + " (" + bin + ")"
		}
	}
	return names
}

// binaryStem names a test binary by its file without cargo's hash:
// target/debug/deps/calc-1a2b3c4d becomes calc.
func binaryStem(p string) string {
	base := path.Base(strings.ReplaceAll(p, `\`, "/"))
	base = strings.TrimSuffix(base, ".exe")
	if i := strings.LastIndexByte(base, '-'); i > 0 {
		return base[:i]
	}
	return base
}

// cargoReader builds a Report from libtest's output.
type cargoReader struct {
	rep   *Report
	names []string
	block *cargoBlock
	tests int
}

// cargoBlock is the results of one test binary being read.
type cargoBlock struct {
	name     string
	expected int
	results  []cargoOutcome
	seen     map[string]bool
	// captured is set from the "failures:" (or --show-output's
	// "successes:") line on: captured output follows, no more results.
	captured bool
	// failing is the test whose captured output is being read, texts
	// what was read per test.
	failing string
	texts   map[string]*strings.Builder
	terse   bool
}

// cargoOutcome is one result line.
type cargoOutcome struct {
	name    string
	outcome Outcome
	message string
}

// line reads one line of the standard output.
func (r *cargoReader) line(n int, s string) {
	b := r.block
	if m := cargoRunning.FindStringSubmatch(s); m != nil {
		if b != nil {
			r.rep.malformed(n, fmt.Sprintf("%s: a block of results starts inside another", b.name))
		}
		expected, _ := strconv.Atoi(m[1])
		name := fmt.Sprintf("test binary %d", len(r.rep.Processes)+1)
		if i := len(r.rep.Processes); i < len(r.names) {
			name = r.names[i]
		}
		r.rep.Processes = append(r.rep.Processes, Process{Name: name, Collected: expected})
		r.block = &cargoBlock{name: name, expected: expected, seen: map[string]bool{}, texts: map[string]*strings.Builder{}}
		return
	}
	if b == nil {
		return // output outside a block: a test's own printing, or cargo's
	}
	if m := cargoSummary.FindStringSubmatch(s); m != nil {
		r.close(n, m)
		return
	}
	switch {
	case s == "failures:" || s == "successes:":
		b.captured, b.failing = true, ""
	case b.captured:
		if m := cargoFailure.FindStringSubmatch(s); m != nil {
			b.failing = m[1]
			if b.texts[b.failing] == nil {
				b.texts[b.failing] = &strings.Builder{}
			}
		} else if t := b.texts[b.failing]; t != nil && t.Len() < maxLongrepr {
			t.WriteString(s[:min(len(s), maxLongrepr-t.Len())] + "\n")
		}
	default:
		if m := cargoResult.FindStringSubmatch(s); m != nil {
			r.result(n, m[1], m[2])
		} else if cargoTerse.MatchString(s) {
			b.terse = true
		}
	}
}

// result reads one result line of the open block.
func (r *cargoReader) result(n int, name, status string) {
	b := r.block
	if b.seen[name] {
		r.rep.malformed(n, fmt.Sprintf("%s: test %s is reported twice", b.name, name))
		return
	}
	if r.tests++; r.tests > MaxJUnitTests {
		r.rep.malformed(n, fmt.Sprintf("more than %d tests", MaxJUnitTests))
		return
	}
	b.seen[name] = true
	o := cargoOutcome{name: name}
	switch {
	case status == "ok":
		o.outcome = Passed
	case status == "FAILED":
		o.outcome = Failed
	case strings.HasPrefix(status, "bench:"):
		o.outcome = "" // measured: counted, not a test result
	default:
		o.outcome = Skipped
		_, reason, _ := strings.Cut(status, ", ")
		o.message = bound(reason, maxMessage)
	}
	b.results = append(b.results, o)
}

// close ends the open block at its summary m: its counts must agree with
// the results read.
func (r *cargoReader) close(n int, m []string) {
	b := r.block
	r.block = nil
	p := &r.rep.Processes[len(r.rep.Processes)-1]
	num := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	passed, failed, ignored, measured := num(2), num(3), num(4), num(5)
	var got [3]int
	for _, o := range b.results {
		switch o.outcome {
		case Passed:
			got[0]++
		case Failed:
			got[1]++
		case Skipped:
			got[2]++
		}
	}
	switch {
	case b.terse && len(b.results) == 0 && b.expected > 0:
		r.rep.malformed(n, fmt.Sprintf("%s: libtest's terse output (-q, --format terse) names no test", b.name))
		return
	case got != [3]int{passed, failed, ignored} || len(b.results) != b.expected || passed+failed+ignored+measured != b.expected:
		r.rep.malformed(n, fmt.Sprintf("%s: libtest's summary counts %d passed, %d failed, %d ignored and %d measured of %d, but the result lines read are %d passed, %d failed, %d ignored of %d",
			b.name, passed, failed, ignored, measured, b.expected, got[0], got[1], got[2], len(b.results)))
		return
	case (m[1] == "ok") != (failed == 0):
		r.rep.malformed(n, fmt.Sprintf("%s: libtest's summary says %s with %d failed", b.name, m[1], failed))
		return
	}
	p.Ended = true
	p.Failing = failed
	if failed > 0 {
		p.ExitStatus = 101
	}
	for _, res := range r.identify(b) {
		r.rep.add(res)
	}
}

// identify names a closed block's results: a doc test's line becomes the
// ordinal of its example among those of the same item.
func (r *cargoReader) identify(b *cargoBlock) []Result {
	type doc struct {
		i, line int
	}
	examples := map[string][]doc{}
	var out []Result
	for i, o := range b.results {
		if o.outcome == "" {
			continue
		}
		name, _ := strings.CutSuffix(o.name, " - should panic")
		name, _ = strings.CutSuffix(name, " - compile fail")
		res := Result{ID: ID{File: b.name, Name: name}, Outcome: o.outcome, Message: o.message}
		if m := cargoDocLine.FindStringSubmatch(name); m != nil {
			line, _ := strconv.Atoi(m[2])
			res.ID.Name = m[1]
			examples[m[1]] = append(examples[m[1]], doc{len(out), line})
		}
		if t := b.texts[b.results[i].name]; t != nil && o.outcome == Failed {
			text := strings.TrimSpace(t.String())
			res.Longrepr = bound(text, maxLongrepr)
			res.Message = bound(panicMessage(text), maxMessage)
			res.Phase = "call"
		} else if o.outcome == Failed {
			res.Phase = "call"
		}
		out = append(out, res)
	}
	for _, docs := range examples {
		slices.SortFunc(docs, func(a, b doc) int { return cmp.Compare(a.line, b.line) })
		for k, d := range docs[1:] {
			out[d.i].ID.Params = strconv.Itoa(k + 2)
		}
	}
	return out
}

// panicMessage is the line that says why a test failed: a panic's
// message (on the line after "thread '…' panicked at FILE:LINE:COL:" since
// Rust 1.73, inside that line before), else the text's first line.
func panicMessage(text string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "thread '") || !strings.Contains(line, "panicked at") {
			continue
		}
		if strings.HasSuffix(line, ":") && i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
			return strings.TrimSpace(lines[i+1])
		}
		return line
	}
	return lines[0]
}
