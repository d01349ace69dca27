package bench_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// BenchmarkHumanEval compares, side by side, a whole `capsule bench` run
// of HumanEval with an instant fake model and two workers against a bare
// local loop that runs the same 164 programs through the same harness with
// the same parallelism, without containers:
//
//	go test -run '^$' -bench HumanEval -benchtime 3x ./bench/
func BenchmarkHumanEval(b *testing.B) {
	set, err := bench.LoadDataset("humaneval", "humaneval")
	if err != nil {
		b.Fatal(err)
	}
	const workers = 2

	b.Run("bare", func(b *testing.B) {
		python := "/usr/bin/python3"
		if _, err := os.Stat(python); err != nil {
			python = "python3"
		}
		for b.Loop() {
			runBare(b, python, set.Problems, workers)
		}
	})
	b.Run("capsule", func(b *testing.B) {
		eng := sandboxtest.Engine(b)
		srv := fakeModelB(b, set.Problems)
		client, err := programmer.New(programmer.Config{BaseURL: srv.URL(), Model: "instant", MaxRetries: -1})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			cfg := bench.Config{Dataset: "humaneval", Format: "humaneval", Workers: workers, Out: b.TempDir(), Model: "instant",
				Loop: pipeline.DefaultSettings(), Sandbox: sandboxtest.Spec("")}
			oc, err := bench.Run(context.Background(), cfg, client, eng)
			if err != nil || oc.Summary.Passed != len(set.Problems) {
				b.Fatalf("bench.Run: %v, passed %d", err, oc.Summary.Passed)
			}
		}
	})
}

// runBare runs every reference solution through the harness locally.
func runBare(b *testing.B, python string, problems []dataset.Problem, workers int) {
	queue := make(chan dataset.Problem)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range queue {
				dir := b.TempDir()
				prog := harness.Program{Solution: p.Reference, Tests: p.DebugTests.Source, EntryPoint: p.EntryPoint, CPULimit: pipeline.DefaultTestCPU}
				for name, data := range prog.Files() {
					if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
						b.Error(err)
					}
				}
				argv := prog.Command()
				cmd := exec.Command(python, argv[1:]...)
				cmd.Dir, cmd.Env = dir, append(os.Environ(), prog.Env()...)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Errorf("%s: %v\n%s", p.TaskID, err, out)
				}
			}
		}()
	}
	for _, p := range problems {
		queue <- p
	}
	close(queue)
	wg.Wait()
}
