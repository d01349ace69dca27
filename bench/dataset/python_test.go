package dataset

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	pythonOnce sync.Once
	pythonPath string
	pythonErr  error
)

// python returns the real python3 binary, or skips the test without one.
// Shims such as pyenv's cost ~100 ms per start, so the interpreter's own path
// (sys.executable) is used.
func python(t *testing.T) string {
	t.Helper()
	pythonOnce.Do(func() {
		var path string
		if path, pythonErr = exec.LookPath("python3"); pythonErr != nil {
			return
		}
		var out []byte
		out, pythonErr = exec.Command(path, "-c", "import sys; print(sys.executable)").Output()
		pythonPath = strings.TrimSpace(string(out))
		if pythonErr == nil && pythonPath == "" {
			pythonErr = errors.New("python3 reports no sys.executable")
		}
	})
	if pythonErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("python3 is required under CI: %v", pythonErr)
		}
		t.Skipf("no python3: %v", pythonErr)
	}
	return pythonPath
}

// pyRun is the outcome of one Python program.
type pyRun struct {
	ok       bool
	timedOut bool
	cpu      time.Duration
	output   string // the tail of stdout and stderr
}

// runPython runs program with python3 in dir, reading the program from stdin
// (programs can be larger than a command-line argument may be).
func runPython(py, dir, program string, timeout time.Duration) pyRun {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// -S skips site-packages: the programs need the standard library only,
	// and site start-up (.pth files) can cost more than the program.
	cmd := exec.CommandContext(ctx, py, "-I", "-S", "-")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(program)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	tail := out.String()
	if len(tail) > 600 {
		tail = "..." + tail[len(tail)-600:]
	}
	var cpu time.Duration
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return pyRun{ok: err == nil, timedOut: ctx.Err() != nil, output: tail, cpu: cpu}
}
