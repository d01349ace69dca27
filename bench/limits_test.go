package bench_test

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/datasets"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// loadSample is a sample of HumanEval-ET: HumanEval/39, whose reference
// solution needs about 11 s of CPU on its evaluation tests, HumanEval/2,
// whose evaluation tests are unsound upstream, and a quick one.
var loadSample = []string{"HumanEval/0", "HumanEval/2", "HumanEval/39"}

// slowReference is the problem of loadSample that a 10 s limit stops.
const slowReference = "HumanEval/39"

// TestLoadProofLimits runs reference solutions while CPU hogs compete with
// the sandbox for every core: with limits in CPU time sized from the
// shipped reference times, scaled by a calibration run under load, and
// more hogs started after the calibration, every sound problem is solved
// and no limit is below the floor; as a control, the former fixed
// wall-clock limit of 10 s fails the slow one in a container held to half
// a core.
func TestLoadProofLimits(t *testing.T) {
	startHogs(t, runtime.NumCPU())
	base := bench.Config{Dataset: "humaneval-et", Format: dataset.Format("humaneval-et"), CPUFactor: bench.DefaultCPUFactor,
		Loop: pipeline.DefaultSettings(), Sandbox: sandboxtest.Spec("")}
	calibration, err := bench.Calibrate(context.Background(), base, sandboxtest.Engine(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(calibration)
	if calibration.Mode != bench.CalibrateQuick || calibration.Factor < 1 || len(calibration.Ratios) != bench.CalibrationRuns {
		t.Fatalf("calibration %+v, want quick with a factor of at least 1 from %d references", calibration, bench.CalibrationRuns)
	}
	startHogs(t, runtime.NumCPU())
	shipped, _, err := bench.ShippedReferenceTimes("humaneval-et")
	if err != nil {
		t.Fatal(err)
	}

	r := runBench(t, "humaneval-et", dataset.Format("humaneval-et"), 0, canonical, func(cfg *bench.Config) {
		cfg.Tasks = loadSample
		cfg.Loop.TestCPU = pipeline.DefaultTestCPU
		cfg.CPUFactor = bench.DefaultCPUFactor
		cfg.Calibration = &calibration
	})
	for _, res := range r.results {
		t.Logf("%s: solved %v, reference %.2fs of CPU, limit %gs", res.TaskID, res.Solved, res.ReferenceCPUSeconds, res.CPULimitSeconds)
		wantSolved := res.TaskID != "HumanEval/2"
		if res.Solved != wantSolved {
			t.Errorf("%s: solved %v, want %v (cpu limit %gs, reference %gs, feedback %q)",
				res.TaskID, res.Solved, wantSolved, res.CPULimitSeconds, res.ReferenceCPUSeconds, res.Feedback)
		}
		if res.CPULimitSeconds < pipeline.DefaultTestCPU.Seconds() || res.ReferenceCPUSeconds <= 0 {
			t.Errorf("%s: cpu limit %gs, reference %gs; want a reference time and the floor at least",
				res.TaskID, res.CPULimitSeconds, res.ReferenceCPUSeconds)
		}
		if want := bench.DefaultCPUFactor * calibration.Factor * shipped.Times[res.TaskID].CPU; res.TaskID == slowReference && res.CPULimitSeconds < want {
			t.Errorf("%s: cpu limit %gs, want %g x its scaled shipped reference time, %gs", res.TaskID, res.CPULimitSeconds, float64(bench.DefaultCPUFactor), want)
		}
	}
	if len(r.results) != len(loadSample) {
		t.Fatalf("%d results, want %d", len(r.results), len(loadSample))
	}
	l := r.outcome.Summary.Limits
	if l == nil || l.Raised < 1 || l.CPUFactor != bench.DefaultCPUFactor || l.CPUFloorSeconds != pipeline.DefaultTestCPU.Seconds() || l.Wall == "" ||
		l.Calibration != bench.CalibrateQuick || l.CalibrationFactor != calibration.Factor {
		t.Errorf("summary limits = %+v, want the policy with the slow problem raised and the calibration", l)
	}

	failed := wallClockFailures(t)
	t.Logf("under a fixed 10 s wall-clock limit, failed: %v", failed)
	if !slices.Contains(failed, slowReference) {
		t.Errorf("under a fixed 10 s wall-clock limit, failed %v; want %s among them", failed, slowReference)
	}
}

// wallClockFailures runs the sample's reference solutions against their
// evaluation tests as Capsule did before its limits were in CPU time (a
// fixed 10 s of wall clock), in a container held to half a core, and
// returns the sound problems that failed.
func wallClockFailures(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	set, err := bench.LoadDataset("humaneval-et", dataset.Format("humaneval-et"))
	if err != nil {
		t.Fatal(err)
	}
	// Half a core, as a busy machine leaves a container: the hogs alone
	// cannot be relied on, since the engine's containers and the test's
	// processes sit in different control groups, which the kernel shares
	// the CPU between first.
	spec := sandboxtest.Spec("")
	spec.Limits.CPUs = 0.5
	box, err := sandboxtest.Engine(t).NewSession(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	var failed []string
	for _, p := range set.Problems {
		if !slices.Contains(loadSample, p.TaskID) || p.Broken != "" {
			continue
		}
		prog := harness.Program{Solution: p.Reference, Tests: p.EvalTests.Source, EntryPoint: p.EntryPoint}
		cmd := wallClockOnly(prog.Command(), 10*time.Second)
		res, err := box.Run(ctx, sandbox.Run{Cmd: cmd, Files: prog.Files(), Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if !harness.ParseOutput(res.ExitCode, string(res.Stdout), string(res.Stderr)).Passed {
			failed = append(failed, p.TaskID)
		}
	}
	return failed
}

// wallClockOnly rewrites a harness command so that only the wall clock
// bounds the run, whatever the tests do: a CPU-time limit no test reaches,
// and wall as both wall-clock limits.
func wallClockOnly(argv []string, wall time.Duration) []string {
	out := slices.Clone(argv)
	for i := 0; i+1 < len(out); i++ {
		switch out[i] {
		case "--cpu-limit":
			out[i+1] = "3600"
		case "--timeout", "--hard-timeout":
			out[i+1] = strconv.FormatFloat(wall.Seconds(), 'f', -1, 64)
		}
	}
	return out
}

// startHogs keeps n processes spinning on the host's cores until the test
// ends.
func startHogs(t testing.TB, n int) {
	t.Helper()
	for range n {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatalf("start a CPU hog: %v", err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
}

// referenceMemory is the sandbox memory of a full reference run: MBPP+'s
// task 255 builds about 2 GiB of tuples, more than the default allows.
const referenceMemory = 4 << 30

// BenchmarkShippedReferences runs the reference solutions of every shipped
// dataset (or of those named in CAPSULE_DATASETS, comma-separated) through
// the benchmark, with CPU-time limits sized from the references and CPU
// hogs on every core, and checks that every sound problem is solved. It is
// a full run, minutes per dataset: `make verify-datasets`.
func BenchmarkShippedReferences(b *testing.B) {
	names := os.Getenv("CAPSULE_DATASETS")
	for _, d := range datasets.All() {
		if names != "" && !slices.Contains(strings.Split(names, ","), d.Name) {
			continue
		}
		b.Run(d.Name, func(b *testing.B) {
			for b.Loop() {
				startHogs(b, runtime.NumCPU())
				r := runBench(b, d.Name, dataset.Auto, 0, canonical, func(cfg *bench.Config) {
					cfg.Loop.TestCPU = pipeline.DefaultTestCPU
					cfg.CPUFactor = bench.DefaultCPUFactor
					cfg.Sandbox.Limits.Memory = referenceMemory
				})
				s := r.outcome.Summary
				b.ReportMetric(float64(s.Passed), "solved")
				b.ReportMetric(float64(s.Total), "problems")
				b.ReportMetric(float64(s.Limits.Raised), "raised")
				b.ReportMetric(s.Limits.CPUMaxSeconds, "max-cpu-s")
				if want := d.Problems - d.Unsound; s.Passed != want || s.Total != d.Problems {
					var missed []string
					for _, res := range r.results {
						if !res.Solved {
							missed = append(missed, res.TaskID)
						}
					}
					b.Errorf("%s: %d of %d solved, want %d; unsolved: %v", d.Name, s.Passed, s.Total, want, missed)
				}
			}
		})
	}
}
