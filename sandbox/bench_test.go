package sandbox_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// BenchmarkPythonPass compares `python3 -c pass` as a bare local process,
// as a warm sandbox run and as a cold container-per-run, side by side in
// one run: `make bench`.
func BenchmarkPythonPass(b *testing.B) {
	cmd := []string{"python3", "-c", "pass"}
	b.Run("bare", func(b *testing.B) {
		python := realPython(b)
		for b.Loop() {
			if err := exec.Command(python, "-c", "pass").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	eng := sandboxtest.Engine(b)
	b.Run("warm", func(b *testing.B) {
		s, err := eng.NewSession(context.Background(), sandboxtest.Spec(""))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		for b.Loop() {
			if res, err := s.Run(context.Background(), sandbox.Run{Cmd: cmd}); err != nil || !res.Passed() {
				b.Fatalf("%v %s", err, res.Stderr)
			}
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			if res, err := eng.Run(context.Background(), sandboxtest.Spec(""), sandbox.Run{Cmd: cmd}); err != nil || !res.Passed() {
				b.Fatalf("%v %s", err, res.Stderr)
			}
		}
	})
}

// realPython picks the host's Debian python3, the same build as the
// sandbox image's, or else resolves python3 past any version manager's shim
// script, so that the bare case measures the interpreter alone.
func realPython(b *testing.B) string {
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		b.Skipf("no local python3: %v", err)
	}
	return strings.TrimSpace(string(out))
}
