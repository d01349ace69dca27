package harness

import (
	"encoding/json"
	"strings"
	"time"
)

// protocolPrefix starts the script's machine-readable lines on stderr.
const protocolPrefix = "##capsule "

// Result is what a harness run tells, read from its exit status and output.
type Result struct {
	// ExitCode is the exit status of the command.
	ExitCode int
	// Passed reports that all tests passed.
	Passed bool
	// TimedOut reports that a limit stopped the tests: their CPU time
	// (CPULimited) or the wall-clock backstop.
	TimedOut bool
	// CPULimited reports that the tests used up their CPU time.
	CPULimited bool
	// CPU is the CPU time the tests used, when the harness reported it.
	CPU time.Duration
	// Removed lists the 1-based, inclusive line ranges of the solution that
	// example-call removal blanked out.
	Removed [][2]int
	// SyntaxOK reports that the solution parsed. It is false too when the
	// harness did not get as far as reporting it.
	SyntaxOK bool
	// Stdout and Stderr are the output without the protocol lines.
	Stdout, Stderr string
}

// report is one protocol line; absent fields leave earlier values alone.
type report struct {
	Removed  *[][2]int `json:"removed"`
	SyntaxOK *bool     `json:"syntax_ok"`
	Timeout  *float64  `json:"timeout"`
	CPU      *float64  `json:"cpu"`
	CPULimit *float64  `json:"cpu_limit"`
}

// ParseOutput reads the outcome of the command of a [Program]. Passed rests
// on the exit status alone, so that output cut short by a capture limit
// cannot turn a failure into a pass or the reverse.
func ParseOutput(exitCode int, stdout, stderr string) Result {
	res := Result{ExitCode: exitCode, Stdout: stdout}
	var kept []string
	for _, line := range strings.SplitAfter(stderr, "\n") {
		before, r, ok := cutReport(line)
		if !ok {
			kept = append(kept, line)
			continue
		}
		if before != "" {
			kept = append(kept, before+"\n")
		}
		if r.Removed != nil && len(*r.Removed) > 0 {
			res.Removed = *r.Removed
		}
		if r.SyntaxOK != nil {
			res.SyntaxOK = *r.SyntaxOK
		}
		if r.Timeout != nil {
			res.TimedOut = true
		}
		if r.CPULimit != nil {
			res.TimedOut, res.CPULimited = true, true
		}
		if r.CPU != nil && *r.CPU >= 0 {
			res.CPU = time.Duration(*r.CPU * float64(time.Second))
		}
	}
	res.Stderr = strings.Join(kept, "")
	res.TimedOut = res.TimedOut || exitCode == TimeoutExitCode
	res.Passed = exitCode == 0 && !res.TimedOut
	return res
}

// cutReport finds a protocol line in line. Output the code wrote without a
// final newline may precede it; that part is returned as before.
func cutReport(line string) (before string, r report, ok bool) {
	i := strings.Index(line, protocolPrefix+"{")
	if i < 0 {
		return "", report{}, false
	}
	body := strings.TrimRight(line[i+len(protocolPrefix):], "\r\n")
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		return "", report{}, false
	}
	return line[:i], r, true
}

// StripRemoved returns code as the harness ran it: the lines in removed
// (1-based, inclusive ranges, as in [Result]) blanked out. Like the script,
// it turns "\r\n" and "\r" line ends into "\n" when it removes anything.
func StripRemoved(code string, removed [][2]int) string {
	if len(removed) == 0 {
		return code
	}
	code = strings.ReplaceAll(code, "\r\n", "\n")
	code = strings.ReplaceAll(code, "\r", "\n")
	lines := strings.Split(code, "\n")
	for _, r := range removed {
		first, last := max(r[0], 1), min(r[1], len(lines))
		for n := first; n <= last; n++ {
			lines[n-1] = ""
		}
	}
	return strings.Join(lines, "\n")
}
