package pipeline_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/feedback"
	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// RunTests forks each run from the sandbox's warm parent, and what it
// reports, down to the feedback the model gets, is what the same command
// exec'd reports: passes, failures, early exits, signals and the CPU-time
// limit, SIGXCPU ignored or not.
func TestRunTestsWarmAsExec(t *testing.T) {
	eng := sandboxtest.Engine(t)
	box, err := eng.NewSession(context.Background(), sandboxtest.Spec(""))
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	check := addTask.Tests
	tests := []struct {
		name, solution, tests string
		cpu                   time.Duration
		cpuLimited, passes    bool
	}{
		{name: "pass", solution: rightAdd, tests: check, passes: true},
		{name: "assertion", solution: wrongAdd, tests: check},
		{name: "mbpp assertion", solution: wrongAdd, tests: "assert add(2, 3) == 5\n"},
		{name: "name error", solution: "def add(a, b):\n    return a + bb\n", tests: check},
		{name: "syntax error", solution: "def add(a, b):\n    return (a + b\n", tests: check},
		{name: "example calls removed", solution: "print(add(1, 2))\ndef add(a, b):\n    print('out')\n    return a + b\nx = input()\n", tests: check, passes: true},
		{name: "input", solution: "def add(a, b):\n    return int(input())\n", tests: check},
		{name: "exit early", solution: "import os\ndef add(a, b):\n    os._exit(3)\n", tests: check},
		{name: "killed", solution: "import os, signal\ndef add(a, b):\n    os.kill(os.getpid(), signal.SIGKILL)\n", tests: check},
		{name: "sys.exit", solution: "import sys\ndef add(a, b):\n    sys.exit(0)\n", tests: check},
		{name: "busy loop", solution: "def add(a, b):\n    while True:\n        pass\n", tests: check, cpu: time.Second, cpuLimited: true},
		{
			name: "busy loop ignoring SIGXCPU", tests: check, cpu: time.Second, cpuLimited: true,
			solution: "import signal\ndef add(a, b):\n    signal.signal(signal.SIGXCPU, signal.SIG_IGN)\n    while True:\n        pass\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			warm, err := pipeline.RunTests(ctx, box, tt.solution, tt.tests, "add", tt.cpu)
			if err != nil {
				t.Fatal(err)
			}
			if !warm.Sandbox.Warm {
				t.Fatalf("the run was not warm: %+v", warm.Sandbox)
			}
			prog := warm.Program
			res, err := box.Run(ctx, sandbox.Run{Cmd: prog.Command(), Env: prog.Env(), Files: prog.Files(), Timeout: prog.HardWallLimit() + 5*time.Second})
			if err != nil {
				t.Fatal(err)
			}
			exec := pipeline.Outcome{Command: prog.Command(), Program: prog, Sandbox: res, Harness: harness.ParseOutput(res.ExitCode, string(res.Stdout), string(res.Stderr))}
			w, e := warm.Harness, exec.Harness
			if warm.Sandbox.ExitCode != res.ExitCode || w.Passed != e.Passed || w.TimedOut != e.TimedOut || w.CPULimited != e.CPULimited ||
				w.SyntaxOK != e.SyntaxOK || !slices.Equal(w.Removed, e.Removed) || w.Stdout != e.Stdout || w.Stderr != e.Stderr {
				t.Errorf("warm and exec differ:\nwarm exit %d %+v\nexec exit %d %+v", warm.Sandbox.ExitCode, w, res.ExitCode, e)
			}
			if w.CPULimited != tt.cpuLimited || tt.passes != warm.Passed() {
				t.Errorf("warm: cpu limited %v, passed %v:\n%s", w.CPULimited, warm.Passed(), w.Stderr)
			}
			if tt.cpuLimited && (w.CPU < prog.CPU()-500*time.Millisecond || w.CPU > prog.CPU()+2*time.Second) {
				t.Errorf("CPU = %v, want the %v limit (at most its 1 s grace over)", w.CPU, prog.CPU())
			}
			fw, fe := feedback.Refine(warm.FeedbackInput("add")), feedback.Refine(exec.FeedbackInput("add"))
			if fw.Kind != fe.Kind || fw.Message != fe.Message {
				t.Errorf("the feedback differs:\nwarm %s: %s\nexec %s: %s", fw.Kind, fw.Message, fe.Kind, fe.Message)
			}
		})
	}
}
