package repo_test

import (
	"context"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// bulkTests is a larger suite: 2000 tests that each compute a little.
const bulkTests = `import pytest


@pytest.mark.parametrize("n", range(2000))
def test_sum(n):
    assert sum(range(n * 10)) == (n * 10) * (n * 10 - 1) // 2
`

// BenchmarkProofCost measures what the proof gate costs a job, side by
// side in one run: each iteration times one plain run of the suite (no
// report) in a fresh session, then a whole job whose model is right at
// attempt 0, and reports the job's sandbox time split into the baseline
// (and the reproducing test's runs) and the attempts, as multiples of the
// plain suite run:
//
//	go test -run '^$' -bench ProofCost -benchtime 5x ./pipeline/
func BenchmarkProofCost(b *testing.B) {
	cases := []struct {
		name    string
		files   map[string]string // changes to the example
		answers []string
	}{
		{"calculator/named-tests", nil, []string{rightAnswer}},
		{"calculator/reproduced", map[string]string{"tests/test_stats.py": calculatortest.WithoutEmptyListTests(b)},
			[]string{reproAnswer(reproRight), rightAnswer}},
		{"larger/named-tests", map[string]string{"tests/test_bulk.py": bulkTests}, []string{rightAnswer}},
		{"larger/reproduced", map[string]string{"tests/test_bulk.py": bulkTests, "tests/test_stats.py": calculatortest.WithoutEmptyListTests(b)},
			[]string{reproAnswer(reproRight), rightAnswer}},
	}
	eng := sandboxtest.Engine(b)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			dir := calculator(b, c.files)
			task := issueTask(b, dir)
			var suite, baseline, attempts time.Duration
			var designCalls, designTokens int
			for b.Loop() {
				box, err := eng.NewSession(context.Background(), sandboxtest.SpecWith(dir, testreport.HelperFiles()))
				if err != nil {
					b.Fatal(err)
				}
				res, err := box.Run(context.Background(), sandbox.Run{Cmd: []string{"sh", "-c", task.TestCommand}})
				box.Close()
				if err != nil {
					b.Fatal(err)
				}
				suite += res.Duration

				out := solveTask(b, task, c.answers...)
				if out.Outcome() != attemptlog.Solved {
					b.Fatalf("outcome %q", out.Outcome())
				}
				for _, r := range out.Log.Baseline.Runs {
					baseline += r.Duration
				}
				if r := out.Log.Reproduction; r != nil {
					for _, t := range r.Tries {
						if t.Run != nil {
							baseline += t.Run.Duration
						}
					}
				}
				for _, a := range out.Log.Attempts {
					if a.Run != nil {
						attempts += a.Run.Duration
					}
				}
				p, cpl := out.Log.DesignTokens()
				designCalls += out.Log.DesignCalls()
				designTokens += p + cpl
			}
			n := float64(b.N)
			b.ReportMetric(float64(baseline)/float64(suite), "baseline/suite")
			b.ReportMetric(float64(baseline+attempts)/float64(attempts), "(baseline+attempts)/attempts")
			// One attempt ran: the goal is (1 + attempts) suite runs.
			b.ReportMetric(float64(baseline+attempts)/(2*float64(suite)), "job/(1+attempts)suite")
			b.ReportMetric(float64(suite.Milliseconds())/n, "ms-suite/run")
			b.ReportMetric(float64(designCalls)/n, "designer-calls/job")
			b.ReportMetric(float64(designTokens)/n, "designer-tokens/job")
		})
	}
}
