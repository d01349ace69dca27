package pipeline_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// BenchmarkRunTests compares one harness run of a small task in a warm
// sandbox with the same run as a bare local process:
//
//	go test -run '^$' -bench RunTests ./pipeline/
func BenchmarkRunTests(b *testing.B) {
	prog := harness.Program{Solution: rightAdd, Tests: addTask.Tests, EntryPoint: addTask.EntryPoint}
	b.Run("bare", func(b *testing.B) {
		dir := b.TempDir()
		for name, data := range prog.Files() {
			os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
		python := "/usr/bin/python3"
		if _, err := os.Stat(python); err != nil {
			python = "python3"
		}
		argv := prog.Command()
		for b.Loop() {
			cmd := exec.Command(python, argv[1:]...)
			cmd.Dir, cmd.Env = dir, append(os.Environ(), prog.Env()...)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		eng := sandboxtest.Engine(b)
		box, err := eng.NewSession(context.Background(), sandboxtest.Spec(""))
		if err != nil {
			b.Fatal(err)
		}
		defer box.Close()
		for b.Loop() {
			o, err := pipeline.RunTests(context.Background(), box, rightAdd, addTask.Tests, addTask.EntryPoint, 10*time.Second)
			if err != nil || !o.Passed() {
				b.Fatalf("%v %+v", err, o.Harness)
			}
		}
	})
}
