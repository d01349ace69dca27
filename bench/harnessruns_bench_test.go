package bench_test

import (
	"context"
	"testing"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// harnessRuns is how many HumanEval reference solutions
// BenchmarkHarnessRuns runs per iteration.
const harnessRuns = 40

// BenchmarkHarnessRuns runs the first 40 HumanEval reference solutions,
// one after another, through the case-testing harness in one warm sandbox:
// the cost of a candidate run, reported per run.
//
//	go test -run '^$' -bench HarnessRuns -benchtime 2x ./bench/
func BenchmarkHarnessRuns(b *testing.B) {
	set, err := bench.LoadDataset("humaneval", "humaneval")
	if err != nil {
		b.Fatal(err)
	}
	problems := set.Problems[:harnessRuns]
	box, err := sandboxtest.Engine(b).NewSession(context.Background(), sandboxtest.Spec(""))
	if err != nil {
		b.Fatal(err)
	}
	defer box.Close()
	for b.Loop() {
		for _, p := range problems {
			o, err := pipeline.RunTests(context.Background(), box, p.Reference, p.EvalTests.Source, p.EntryPoint, pipeline.DefaultTestCPU)
			if err != nil || !o.Passed() {
				b.Fatalf("%s: %v %+v", p.TaskID, err, o.Harness)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*harnessRuns), "ms/run")
}
