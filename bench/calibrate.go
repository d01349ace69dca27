package bench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/harness"
)

// Calibration modes of a run (Config.Calibrate).
const (
	// CalibrateQuick sizes limits from the dataset's shipped reference
	// times, scaled to this machine by running CalibrationRuns references.
	CalibrateQuick = "quick"
	// CalibrateFull runs every problem's reference solution before its
	// loop and sizes its limit from that run.
	CalibrateFull = "full"
	// calibrateNone: the references are not measured (CPUFactor 0).
	calibrateNone = "none"
)

// CalibrationRuns is how many references a quick calibration runs.
const CalibrationRuns = 5

// calibrationMaxCPU bounds the shipped CPU time of a reference chosen for
// the calibration, which keeps it short.
const calibrationMaxCPU = 2 * time.Second

// Calibration is how a run sized its problems' CPU-time limits.
type Calibration struct {
	// Mode is CalibrateQuick or CalibrateFull, or "none" when the limits
	// are not sized from references (CPUFactor 0).
	Mode string
	// Factor scales the shipped reference times to this machine (quick
	// mode only; 1 otherwise).
	Factor float64
	// Ratios are the measured-to-shipped CPU time ratios of the
	// calibration's references, in the order they ran.
	Ratios []float64
	// Why says why a quick calibration was not possible, for the log.
	Why string
	// times are the shipped times, in quick mode.
	times ReferenceTimes
}

// ScaleFactor derives the calibration factor from the ratios of measured to
// shipped CPU time: their median, which one reference disturbed by a burst
// of load cannot move, and at least 1. A machine that measures faster than
// the one the times were shipped from keeps the shipped limits: a limit
// only bounds code that fails anyway, so a larger one costs nothing for
// correct code, while a smaller one, drawn from five short runs, could stop
// a sound reference. The second result is the median before clamping.
func ScaleFactor(ratios []float64) (factor, median float64) {
	if len(ratios) == 0 {
		return 1, 0
	}
	s := slices.Clone(ratios)
	slices.Sort(s)
	n := len(s)
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	return max(median, 1), median
}

// calibrationSet picks the references a quick calibration runs: the
// CalibrationRuns sound problems of the whole dataset with the largest
// shipped CPU times up to calibrationMaxCPU (the heaviest short ones, whose
// ratio the interpreter's start-up disturbs least), whatever --limit or
// --tasks select, so every run of a dataset calibrates on the same ones.
func calibrationSet(problems []dataset.Problem, times ReferenceTimes) []dataset.Problem {
	var picks []dataset.Problem
	for _, p := range problems {
		t, ok := times.Times[p.TaskID]
		if ok && p.Broken == "" && !p.CheckEnvironment && p.Reference != "" && p.EvalTests.Source != "" &&
			t.CPU > 0 && t.CPU <= calibrationMaxCPU.Seconds() {
			picks = append(picks, p)
		}
	}
	slices.SortStableFunc(picks, func(a, b dataset.Problem) int {
		ta, tb := times.Times[a.TaskID].CPU, times.Times[b.TaskID].CPU
		switch {
		case ta > tb:
			return -1
		case ta < tb:
			return 1
		}
		return 0
	})
	return picks[:min(len(picks), CalibrationRuns)]
}

// Calibrate decides how cfg's run sizes its limits. With shipped reference
// times for cfg.Dataset and cfg.Calibrate not CalibrateFull, it runs the
// calibration references in a sandbox of its own and derives the factor
// (ScaleFactor); otherwise it returns full mode, in which every problem's
// reference runs before its loop.
func Calibrate(ctx context.Context, cfg Config, runner Runner) (Calibration, error) {
	return calibrate(ctx, cfg, runner, nil)
}

// calibrate is Calibrate with the dataset's problems, when the caller
// loaded them already (all of them, before --limit and --tasks).
func calibrate(ctx context.Context, cfg Config, runner Runner, problems []dataset.Problem) (Calibration, error) {
	if cfg.CPUFactor <= 0 {
		return Calibration{Mode: calibrateNone, Factor: 1}, nil
	}
	full := Calibration{Mode: CalibrateFull, Factor: 1}
	if cfg.Calibrate == CalibrateFull {
		full.Why = "asked for"
		return full, nil
	}
	times, ok, err := ShippedReferenceTimes(cfg.Dataset)
	if err != nil {
		return Calibration{}, err
	}
	if !ok {
		full.Why = "no shipped reference times for " + cfg.Dataset
		return full, nil
	}
	if problems == nil {
		set, err := LoadDataset(cfg.Dataset, cfg.Format)
		if err != nil {
			return Calibration{}, err
		}
		problems = set.Problems
	}
	picks := calibrationSet(problems, times)
	if len(picks) == 0 {
		full.Why = "no reference of " + cfg.Dataset + " fits the calibration"
		return full, nil
	}
	box, err := runner.NewSession(ctx, cfg.Sandbox)
	if err != nil {
		return Calibration{}, fmt.Errorf("calibrate: start a sandbox session: %w", err)
	}
	defer box.Close()
	c := Calibration{Mode: CalibrateQuick, times: times}
	for _, p := range picks {
		o, err := pipeline.RunTests(ctx, box, p.Reference, p.EvalTests.Source, p.EntryPoint, CalibrationCPU)
		if err != nil {
			return Calibration{}, fmt.Errorf("calibrate on %s: %w", p.TaskID, err)
		}
		c.Ratios = append(c.Ratios, o.Harness.CPU.Seconds()/times.Times[p.TaskID].CPU)
	}
	c.Factor, _ = ScaleFactor(c.Ratios)
	return c, nil
}

// String describes the calibration for the run's log.
func (c Calibration) String() string {
	switch c.Mode {
	case CalibrateQuick:
		_, median := ScaleFactor(c.Ratios)
		return fmt.Sprintf("calibration: quick, %d references against the shipped times, median ratio %.2f, factor %.2f", len(c.Ratios), median, c.Factor)
	case CalibrateFull:
		return fmt.Sprintf("calibration: full (%s), every problem's reference runs first", c.Why)
	}
	return "calibration: none, every problem gets the floor (--cpu-factor 0)"
}

// shipped returns p's shipped reference CPU time scaled by the
// calibration, when the calibration is quick and the problem has one.
func (c Calibration) shipped(p dataset.Problem) (cpu time.Duration, ok bool) {
	if c.Mode != CalibrateQuick {
		return 0, false
	}
	t, ok := c.times.Times[p.TaskID]
	if !ok {
		return 0, false
	}
	return time.Duration(t.CPU * c.Factor * float64(time.Second)), true
}

// limitFor sizes a problem's CPU-time limit from its reference's CPU time
// and wall-clock duration as EvalPlus sizes its time limits: cfg.CPUFactor
// times the CPU time, at least cfg.Loop.TestCPU, and enough for a
// wall-clock backstop of cfg.CPUFactor times the reference's run (a
// reference that waits: BigCodeBench's sleep, poll subprocesses), rounded
// up to whole seconds.
func limitFor(cfg Config, cpu, wall time.Duration) time.Duration {
	wait := harness.CPUForWall(time.Duration(cfg.CPUFactor * float64(wall)))
	limit := max(cfg.Loop.TestCPU, time.Duration(cfg.CPUFactor*float64(cpu)), wait)
	return harness.Program{CPULimit: limit}.CPU()
}
