package report

import (
	"encoding/json"
	"time"
)

// Summary holds a benchmark run's aggregate figures; it is summary.json.
//
// Per-attempt slices have one element per attempt index k = 0..MaxAttempts
// (0 is the first generation, k the k-th fix). Ratios are fractions in [0, 1]
// and are 0, never NaN, when their denominator is 0.
type Summary struct {
	Dataset string `json:"dataset"`
	Model   string `json:"model"`
	// Total is the number of problems run.
	Total int `json:"total"`
	// Passed is the number of problems solved (eval tests passed).
	Passed int `json:"passed"`
	// PassRate is Passed / Total (pass@1).
	PassRate float64 `json:"pass_rate"`
	// DebugPassed counts problems whose final code passed the debug tests,
	// whether or not it then passed the eval tests.
	DebugPassed int `json:"debug_passed"`
	// Errors counts problems whose run failed with an error.
	Errors int `json:"errors"`
	// APICallsMean is the mean number of model calls per problem.
	APICallsMean float64 `json:"api_calls_mean"`
	// MaxAttempts is the number of fix attempts allowed.
	MaxAttempts int `json:"max_attempts"`
	// AttemptHistogram[k] is the number of problems solved at attempt k.
	AttemptHistogram []int `json:"attempt_histogram"`
	// UnsolvedBefore[k] is the number of problems not yet solved before
	// attempt k: Total minus those solved at attempts 0..k-1.
	UnsolvedBefore []int `json:"unsolved_before"`
	// RelativeSuccessRatio[k] is AttemptHistogram[k] / Passed.
	RelativeSuccessRatio []float64 `json:"relative_success_ratio"`
	// NormalizedInfluence[k] is AttemptHistogram[k] / UnsolvedBefore[k].
	NormalizedInfluence []float64 `json:"normalized_influence"`
	// UnknownAttempt counts solved results without a valid attempt index
	// (negative); they are in Passed but in no attempt.
	UnknownAttempt   int `json:"unknown_attempt,omitempty"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CostUSD is what the tokens cost in US dollars, when the run was
	// given prices (capsule bench --price-input, --price-output).
	CostUSD     *float64 `json:"cost_usd,omitempty"`
	WallSeconds float64  `json:"wall_seconds"`
	// Limits are the time limits the test runs had; nil when unknown.
	Limits *Limits `json:"limits,omitempty"`
	// Environment lists, in file order, the problems whose reference
	// solution fails in the sandbox, with the reason; they count in Total
	// and as unsolved. It is written even when empty, as [].
	Environment []EnvironmentFailure `json:"environment_failures"`
}

// MarshalJSON writes the summary with environment_failures [] when there
// are none, so that every field docs/benchmarks.md lists is there.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary // without this method
	if s.Environment == nil {
		s.Environment = []EnvironmentFailure{}
	}
	return json.Marshal(plain(s))
}

// EnvironmentFailure is a problem the sandbox cannot run, and why.
type EnvironmentFailure struct {
	TaskID string `json:"task_id"`
	Reason string `json:"reason"`
}

// Limits records how the test runs of a benchmark were bounded: in CPU
// time, so that scores do not depend on the machine's load, with a loose
// wall-clock backstop.
type Limits struct {
	// CPUFloorSeconds is the CPU-time limit of a problem whose reference
	// solution is fast (or was not measured).
	CPUFloorSeconds float64 `json:"cpu_floor_seconds"`
	// CPUFactor: a problem's limit is CPUFactor times its reference
	// solution's CPU time when that is above the floor; 0 when the
	// references were not measured.
	CPUFactor float64 `json:"cpu_factor"`
	// Raised counts problems whose limit is above the floor, and
	// CPUMaxSeconds is the largest limit of any problem.
	Raised        int     `json:"raised"`
	CPUMaxSeconds float64 `json:"cpu_max_seconds"`
	// Wall describes the wall-clock backstop of a run.
	Wall string `json:"wall"`
	// Calibration says how the references were timed: "quick" (shipped
	// times scaled by CalibrationFactor), "full" (every reference run) or
	// "none" (CPUFactor 0); empty when the run had nothing left to do.
	Calibration       string  `json:"calibration,omitempty"`
	CalibrationFactor float64 `json:"calibration_factor,omitempty"`
}

// CPULimits summarizes the per-problem limits of results under the policy
// of floor and factor; wall describes the wall-clock backstop.
func CPULimits(results []Result, floor time.Duration, factor float64, wall string) *Limits {
	l := &Limits{CPUFloorSeconds: floor.Seconds(), CPUFactor: factor, CPUMaxSeconds: floor.Seconds(), Wall: wall}
	for _, r := range results {
		if r.CPULimitSeconds > l.CPUFloorSeconds {
			l.Raised++
		}
		l.CPUMaxSeconds = max(l.CPUMaxSeconds, r.CPULimitSeconds)
	}
	return l
}

// Summarize computes a Summary. The per-attempt slices have maxAttempts+1
// elements, more if a solved result has a larger attempt index.
func Summarize(dataset, model string, results []Result, maxAttempts int, wall time.Duration) Summary {
	s := Summary{
		Dataset:     dataset,
		Model:       model,
		Total:       len(results),
		MaxAttempts: maxAttempts,
		WallSeconds: wall.Seconds(),
	}
	attempts := max(maxAttempts, 0) + 1
	for _, r := range results {
		if r.Solved && r.AttemptIndex >= attempts {
			attempts = r.AttemptIndex + 1
		}
	}
	s.AttemptHistogram = make([]int, attempts)
	calls := 0
	for _, r := range results {
		calls += r.ModelCalls
		s.PromptTokens += r.PromptTokens
		s.CompletionTokens += r.CompletionTokens
		if r.DebugPassed {
			s.DebugPassed++
		}
		if r.Error != "" {
			s.Errors++
		}
		if r.Environment != "" {
			s.Environment = append(s.Environment, EnvironmentFailure{TaskID: r.TaskID, Reason: r.Environment})
		}
		if !r.Solved {
			continue
		}
		s.Passed++
		if r.AttemptIndex < 0 {
			s.UnknownAttempt++
			continue
		}
		s.AttemptHistogram[r.AttemptIndex]++
	}
	s.PassRate = ratio(s.Passed, s.Total)
	s.APICallsMean = ratio(calls, s.Total)

	s.UnsolvedBefore = make([]int, attempts)
	s.RelativeSuccessRatio = make([]float64, attempts)
	s.NormalizedInfluence = make([]float64, attempts)
	unsolved := s.Total
	for k, solved := range s.AttemptHistogram {
		s.UnsolvedBefore[k] = unsolved
		s.RelativeSuccessRatio[k] = ratio(solved, s.Passed)
		s.NormalizedInfluence[k] = ratio(solved, unsolved)
		unsolved -= solved
	}
	return s
}

// ratio returns n/d, or 0 when d is 0.
func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}
