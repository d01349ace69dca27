package main

import (
	"context"
	"testing"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// BenchmarkSolveOverhead compares, side by side, one whole solve of the
// example issue with an instant model that is right first time (context
// building, sandbox set-up, checking and laying the edits, running the
// tests, the patch) against running the same test command once in a fresh
// container of the same image:
//
//	go test -run '^$' -bench SolveOverhead -benchtime 10x ./cmd/capsule/
func BenchmarkSolveOverhead(b *testing.B) {
	eng := sandboxtest.Engine(b)
	dir := exampleRepo(b, "")
	cmd := []string{"sh", "-c", "python3 -m pytest -q"}
	spec := sandboxtest.SpecWith(dir, testreport.HelperFiles())
	spec.Exclude = []string{".git"}

	b.Run("tests-once", func(b *testing.B) {
		for b.Loop() {
			if _, err := eng.Run(context.Background(), spec, sandbox.Run{Cmd: cmd}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("solve", func(b *testing.B) {
		srv := fakeopenai.New(b, fakeopenai.Sequence(fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats))))
		client, err := programmer.New(programmer.Config{BaseURL: srv.URL(), Model: "instant", MaxRetries: -1})
		if err != nil {
			b.Fatal(err)
		}
		cfg, err := repoconfig.Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			box, err := eng.NewSession(context.Background(), spec)
			if err != nil {
				b.Fatal(err)
			}
			plan := repo.Plan{Task: repo.Task{ID: "bench", Title: "mean() and median() crash on an empty list", Body: "Both should return 0.0.", Dir: dir},
				TestCommand: cmd[2], Limits: sandbox.Limits{Timeout: cfg.Timeout}, Settings: pipeline.DefaultSettings(),
				Protected: func(p string) (string, bool) { return repoconfig.Protected(p, cfg.Protected) }}
			out, err := repo.Solve(context.Background(), client, box, plan)
			box.Close()
			if err != nil || !out.Solved() {
				b.Fatalf("solve: %v", err)
			}
		}
	})
}
