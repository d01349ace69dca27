// Package bench reruns the PyCapsule paper's function-level benchmarks
// against any OpenAI-compatible model: it loads a dataset, runs the
// self-debugging loop on every problem in warm sandbox sessions, scores the
// final code on the dataset's evaluation tests, and writes results that a
// rerun resumes from.
package bench

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/bench/report"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/budget"
	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/sandbox"
)

// Config describes one benchmark run.
type Config struct {
	// Dataset is the name of a dataset shipped in package datasets, or the
	// path of a dataset file.
	Dataset string
	Format  dataset.Format
	// Split names the prompts of a dataset that has several (BigCodeBench:
	// instruct or complete); empty means the dataset's default.
	Split   string
	Limit   int      // the first N problems in file order; 0 means all
	Tasks   []string // only these task IDs
	Workers int
	Out     string // directory for results.jsonl, summary.json, the chart and logs
	Model   string
	Loop    pipeline.Settings
	// CPUFactor sizes each problem's CPU-time limit from its reference
	// solution: the limit is CPUFactor times the CPU time the reference
	// used on the evaluation tests, and never less than Loop.TestCPU.
	// Zero measures nothing and gives every problem Loop.TestCPU.
	CPUFactor float64
	// Calibrate is how the references are timed when CPUFactor is above
	// zero: CalibrateQuick (or empty) scales the dataset's shipped
	// reference times by a short calibration, CalibrateFull runs every
	// problem's reference first, as does a dataset without shipped times.
	Calibrate string
	// Calibration, when set, is used instead of calibrating at the start
	// of the run (see Calibrate).
	Calibration *Calibration
	Sandbox     sandbox.Spec
	// Progress receives one line per finished problem and the notes of the
	// run; nil discards them.
	Progress io.Writer
	// Price, when set, prices the model's tokens in the summary.
	Price *budget.Price
}

// Runner opens sandbox sessions; *sandbox.Engine implements it.
type Runner interface {
	NewSession(ctx context.Context, spec sandbox.Spec) (*sandbox.Session, error)
}

// Outcome is what a run produced.
type Outcome struct {
	Summary report.Summary
	// Skipped counts problems finished by an earlier run into the same
	// directory.
	Skipped int
	// Broken counts problems whose upstream evaluation tests are unsound.
	Broken int
	Errors []dataset.LineError
}

// Run runs the benchmark. Finished problems are appended to results.jsonl
// as they end, so an interrupted run loses nothing and a rerun with the
// same Out skips them.
func Run(ctx context.Context, cfg Config, model pipeline.Model, runner Runner) (Outcome, error) {
	progress := cfg.Progress
	if progress == nil {
		progress = io.Discard
	}
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	set, err := LoadDataset(cfg.Dataset, cfg.Format)
	if err != nil {
		return Outcome{}, err
	}
	for _, le := range set.Errors {
		fmt.Fprintf(progress, "%s: skipped %v\n", cfg.Dataset, le)
	}
	all := set.Problems
	set, err = set.Filter(cfg.Limit, cfg.Tasks)
	if err != nil {
		return Outcome{}, err
	}
	if set, err = set.Split(cfg.Split); err != nil {
		return Outcome{}, fmt.Errorf("%s: %w", cfg.Dataset, err)
	}
	if len(set.Problems) == 0 {
		return Outcome{}, fmt.Errorf("%s: no problems to run", cfg.Dataset)
	}
	out, err := openOutput(cfg.Out)
	if err != nil {
		return Outcome{}, err
	}
	defer out.Close()

	oc := Outcome{Errors: set.Errors}
	var todo []dataset.Problem
	var results []report.Result
	for _, p := range set.Problems {
		if p.Broken != "" {
			oc.Broken++
		}
		if r, ok := out.done[p.TaskID]; ok {
			results = append(results, r)
			oc.Skipped++
			continue
		}
		todo = append(todo, p)
	}
	if oc.Skipped > 0 {
		fmt.Fprintf(progress, "resuming: %d of %d problems already done in %s\n", oc.Skipped, len(set.Problems), cfg.Out)
	}

	start := time.Now()
	if len(todo) > 0 && cfg.Calibration == nil {
		c, err := calibrate(ctx, cfg, runner, all)
		if err != nil {
			return oc, err
		}
		cfg.Calibration = &c
	}
	if cfg.Calibration != nil {
		fmt.Fprintln(progress, cfg.Calibration)
	}
	tracker := newTracker(progress, len(set.Problems), results)
	fresh, err := runAll(ctx, cfg, model, runner, todo, out, tracker)
	results = append(results, fresh...)
	wall := time.Since(start)
	ordered := inFileOrder(set.Problems, results)
	oc.Summary = report.Summarize(setName(cfg), cfg.Model, ordered, cfg.Loop.MaxAttempts, wall)
	oc.Summary.Limits = report.CPULimits(ordered, cfg.Loop.TestCPU, cfg.CPUFactor, harness.WallRule())
	if p := cfg.Price; p != nil {
		usd := p.Cost(oc.Summary.PromptTokens, oc.Summary.CompletionTokens)
		oc.Summary.CostUSD = &usd
	}
	if c := cfg.Calibration; c != nil {
		oc.Summary.Limits.Calibration, oc.Summary.Limits.CalibrationFactor = c.Mode, c.Factor
	}
	if err != nil {
		return oc, err
	}
	if err := out.writeSummary(oc.Summary); err != nil {
		return oc, err
	}
	return oc, nil
}

// runAll solves problems with cfg.Workers warm sessions. The first
// infrastructure error stops every worker.
func runAll(ctx context.Context, cfg Config, model pipeline.Model, runner Runner, todo []dataset.Problem, out *output, tr *tracker) ([]report.Result, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	queue := make(chan dataset.Problem)
	var (
		mu      sync.Mutex
		results []report.Result
		wg      sync.WaitGroup
	)
	for range min(cfg.Workers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			box, err := runner.NewSession(ctx, cfg.Sandbox)
			if err != nil {
				cancel(fmt.Errorf("start a sandbox session: %w", err))
				return
			}
			defer box.Close()
			for p := range queue {
				r, err := solveOne(ctx, cfg, model, box, p, out)
				if err != nil {
					cancel(fmt.Errorf("%s: %w", p.TaskID, err))
					return
				}
				if err := out.append(r); err != nil {
					cancel(err)
					return
				}
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
				tr.finished(r)
			}
		}()
	}
feed:
	for _, p := range todo {
		select {
		case queue <- p:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	return results, context.Cause(ctx)
}

// solveOne runs the loop on the debug tests and scores the final code on
// the evaluation tests.
func solveOne(ctx context.Context, cfg Config, model pipeline.Model, box pipeline.Sandbox, p dataset.Problem, out *output) (report.Result, error) {
	start := time.Now()
	ref, err := checkReference(ctx, cfg, box, p)
	if err != nil {
		return report.Result{}, err
	}
	limit, refCPU := ref.limit, ref.cpu
	if ref.failure != "" {
		// The sandbox cannot run this problem: the model is not asked, and
		// the problem counts as unsolved.
		return report.Result{
			TaskID:          p.TaskID,
			AttemptIndex:    -1,
			Environment:     ref.failure,
			CPULimitSeconds: limit.Seconds(),
			Seconds:         time.Since(start).Seconds(),
		}, nil
	}
	task := pipeline.FunctionTask{
		ID:         p.TaskID,
		Prompt:     p.Prompt,
		Signature:  p.Signature,
		EntryPoint: p.EntryPoint,
		Tests:      p.DebugTests.Source,
		CPULimit:   limit,
	}
	log, err := pipeline.SolveFunction(ctx, model, box, task, cfg.Loop)
	if err != nil {
		return report.Result{}, err
	}
	prompt, completion := log.Tokens()
	r := report.Result{
		TaskID:              p.TaskID,
		DebugPassed:         log.Solved,
		AttemptIndex:        -1,
		ModelCalls:          log.ModelCalls(),
		PromptTokens:        prompt,
		CompletionTokens:    completion,
		Feedback:            log.Feedback(),
		CPULimitSeconds:     limit.Seconds(),
		ReferenceCPUSeconds: refCPU.Seconds(),
	}
	final := log.Final()
	if final != nil {
		r.FinalCode = final.Code
		r.Solved, err = evaluate(ctx, box, p, limit, log.Solved, final.Code)
		if err != nil {
			return report.Result{}, err
		}
	}
	if r.Solved {
		r.AttemptIndex = final.Index
	}
	r.Seconds = time.Since(start).Seconds()
	if err := out.writeLog(log); err != nil {
		return report.Result{}, err
	}
	return r, nil
}

// DefaultCPUFactor is the factor of a reference solution's CPU time that
// sizes a problem's CPU-time limit (EvalPlus uses 4 on wall-clock time).
const DefaultCPUFactor = 4

// CalibrationCPU bounds the CPU time of a reference solution's run that
// measures it; a reference slower than that is given CalibrationCPU as its
// time.
const CalibrationCPU = 2 * time.Minute

// reference is what running a problem's reference solution on its
// evaluation tests found.
type reference struct {
	// limit is the CPU-time limit of the problem's test runs.
	limit time.Duration
	// cpu is the reference's CPU time, measured or shipped and scaled;
	// zero when it was not measured.
	cpu time.Duration
	// failure, for a problem that checks its environment, says why its
	// reference fails in this sandbox; empty when it passes.
	failure string
}

// checkReference sizes a problem's CPU-time limit (limitFor) from its
// reference solution's times: its CPU time shipped and scaled by a quick
// calibration, or else both times measured by running the reference on
// the evaluation tests. A shipped wall-clock time is not used: measured on
// a busy machine it says more about the load than about the reference,
// and the datasets with shipped times have no reference that waits. A
// problem that checks its environment always runs its reference.
func checkReference(ctx context.Context, cfg Config, box pipeline.Sandbox, p dataset.Problem) (reference, error) {
	floor := reference{limit: cfg.Loop.TestCPU}
	if (cfg.CPUFactor <= 0 && !p.CheckEnvironment) || p.Reference == "" || p.EvalTests.Source == "" {
		return floor, nil
	}
	if cfg.CPUFactor > 0 && !p.CheckEnvironment && cfg.Calibration != nil {
		if cpu, ok := cfg.Calibration.shipped(p); ok {
			return reference{limit: limitFor(cfg, cpu, 0), cpu: cpu}, nil
		}
	}
	o, err := pipeline.RunTests(ctx, box, p.Reference, p.EvalTests.Source, p.EntryPoint, CalibrationCPU)
	if err != nil {
		return reference{}, fmt.Errorf("run the reference solution: %w", err)
	}
	if p.CheckEnvironment && !o.Passed() {
		floor.failure = EnvironmentFailure(o)
		return floor, nil
	}
	if cfg.CPUFactor <= 0 {
		return floor, nil
	}
	ref := reference{cpu: o.Harness.CPU}
	if o.Harness.CPULimited {
		ref.cpu = CalibrationCPU
	}
	ref.limit = limitFor(cfg, ref.cpu, o.Sandbox.Duration)
	return ref, nil
}

// evaluate runs the evaluation tests, unless they are the debug tests the
// loop already ran.
func evaluate(ctx context.Context, box pipeline.Sandbox, p dataset.Problem, limit time.Duration, debugPassed bool, code string) (bool, error) {
	if p.EvalTests == p.DebugTests {
		return debugPassed, nil
	}
	if p.EvalTests.Source == "" {
		return false, fmt.Errorf("%s has no evaluation tests", p.TaskID)
	}
	o, err := pipeline.RunTests(ctx, box, code, p.EvalTests.Source, p.EntryPoint, limit)
	if err != nil {
		return false, err
	}
	return o.Passed(), nil
}

// inFileOrder orders results as their problems stand in the file.
func inFileOrder(problems []dataset.Problem, results []report.Result) []report.Result {
	byID := make(map[string]report.Result, len(results))
	for _, r := range results {
		byID[r.TaskID] = r
	}
	ordered := make([]report.Result, 0, len(results))
	for _, p := range problems {
		if r, ok := byID[p.TaskID]; ok {
			ordered = append(ordered, r)
		}
	}
	return ordered
}
