// Package harness builds the case-testing run of function-level tasks: the
// files written into the sandbox workspace, the one command that runs them,
// and the reading of that command's output.
//
// The command runs an embedded Python script (stdlib only, Python 3.8+)
// that removes the example calls from the model's code, runs the cleaned code
// and the tests in a child process with a timeout (a fork of the script), and
// reports on stderr in lines "##capsule <json object>", which [ParseOutput]
// reads and strips:
//
//	##capsule {"removed": [[12, 13]], "syntax_ok": true}   before the run
//	##capsule {"cpu": 0.412}                                after the run
//	##capsule {"cpu_limit": 10}                             past the CPU-time limit
//	##capsule {"timeout": 40}                               past the wall clock
//
// Its other messages start with "capsule: ". Tracebacks name the files
// solution.py and tests.py, with the line numbers of the model's code. The
// exit status is 0 when all tests passed, 124 on timeout, 128+N when the
// tests were killed by signal N, and 1 for a failure.
//
// In the sandbox no interpreter starts at all: the sandbox's warm parent
// loads [Script] once and forks it for each run with [Program.Args] (see
// pipeline.RunTests); [Program.Command] is the same run as a command, for
// where no warm parent can run.
//
// The tests' time is bounded in CPU seconds, not wall-clock seconds, so that
// a verdict does not depend on how busy the machine is; the wall clock is
// only a loose backstop (see [WallLimit]) for code that sleeps or waits.
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

// DefaultCPULimit is the CPU-time limit of a Program without one.
const DefaultCPULimit = 10 * time.Second

// The wall clock backs the CPU-time limit up for code that waits. Past
// WallLimit (wallFactor times the CPU-time limit plus wallSlack) the script
// stops tests that have used almost no CPU over its last ten seconds; code
// that computes on a machine busy with other work goes on until its CPU time
// runs out, or until HardWallLimit (hardFactor times WallLimit) in any case.
const (
	wallFactor = 3
	wallSlack  = 10 * time.Second
	hardFactor = 10
)

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
	// CPULimit bounds the CPU time of the tests, rounded up to whole
	// seconds as the kernel counts it; DefaultCPULimit when zero or less.
	CPULimit time.Duration
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

// Script returns the harness script, the file ScriptFile of Files.
func Script() []byte { return []byte(script) }

// Command returns the command to run in the workspace, as argv: the
// interpreter with Args.
func (p Program) Command() []string {
	return append([]string{Python, "-B", "-u"}, p.Args()...)
}

// Args returns the script's argv, its file name first: what a warm
// interpreter that has loaded Script runs it with, in place of Command.
func (p Program) Args() []string {
	argv := []string{
		ScriptFile,
		"--cpu-limit", strconv.FormatFloat(p.CPU().Seconds(), 'f', -1, 64),
		"--timeout", strconv.FormatFloat(p.WallLimit().Seconds(), 'f', -1, 64),
		"--hard-timeout", strconv.FormatFloat(p.HardWallLimit().Seconds(), 'f', -1, 64),
		"--solution", SolutionFile,
		"--tests", TestsFile,
	}
	if p.EntryPoint != "" {
		argv = append(argv, "--entry-point", p.EntryPoint)
	}
	return argv
}

// Env returns the KEY=VALUE pairs the command runs with. The tests run in
// a fork of the script and so get its hash seed, fixed at 0 so that runs
// agree; a command started without it starts itself again with it, at the
// cost of a second interpreter.
func (p Program) Env() []string {
	return []string{"PYTHONHASHSEED=0"}
}

// CPU returns the CPU-time limit the run gets: CPULimit, or the default,
// rounded up to a whole second.
func (p Program) CPU() time.Duration {
	limit := p.CPULimit
	if limit <= 0 {
		limit = DefaultCPULimit
	}
	return (limit + time.Second - 1).Truncate(time.Second)
}

// WallRule describes, for people, how the wall-clock limits follow from the
// CPU-time limit.
func WallRule() string {
	return fmt.Sprintf("tests using almost no CPU are stopped after %d x the CPU-time limit + %s, all tests after %d times that",
		wallFactor, wallSlack, hardFactor)
}

// WallLimit returns the wall-clock time after which tests that use almost
// no CPU are stopped.
func (p Program) WallLimit() time.Duration {
	return wallFactor*p.CPU() + wallSlack
}

// CPUForWall returns the least CPU-time limit whose WallLimit is at least
// wall: what tests that wait (sleep, poll a subprocess) for that long
// need. It is zero when any limit's wall clock is long enough.
func CPUForWall(wall time.Duration) time.Duration {
	if wall <= wallSlack {
		return 0
	}
	return (wall - wallSlack + wallFactor - 1) / wallFactor
}

// HardWallLimit returns the wall-clock time after which the tests are
// stopped in any case.
func (p Program) HardWallLimit() time.Duration {
	return hardFactor * p.WallLimit()
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
