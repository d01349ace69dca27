//go:build unix

package repocontext

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFIFOs checks that a named pipe is never listed, and that a symlink
// to one is left out without blocking on it.
func TestFIFOs(t *testing.T) {
	dir := writeRepo(t, map[string]string{
		"calc/ops.py":  "def divide(a, b):\n    return a / b\n",
		"calc/pipe.py": linkPrefix + "fifo",
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "calc", "fifo"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan Context)
	go func() {
		ctx, err := Build(dir, Issue{Title: "calc/pipe.py and calc/fifo hang"}, Options{})
		if err != nil {
			t.Error(err)
		}
		done <- ctx
	}()
	select {
	case ctx := <-done:
		got := omittedPaths(ctx)
		want := "calc/pipe.py: not a regular file (named in the issue)"
		if len(got) != 1 || got[0] != want {
			t.Errorf("Omitted = %q, want [%q]", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Build blocked on a named pipe")
	}
}
