package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/datasets"
	"github.com/capsulehq/capsule/pipeline"
)

// ReferenceTimes are a dataset's reference solutions' times on their
// evaluation tests, measured once in the sandbox, with the machine they
// were measured on. Capsule ships them for its datasets
// (datasets/reference-times/) so that a run scales them to the machine at
// hand (Calibrate) instead of running every reference.
type ReferenceTimes struct {
	// Dataset is the shipped dataset's name.
	Dataset string `json:"dataset"`
	// Machine says where and how the times were measured.
	Machine Machine `json:"machine"`
	// Times maps each task id to its reference's times.
	Times map[string]ReferenceTime `json:"times"`
}

// Machine describes where reference times were measured.
type Machine struct {
	CPU         string `json:"cpu"`
	Cores       int    `json:"cores"`
	Date        string `json:"date"`
	Command     string `json:"command"`
	Image       string `json:"image"`
	LoadAverage string `json:"load_average"`
}

// ReferenceTime is one reference solution's run, in seconds.
type ReferenceTime struct {
	// CPU is the CPU time of the tests' process (CalibrationCPU when the
	// reference reached that bound).
	CPU float64 `json:"cpu"`
	// Wall is the run's wall-clock duration in the sandbox.
	Wall float64 `json:"wall"`
}

// ParseReferenceTimes reads a reference-times file and checks that every
// time is a sane number of seconds.
func ParseReferenceTimes(data []byte) (ReferenceTimes, error) {
	var rt ReferenceTimes
	if err := json.Unmarshal(data, &rt); err != nil {
		return ReferenceTimes{}, fmt.Errorf("reference times: %w", err)
	}
	if len(rt.Times) == 0 {
		return ReferenceTimes{}, fmt.Errorf("reference times of %q: no times", rt.Dataset)
	}
	for id, t := range rt.Times {
		if !(t.CPU >= 0 && t.Wall >= 0 && t.CPU <= CalibrationCPU.Seconds() && t.Wall < 24*3600) {
			return ReferenceTimes{}, fmt.Errorf("reference times of %q: %s: cpu %g s, wall %g s out of range", rt.Dataset, id, t.CPU, t.Wall)
		}
	}
	return rt, nil
}

// ShippedReferenceTimes returns the reference times shipped for the
// dataset called name; ok is false for a dataset given by path or shipped
// without times.
func ShippedReferenceTimes(name string) (rt ReferenceTimes, ok bool, err error) {
	d, found := datasets.Lookup(name)
	if !found {
		return ReferenceTimes{}, false, nil
	}
	data, found := d.ReferenceTimes()
	if !found {
		return ReferenceTimes{}, false, nil
	}
	if rt, err = ParseReferenceTimes(data); err != nil {
		return ReferenceTimes{}, false, fmt.Errorf("dataset %s: %w", name, err)
	}
	return rt, true, nil
}

// MeasureReferences runs every reference solution of cfg's dataset (after
// --limit and --tasks) on its evaluation tests, cfg.Workers at a time in
// warm sandboxes, and returns their times, for a file shipped in
// datasets/reference-times/. No model is asked.
func MeasureReferences(ctx context.Context, cfg Config, runner Runner, command string) (ReferenceTimes, error) {
	set, err := LoadDataset(cfg.Dataset, cfg.Format)
	if err != nil {
		return ReferenceTimes{}, err
	}
	if set, err = set.Filter(cfg.Limit, cfg.Tasks); err != nil {
		return ReferenceTimes{}, err
	}
	rt := ReferenceTimes{Dataset: setName(cfg), Times: make(map[string]ReferenceTime)}
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		first error
	)
	queue := make(chan dataset.Problem)
	for range max(1, min(cfg.Workers, len(set.Problems))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			box, err := runner.NewSession(ctx, cfg.Sandbox)
			if err != nil {
				mu.Lock()
				first = cmp.Or(first, fmt.Errorf("start a sandbox session: %w", err))
				mu.Unlock()
				for range queue {
				}
				return
			}
			defer box.Close()
			for p := range queue {
				if p.Reference == "" || p.EvalTests.Source == "" {
					continue
				}
				o, err := pipeline.RunTests(ctx, box, p.Reference, p.EvalTests.Source, p.EntryPoint, CalibrationCPU)
				mu.Lock()
				if err != nil {
					first = cmp.Or(first, fmt.Errorf("%s: run the reference solution: %w", p.TaskID, err))
				} else {
					t := ReferenceTime{CPU: round3(o.Harness.CPU), Wall: round3(o.Sandbox.Duration)}
					if o.Harness.CPULimited {
						t.CPU = CalibrationCPU.Seconds()
					}
					rt.Times[p.TaskID] = t
				}
				mu.Unlock()
			}
		}()
	}
	for _, p := range set.Problems {
		queue <- p
	}
	close(queue)
	wg.Wait()
	if first != nil {
		return ReferenceTimes{}, first
	}
	rt.Machine = Machine{CPU: cpuModel(), Cores: runtime.NumCPU(), Date: time.Now().UTC().Format(time.DateOnly),
		Command: command, Image: cfg.Sandbox.Image, LoadAverage: loadAverage()}
	return rt, nil
}

// WriteReferenceTimes writes rt as indented JSON to path.
func WriteReferenceTimes(path string, rt ReferenceTimes) error {
	data, err := json.MarshalIndent(rt, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write reference times: %w", err)
	}
	return nil
}

// round3 gives d in seconds to the millisecond.
func round3(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }

// cpuModel returns the host's CPU model from /proc/cpuinfo, or "unknown".
func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// loadAverage returns the host's 1, 5 and 15 minute load averages.
func loadAverage() string {
	data, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
