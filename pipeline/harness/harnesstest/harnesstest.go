// Package harnesstest runs harness programs for tests. Commands go through
// the small [Runner] interface, so that fixtures made with [Local] on this
// machine can also be made inside the sandbox.
package harnesstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/harness"
)

// Output is what one command printed and how it ended.
type Output struct {
	ExitCode       int
	Stdout, Stderr string
}

// Runner runs one command in a workspace directory, the way the executor
// runs it in the sandbox.
type Runner interface {
	Run(ctx context.Context, dir string, argv []string) (Output, error)
}

// Local runs commands on this machine with os/exec, in dir and with stdin
// from the null device. It isolates nothing: use it only in tests, on code
// that is trusted.
type Local struct {
	// Python, when set, replaces argv[0] when that is [harness.Python].
	Python string
}

// Run implements [Runner]. A command that ran and failed is no error: its
// exit status is in the Output.
func (l Local) Run(ctx context.Context, dir string, argv []string) (Output, error) {
	if len(argv) == 0 {
		return Output{}, errors.New("harnesstest: empty command")
	}
	name := argv[0]
	if name == harness.Python && l.Python != "" {
		name = l.Python
	}
	cmd := exec.CommandContext(ctx, name, argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), harness.Program{}.Env()...) // as pipeline.RunTests
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The harness kills its child's process group on SIGTERM.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	out := Output{Stdout: stdout.String(), Stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return out, fmt.Errorf("harnesstest: run %s: %w", name, ctx.Err())
	case errors.As(err, &exitErr):
		out.ExitCode = exitErr.ExitCode()
	case err != nil:
		return out, fmt.Errorf("harnesstest: run %s: %w", name, err)
	}
	return out, nil
}

// WriteFiles writes files, named relative to dir, into dir.
func WriteFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("harnesstest: %w", err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("harnesstest: %w", err)
		}
	}
	return nil
}

// RunProgram writes the files of p into dir and runs its command there.
func RunProgram(ctx context.Context, r Runner, dir string, p harness.Program) (Output, error) {
	if err := WriteFiles(dir, p.Files()); err != nil {
		return Output{}, err
	}
	return r.Run(ctx, dir, p.Command())
}

// RequirePython returns the path of the interpreter [harness.Python] names.
// Without one it skips the test, or fails it when the CI environment
// variable is set.
func RequirePython(tb testing.TB) string {
	tb.Helper()
	path, err := exec.LookPath(harness.Python)
	if err == nil {
		return path
	}
	if os.Getenv("CI") != "" {
		tb.Fatalf("CI is set and %s is missing: %v", harness.Python, err)
	}
	tb.Skipf("%s is missing: %v", harness.Python, err)
	return ""
}
