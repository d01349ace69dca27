package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/pipeline/harness/harnesstest"
)

// run runs p with the local interpreter python in a fresh workspace.
func run(t *testing.T, python string, p harness.Program) harness.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := harnesstest.RunProgram(ctx, harnesstest.Local{Python: python}, t.TempDir(), p)
	if err != nil {
		t.Fatal(err)
	}
	return harness.ParseOutput(out.ExitCode, out.Stdout, out.Stderr)
}

const addCheck = `METADATA = {"author": "capsule"}


def check(candidate):
    assert candidate(1, 1) == 2
    assert candidate(2, 3) == 5
`

// exampleCalls has every kind of top-level statement removal deals with.
const exampleCalls = `import sys
try:
    from math import gcd
except ImportError:  # an import fallback stays
    gcd = None

LIMIT, STEP = 100, 1
sys.setrecursionlimit(2000)
first = add(0, 0)
print(add(3, 4))
n = int(input())
for i in range(3):
    print(i)


def add(a, b):
    """Add, bounded by LIMIT."""
    assert gcd is not None
    return min(a + b, LIMIT) * STEP


if __name__ == "__main__":
    print(add(1, 2))
`

func TestRun(t *testing.T) {
	python := harnesstest.RequirePython(t)
	tests := []struct {
		name     string
		prog     harness.Program
		exit     int
		syntaxOK bool
		removed  [][2]int
		stdout   string
		stderr   []string // substrings of Stderr, in order
	}{{
		name:     "humaneval pass",
		prog:     harness.Program{Solution: "def add(a, b):\n    return a + b\n", Tests: addCheck, EntryPoint: "add"},
		syntaxOK: true,
	}, {
		name:     "mbpp pass",
		prog:     harness.Program{Solution: "def add(a, b):\n    return a + b\n", Tests: "assert add(1, 1) == 2\n"},
		syntaxOK: true,
	}, {
		name:     "assertion",
		prog:     harness.Program{Solution: "def add(a, b):\n    return a + b + 1\n", Tests: addCheck, EntryPoint: "add"},
		exit:     1,
		syntaxOK: true,
		stderr: []string{
			"Traceback (most recent call last):\n",
			`  File "tests.py", line 5, in check` + "\n    assert candidate(1, 1) == 2\n",
			"AssertionError\n",
			"capsule: assertion `candidate(1, 1) == 2` gave `3 == 2` (re-evaluated after the failure)\n",
		},
	}, {
		name:     "mbpp assertion with message",
		prog:     harness.Program{Solution: "def add(a, b):\n    return a - b\n", Tests: "r = add(2, 1)\nassert r == 3, 'want 3, got %d' % r\n"},
		exit:     1,
		syntaxOK: true,
		stderr:   []string{`File "tests.py", line 2, in <module>`, "AssertionError: want 3, got 1\n", "gave `1 == 3`"},
	}, {
		name:     "name error",
		prog:     harness.Program{Solution: "def add(a, b):\n    return a + bb\n", Tests: addCheck, EntryPoint: "add"},
		exit:     1,
		syntaxOK: true,
		stderr:   []string{`File "tests.py", line 5, in check`, `File "solution.py", line 2, in add`, "NameError: name 'bb' is not defined"},
	}, {
		name:     "entry point missing",
		prog:     harness.Program{Solution: "def plus(a, b):\n    return a + b\n", Tests: addCheck, EntryPoint: "add"},
		exit:     1,
		syntaxOK: true,
		stderr:   []string{"NameError: name 'add' is not defined"},
	}, {
		name:     "recursion",
		prog:     harness.Program{Solution: "def add(a, b):\n    return add(a, b)\n", Tests: addCheck, EntryPoint: "add"},
		exit:     1,
		syntaxOK: true,
		stderr:   []string{`File "solution.py", line 2, in add`, "RecursionError: maximum recursion depth exceeded"},
	}, {
		name:   "syntax error",
		prog:   harness.Program{Solution: "def add(a, b):\n    return (a + b\n", Tests: addCheck, EntryPoint: "add"},
		exit:   1,
		stderr: []string{`File "solution.py", line 2`, "SyntaxError: "},
	}, {
		name:     "example calls removed",
		prog:     harness.Program{Solution: exampleCalls, Tests: addCheck + "\nassert add(200, 0) == 100\n", EntryPoint: "add"},
		syntaxOK: true,
		removed:  [][2]int{{9, 13}, {22, 23}},
	}, {
		name:     "line numbers kept",
		prog:     harness.Program{Solution: "print(add(1, 2))\nprint(add(3, 4))\n\ndef add(a, b):\n    return a / 0\n", Tests: addCheck, EntryPoint: "add"},
		exit:     1,
		syntaxOK: true,
		removed:  [][2]int{{1, 2}},
		stderr:   []string{`File "solution.py", line 5, in add` + "\n    return a / 0\n", "ZeroDivisionError: division by zero"},
	}, {
		name:     "input fails fast",
		prog:     harness.Program{Solution: "def add(a, b):\n    return int(input())\n", Tests: addCheck, EntryPoint: "add"},
		exit:     1,
		syntaxOK: true,
		stderr:   []string{"EOFError"},
	}, {
		name:     "output kept",
		prog:     harness.Program{Solution: "import sys\ndef add(a, b):\n    print('out', a)\n    sys.stderr.write('err\\n')\n    return a + b\n", Tests: "assert add(1, 1) == 2\n"},
		syntaxOK: true,
		stdout:   "out 1\n",
		stderr:   []string{"err\n"},
	}, {
		name:     "exit called",
		prog:     harness.Program{Solution: "import sys\ndef add(a, b):\n    sys.exit(0)\n", Tests: addCheck, EntryPoint: "add"},
		exit:     1,
		syntaxOK: true,
		stderr:   []string{`File "solution.py", line 3, in add`, "SystemExit: 0"},
	}, {
		name:     "process ended early",
		prog:     harness.Program{Solution: "import os\ndef add(a, b):\n    os._exit(0)\n", Tests: addCheck, EntryPoint: "add"},
		exit:     1,
		syntaxOK: true,
		stderr:   []string{"capsule: the process ended with exit status 0 before the tests finished"},
	}, {
		name:     "process ended early with a status",
		prog:     harness.Program{Solution: "import os\ndef add(a, b):\n    os._exit(3)\n", Tests: addCheck, EntryPoint: "add"},
		exit:     1,
		syntaxOK: true,
		stderr:   []string{"capsule: the process ended with exit status 3 before the tests finished"},
	}, {
		name:     "killed by a signal",
		prog:     harness.Program{Solution: "import os, signal\ndef add(a, b):\n    os.kill(os.getpid(), signal.SIGKILL)\n", Tests: addCheck, EntryPoint: "add"},
		exit:     128 + 9,
		syntaxOK: true,
		stderr:   []string{"capsule: the tests were killed by signal SIGKILL"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := run(t, python, tt.prog)
			if res.ExitCode != tt.exit || res.Passed != (tt.exit == 0) || res.TimedOut {
				t.Errorf("exit %d, passed %v, timed out %v; want exit %d\nstderr:\n%s",
					res.ExitCode, res.Passed, res.TimedOut, tt.exit, res.Stderr)
			}
			if res.SyntaxOK != tt.syntaxOK {
				t.Errorf("SyntaxOK = %v, want %v", res.SyntaxOK, tt.syntaxOK)
			}
			if !slices.Equal(res.Removed, tt.removed) {
				t.Errorf("Removed = %v, want %v", res.Removed, tt.removed)
			}
			if res.Stdout != tt.stdout {
				t.Errorf("Stdout = %q, want %q", res.Stdout, tt.stdout)
			}
			assertInOrder(t, res.Stderr, tt.stderr)
			for _, hidden := range []string{"##capsule", harness.ScriptFile} {
				if strings.Contains(res.Stderr, hidden) {
					t.Errorf("Stderr shows %q:\n%s", hidden, res.Stderr)
				}
			}
		})
	}
}

// TestRunLimits checks the limits of a run: the CPU time, also when the
// code ignores SIGXCPU or computes slowly past the wall-clock limit, as it
// does on a busy machine, and the wall clock for code that sleeps.
func TestRunLimits(t *testing.T) {
	python := harnesstest.RequirePython(t)
	tests := []struct {
		name       string
		solution   string
		cpuLimited bool
		stderr     string
	}{{
		// A tenth of a core: 1 s of CPU takes about 10 s, and 2 s (the
		// limit) about 20 s, well past the 16 s wall-clock limit.
		name:       "computing slowly",
		solution:   "import time\ndef add(a, b):\n    while True:\n        end = time.thread_time() + 0.1\n        while time.thread_time() < end:\n            pass\n        time.sleep(0.9)\n",
		cpuLimited: true,
		stderr:     "capsule: used more than 2 seconds of CPU time; the tests were stopped",
	}, {
		name:       "busy loop",
		solution:   "def add(a, b):\n    while True:\n        pass\n",
		cpuLimited: true,
		stderr:     "capsule: used more than 1 second of CPU time; the tests were stopped",
	}, {
		name:       "busy loop ignoring SIGXCPU",
		solution:   "import signal\ndef add(a, b):\n    signal.signal(signal.SIGXCPU, signal.SIG_IGN)\n    while True:\n        pass\n",
		cpuLimited: true,
		stderr:     "capsule: used more than 1 second of CPU time; the tests were stopped",
	}, {
		name:     "sleeping",
		solution: "import time\ndef add(a, b):\n    time.sleep(600)\n",
		stderr:   "capsule: ran past the wall-clock limit of 13 seconds while using almost no CPU time",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			prog := harness.Program{Solution: tt.solution, Tests: addCheck, EntryPoint: "add", CPULimit: time.Second}
			if tt.name == "computing slowly" {
				prog.CPULimit = 2 * time.Second
			}
			res := run(t, python, prog)
			if res.ExitCode != harness.TimeoutExitCode || !res.TimedOut || res.Passed || res.CPULimited != tt.cpuLimited {
				t.Errorf("exit %d, timed out %v, cpu limited %v, passed %v; want exit %d, cpu limited %v\nstderr:\n%s",
					res.ExitCode, res.TimedOut, res.CPULimited, res.Passed, harness.TimeoutExitCode, tt.cpuLimited, res.Stderr)
			}
			if tt.cpuLimited && (res.CPU < prog.CPU()-500*time.Millisecond || res.CPU > prog.CPU()+2*time.Second) {
				t.Errorf("CPU = %v, want the %v limit (at most its 1 s grace over)", res.CPU, prog.CPU())
			}
			assertInOrder(t, res.Stderr, []string{tt.stderr})
		})
	}
}

// TestRunReportsCPU checks that a passing run reports the CPU time its
// tests used, which is what a benchmark sizes its limits from.
func TestRunReportsCPU(t *testing.T) {
	python := harnesstest.RequirePython(t)
	spin := "def add(a, b):\n    n = 0\n    for i in range(3_000_000):\n        n += i\n    return a + b\n"
	res := run(t, python, harness.Program{Solution: spin, Tests: addCheck, EntryPoint: "add"})
	if !res.Passed {
		t.Fatalf("exit %d\nstderr:\n%s", res.ExitCode, res.Stderr)
	}
	if res.CPU <= 0 || res.CPU > harness.DefaultCPULimit {
		t.Errorf("CPU = %v, want a positive time within the limit", res.CPU)
	}
}

// TestRunSlowAssertion checks that a failure reported before the time
// limit stays a failure when evaluating its assertion again hangs.
func TestRunSlowAssertion(t *testing.T) {
	python := harnesstest.RequirePython(t)
	prog := harness.Program{
		Solution: `import time
calls = []
def add(a, b):
    calls.append(1)
    if len(calls) > 1:  # the second evaluation outlasts the time limit
        try:
            time.sleep(30)
        except BaseException:
            time.sleep(30)
    return 0
`,
		Tests:    "assert add(1, 1) == 2\n",
		CPULimit: 2 * time.Second,
	}
	res := run(t, python, prog)
	if res.ExitCode != 1 || res.TimedOut {
		t.Errorf("exit %d, timed out %v; want a failure\nstderr:\n%s", res.ExitCode, res.TimedOut, res.Stderr)
	}
	assertInOrder(t, res.Stderr, []string{"AssertionError\n"})
	if strings.Contains(res.Stderr, "timed out") {
		t.Errorf("a failure reads as a timeout:\n%s", res.Stderr)
	}
}

// TestScriptPythonVersions runs a few programs with each interpreter listed
// in CAPSULE_PYTHONS (paths separated by the OS's list separator), to keep
// the script working on the versions sandbox images carry.
func TestScriptPythonVersions(t *testing.T) {
	list := os.Getenv("CAPSULE_PYTHONS")
	if list == "" {
		t.Skip("CAPSULE_PYTHONS is not set")
	}
	for _, python := range filepath.SplitList(list) {
		t.Run(python, func(t *testing.T) {
			t.Parallel()
			pass := run(t, python, harness.Program{Solution: exampleCalls, Tests: addCheck, EntryPoint: "add"})
			if !pass.Passed || !slices.Equal(pass.Removed, [][2]int{{9, 13}, {22, 23}}) {
				t.Errorf("passed %v, removed %v\nstderr:\n%s", pass.Passed, pass.Removed, pass.Stderr)
			}
			fail := run(t, python, harness.Program{Solution: "def add(a, b):\n    return 0\n", Tests: addCheck, EntryPoint: "add"})
			assertInOrder(t, fail.Stderr, []string{`File "tests.py", line 5, in check`, "gave `0 == 2`"})
			slow := run(t, python, harness.Program{Solution: "def add(a, b):\n    while True:\n        pass\n", Tests: addCheck, EntryPoint: "add", CPULimit: time.Second})
			if !slow.TimedOut {
				t.Errorf("infinite loop: exit %d, stderr:\n%s", slow.ExitCode, slow.Stderr)
			}
		})
	}
}

// assertInOrder checks that s holds each of parts, in that order.
func assertInOrder(t *testing.T, s string, parts []string) {
	t.Helper()
	rest := s
	for _, p := range parts {
		i := strings.Index(rest, p)
		if i < 0 {
			t.Errorf("output lacks %q (in order) in:\n%s", p, s)
			return
		}
		rest = rest[i+len(p):]
	}
}

func TestCPUForWall(t *testing.T) {
	for _, wall := range []time.Duration{0, 10 * time.Second, 11 * time.Second, 45 * time.Second, 3 * time.Minute} {
		cpu := harness.CPUForWall(wall)
		if cpu == 0 {
			if got := (harness.Program{CPULimit: time.Second}).WallLimit(); got < wall {
				t.Errorf("CPUForWall(%s) = 0, but a 1 s limit's wall limit is %s", wall, got)
			}
			continue
		}
		if got := (harness.Program{CPULimit: cpu}).WallLimit(); got < wall {
			t.Errorf("CPUForWall(%s) = %s, whose wall limit %s is shorter", wall, cpu, got)
		}
		if got := (harness.Program{CPULimit: cpu - time.Second}).WallLimit(); cpu > time.Second && got >= wall {
			t.Errorf("CPUForWall(%s) = %s, but a second less has wall limit %s", wall, cpu, got)
		}
	}
}
