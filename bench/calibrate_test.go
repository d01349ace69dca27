package bench

import (
	"context"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/pipeline"
)

func TestScaleFactor(t *testing.T) {
	tests := []struct {
		name           string
		ratios         []float64
		factor, median float64
	}{
		{"none", nil, 1, 0},
		{"same machine", []float64{1, 1, 1, 1, 1}, 1, 1},
		{"slower machine", []float64{2.1, 1.9, 2, 2.2, 1.8}, 2, 2},
		{"one burst of load is outvoted", []float64{1.5, 1.4, 9, 1.5, 1.6}, 1.5, 1.5},
		{"faster machine keeps the shipped limits", []float64{0.6, 0.5, 0.55, 0.7, 0.5}, 1, 0.55},
		{"even count", []float64{1.2, 1.6, 1.4, 3}, 1.5, 1.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, m := ScaleFactor(tt.ratios)
			if f != tt.factor || m != tt.median {
				t.Errorf("ScaleFactor(%v) = %g, %g; want %g, %g", tt.ratios, f, m, tt.factor, tt.median)
			}
		})
	}
}

// TestScaledLimits checks the limits a quick calibration gives: the
// factor times the scaled shipped CPU time, never below the floor (the
// shipped wall-clock time, inflated by load, is not used), and a measured
// run for a problem without a shipped time.
func TestScaledLimits(t *testing.T) {
	times := ReferenceTimes{Dataset: "d", Times: map[string]ReferenceTime{
		"quick":   {CPU: 0.2, Wall: 0.5},
		"slow":    {CPU: 11, Wall: 12},
		"sleeper": {CPU: 0.1, Wall: 30},
	}}
	cfg := Config{CPUFactor: DefaultCPUFactor, Loop: pipeline.DefaultSettings()}
	tests := []struct {
		task    string
		factor  float64
		want    time.Duration // 0: not shipped
		wantCPU time.Duration
	}{
		{"quick", 1, 10 * time.Second, 200 * time.Millisecond},
		{"quick", 3, 10 * time.Second, 600 * time.Millisecond},
		{"slow", 1, 44 * time.Second, 11 * time.Second},
		{"slow", 1.5, 66 * time.Second, 16500 * time.Millisecond},
		{"sleeper", 1, 10 * time.Second, 100 * time.Millisecond},
		{"missing", 1, 0, 0},
	}
	for _, tt := range tests {
		c := Calibration{Mode: CalibrateQuick, Factor: tt.factor, times: times}
		cpu, ok := c.shipped(dataset.Problem{TaskID: tt.task})
		if ok != (tt.want > 0) {
			t.Errorf("%s: shipped %v, want %v", tt.task, ok, tt.want > 0)
			continue
		}
		if !ok {
			continue
		}
		if got := limitFor(cfg, cpu, 0); got != tt.want || cpu != tt.wantCPU {
			t.Errorf("%s at factor %g: limit %v from cpu %v, want %v from %v", tt.task, tt.factor, got, cpu, tt.want, tt.wantCPU)
		}
		if limitFor(cfg, cpu, 0) < cfg.Loop.TestCPU {
			t.Errorf("%s: limit below the floor", tt.task)
		}
	}
	if _, ok := (Calibration{Mode: CalibrateFull, Factor: 1, times: times}).shipped(dataset.Problem{TaskID: "slow"}); ok {
		t.Error("full mode used a shipped time")
	}
}

// TestCalibrateFallsBack checks the runs that calibrate as before, every
// reference measured, without a sandbox: a dataset given by path, a
// shipped one with --calibrate full; and that --cpu-factor 0 measures
// nothing.
func TestCalibrateFallsBack(t *testing.T) {
	tests := []struct {
		name, dataset, mode string
		factor              float64
		want, why           string
	}{
		{"path dataset", "dataset/testdata/humaneval.jsonl", "", DefaultCPUFactor, CalibrateFull, "no shipped reference times for dataset/testdata/humaneval.jsonl"},
		{"asked for", "humaneval", CalibrateFull, DefaultCPUFactor, CalibrateFull, "asked for"},
		{"shipped without times", "mbpp-plus", CalibrateQuick, DefaultCPUFactor, CalibrateFull, "no shipped reference times for mbpp-plus"},
		{"no factor", "humaneval", CalibrateQuick, 0, calibrateNone, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Dataset: tt.dataset, Calibrate: tt.mode, CPUFactor: tt.factor, Loop: pipeline.DefaultSettings()}
			// A nil runner: these calibrations must not start a sandbox.
			c, err := Calibrate(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.Mode != tt.want || c.Why != tt.why || c.Factor != 1 {
				t.Errorf("Calibrate = %+v, want mode %s (%s), factor 1", c, tt.want, tt.why)
			}
		})
	}
}
