package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/testsupport/goldenfile"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// TestDemo runs `capsule demo` in-process, with the real engine and
// sandbox image, and compares what it prints with the golden file, its
// addresses, directories and times masked.
func TestDemo(t *testing.T) {
	sandboxtest.Engine(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("CAPSULE_DATABASE_URL", "postgres://must-not-be-used.invalid/db")
	code, stdout, stderr := capsule(t, "demo")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
	goldenfile.Check(t, filepath.Join("testdata", "demo.golden"), maskDemo(stdout, tmp), *update)
	if left, _ := filepath.Glob(filepath.Join(tmp, "capsule-demo-*")); len(left) > 0 {
		t.Errorf("the demo left %v behind", left)
	}
}

// TestDemoWithoutEngine: when `capsule serve` cannot start, the demo
// exits with serve's code and shows the end of serve's log, which says
// why.
func TestDemoWithoutEngine(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	code, _, stderr := capsule(t, "demo")
	if code != exitInfra || !strings.Contains(stderr, "capsule serve exited") || !strings.Contains(stderr, "docker engine unreachable at unix:///nonexistent/docker.sock") {
		t.Errorf("exit %d, stderr %q; want %d, serve's exit and its reason", code, stderr, exitInfra)
	}
}

// demoMasks replace what changes from run to run in the demo's output.
var demoMasks = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:PORT"},
	{regexp.MustCompile(`/capsule-demo-\d+`), "/capsule-demo-N"},
	{regexp.MustCompile(`\b\d+(\.\d+)?(ms|µs|s|m)\b`), "DURATION"},
}

// maskDemo masks the output s of a demo whose temporary directory is in
// tmp.
func maskDemo(s, tmp string) string {
	s = strings.ReplaceAll(s, tmp, "TMP")
	for _, m := range demoMasks {
		s = m.re.ReplaceAllString(s, m.with)
	}
	return s
}
