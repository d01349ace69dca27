// Package harness builds the case-testing run of function-level tasks: the
// files written into the sandbox workspace, the one command that runs them,
// and the reading of that command's output.
//
// The command runs an embedded Python script (stdlib only, Python 3.8+)
// that removes the example calls from the model's code, runs the cleaned code
// and the tests in a child process with a timeout, and reports on stderr in
// lines "##capsule <json object>", which [ParseOutput] reads and strips:
//
//	##capsule {"removed": [[12, 13]], "syntax_ok": true}   before the run
//	##capsule {"timeout": 10}                               after a timeout
//
// Its other messages start with "capsule: ". Tracebacks name the files
// solution.py and tests.py, with the line numbers of the model's code. The
// exit status is 0 when all tests passed, 124 on timeout, 128+N when the
// tests were killed by signal N, and 1 for a failure.
package harness

import (
	_ "embed"
	"fmt"
	"strconv"
	"time"
)

// File names in the workspace, and the interpreter the command runs.
const (
	SolutionFile = "solution.py"
	TestsFile    = "tests.py"
	ScriptFile   = "capsule_harness.py"
	Python       = "python3"
)

// DefaultTimeout is the time limit of a Program without one.
const DefaultTimeout = 10 * time.Second

// TimeoutExitCode is the exit status of a run stopped at its time limit.
const TimeoutExitCode = 124

//go:embed harness.py
var script string

// Program is the code and tests of one function-level attempt.
type Program struct {
	// Solution is the model's code, as it answered.
	Solution string
	// Tests is the test code: plain asserts (MBPP) or a HumanEval
	// `def check(candidate)`.
	Tests string
	// EntryPoint is the function under test. When it is set and Tests
	// defines check, the harness calls check(EntryPoint) after the tests;
	// example-call removal also drops assignments that call it.
	EntryPoint string
	// Timeout bounds the run of the tests; DefaultTimeout when zero or less.
	Timeout time.Duration
}

// Validate reports a Program the harness would refuse.
func (p Program) Validate() error {
	if p.EntryPoint != "" && !isIdentifier(p.EntryPoint) {
		return fmt.Errorf("harness: entry point %q is not a Python identifier", p.EntryPoint)
	}
	return nil
}

// Files returns the files to write into the workspace, by name relative to
// it: the solution, the tests and the harness script.
func (p Program) Files() map[string][]byte {
	return map[string][]byte{
		SolutionFile: []byte(p.Solution),
		TestsFile:    []byte(p.Tests),
		ScriptFile:   []byte(script),
	}
}

// Command returns the command to run in the workspace, as argv.
func (p Program) Command() []string {
	argv := []string{
		Python, "-B", ScriptFile,
		"--timeout", strconv.FormatFloat(p.timeout().Seconds(), 'f', -1, 64),
		"--solution", SolutionFile,
		"--tests", TestsFile,
	}
	if p.EntryPoint != "" {
		argv = append(argv, "--entry-point", p.EntryPoint)
	}
	return argv
}

func (p Program) timeout() time.Duration {
	if p.Timeout <= 0 {
		return DefaultTimeout
	}
	return p.Timeout
}

// isIdentifier reports whether s is an ASCII Python identifier. The script
// accepts any str.isidentifier(); tasks only use ASCII names.
func isIdentifier(s string) bool {
	for i, r := range s {
		letter := r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}
