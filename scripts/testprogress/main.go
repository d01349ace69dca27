// Command testprogress reads `go test -json` on standard input and shows
// the run's progress on standard output: a line per package as it
// finishes, with its time and how many of its tests passed, failed and
// were skipped, the output of every failed test, and at the end the
// totals per package and the tests skipped. It exits 1 when a package
// failed. scripts/test.sh
// runs the suite through it.
//
// Usage: go test -json ./... | testprogress [-raw FILE]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

func main() {
	raw := flag.String("raw", "", "also write the events, as read, to `FILE`")
	flag.Parse()
	in := io.Reader(os.Stdin)
	if *raw != "" {
		f, err := os.Create(*raw)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testprogress:", err)
			os.Exit(2)
		}
		defer f.Close()
		in = io.TeeReader(in, f)
	}
	start := time.Now()
	r, err := summarize(in, os.Stdout, func() time.Duration { return time.Since(start) })
	if err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(2)
	}
	if r.failed() {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action     string
	Package    string
	ImportPath string // of build-output and build-fail
	Test       string
	Output     string
	Elapsed    float64
}

// counts are a package's tests (subtests included) by outcome.
type counts struct{ passed, failed, skipped int }

func (c *counts) add(o counts) {
	c.passed += o.passed
	c.failed += o.failed
	c.skipped += o.skipped
}

func (c counts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", c.passed, c.failed, c.skipped)
}

// pkg is what is known of one package.
type pkg struct {
	name    string
	result  string // ok, FAIL or ? (no tests); empty while running
	elapsed time.Duration
	counts  counts
	output  map[string][]string // by test; "" is the package's own
	skipped []string            // the tests skipped
}

// report is a run's packages.
type report struct {
	pkgs    map[string]*pkg
	started int
	done    int
}

func (r *report) failed() bool {
	for _, p := range r.pkgs {
		if p.result != "ok" && p.result != "?" {
			return true
		}
	}
	return false
}

func (r *report) pkg(name string) *pkg {
	p, ok := r.pkgs[name]
	if !ok {
		p = &pkg{name: name, output: map[string][]string{}}
		r.pkgs[name] = p
	}
	return p
}

// maxFailureLines bounds the output shown of one failed test.
const maxFailureLines = 200

// summarize reads the events from in and writes the progress to out; since
// gives the time since the run began.
func summarize(in io.Reader, out io.Writer, since func() time.Duration) (*report, error) {
	r := &report{pkgs: map[string]*pkg{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || (e.Action == "" && e.ImportPath == "") {
			fmt.Fprintf(out, "%s\n", line) // not an event: go's own message
			continue
		}
		name := e.Package
		if name == "" {
			name = strings.TrimSuffix(e.ImportPath, " [build]")
			if i := strings.Index(name, " ["); i >= 0 {
				name = name[:i] // "pkg [pkg.test]"
			}
		}
		p := r.pkg(name)
		switch e.Action {
		case "start":
			r.started++
		case "output", "build-output":
			if !strings.HasPrefix(e.Output, "=== ") { // === RUN, PAUSE, CONT
				p.output[e.Test] = append(p.output[e.Test], e.Output)
			}
		case "build-fail":
			p.result = "FAIL"
		case "pass", "fail", "skip":
			if e.Test != "" {
				switch e.Action {
				case "pass":
					p.counts.passed++
				case "fail":
					p.counts.failed++
					showFailure(out, p, e.Test, e.Test)
				case "skip":
					p.counts.skipped++
					p.skipped = append(p.skipped, e.Test)
				}
				delete(p.output, e.Test)
				continue
			}
			r.done++
			p.elapsed = time.Duration(e.Elapsed * float64(time.Second))
			p.result = map[string]string{"pass": "ok", "fail": "FAIL", "skip": "?"}[e.Action]
			if e.Action == "fail" {
				showUnfinished(out, p)
				showFailure(out, p, "", "")
			}
			fmt.Fprintf(out, "%-4s %-50s %8s  %s  [%d done, %d running, %s]\n",
				p.result, p.name, p.elapsed.Round(100*time.Millisecond), p.counts, r.done, r.started-r.done, since().Round(time.Second))
			p.output = nil
		}
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	writeTotals(out, r, since())
	return r, nil
}

// showFailure writes the output of a failed test (test "" for the
// package's own output: a panic, a build failure) under the heading
// "--- FAIL <package> <what>".
func showFailure(out io.Writer, p *pkg, test, what string) {
	lines := p.output[test]
	if len(lines) == 0 && test != "" {
		return // a parent whose subtest failed, already shown
	}
	if len(lines) > maxFailureLines {
		lines = append([]string{fmt.Sprintf("... (%d earlier lines left out)\n", len(lines)-maxFailureLines)}, lines[len(lines)-maxFailureLines:]...)
	}
	fmt.Fprintf(out, "--- FAIL %s\n%s", strings.TrimSpace(p.name+" "+what), strings.Join(lines, ""))
}

// showUnfinished writes the output of the tests of a failed package that
// never ended, such as the one running when the package's -timeout ran
// out, whose output holds the panic and every goroutine; they count as
// failed.
func showUnfinished(out io.Writer, p *pkg) {
	var tests []string
	for test, lines := range p.output {
		if test != "" && len(lines) > 0 {
			tests = append(tests, test)
		}
	}
	sort.Strings(tests)
	for _, test := range tests {
		p.counts.failed++
		showFailure(out, p, test, test+" (did not finish)")
	}
}

// writeTotals writes the counts of every package and their sum.
func writeTotals(out io.Writer, r *report, took time.Duration) {
	names := make([]string, 0, len(r.pkgs))
	for n := range r.pkgs {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(out, "\nTotals (tests and subtests):\n")
	var all counts
	failed := 0
	for _, n := range names {
		p := r.pkgs[n]
		result := p.result
		if result == "" {
			result = "FAIL" // never finished: the run was cut short
			p.result = result
		}
		if result == "FAIL" {
			failed++
		}
		fmt.Fprintf(out, "%-4s %-50s %8s  %s\n", result, n, p.elapsed.Round(100*time.Millisecond), p.counts)
		all.add(p.counts)
	}
	fmt.Fprintf(out, "%d packages, %d failed; %s; %s\n", len(names), failed, all, took.Round(time.Second))
	for _, n := range names {
		for _, test := range r.pkgs[n].skipped {
			fmt.Fprintf(out, "skipped: %s %s\n", n, test)
		}
	}
}
