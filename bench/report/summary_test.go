package report

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// repeat returns n copies of r.
func repeat(n int, r Result) []Result {
	out := make([]Result, n)
	for i := range out {
		out[i] = r
	}
	return out
}

func solvedAt(k int) Result {
	return Result{Solved: true, DebugPassed: true, AttemptIndex: k, ModelCalls: k + 1, PromptTokens: 100, CompletionTokens: 10}
}

var unsolved = Result{AttemptIndex: -1, ModelCalls: 4, PromptTokens: 100, CompletionTokens: 10}

// sample is 10 problems with 3 fix attempts allowed: 5 solved by the first
// generation, 2 by the first fix, none by the second, 1 by the third; 2
// unsolved, one of them after a run error and one passing only its debug
// tests.
func sample() []Result {
	var rs []Result
	rs = append(rs, repeat(5, solvedAt(0))...)
	rs = append(rs, repeat(2, solvedAt(1))...)
	rs = append(rs, solvedAt(3))
	withError := unsolved
	withError.ModelCalls, withError.Error = 2, "model: 500 Internal Server Error"
	debugOnly := unsolved
	debugOnly.DebugPassed = true
	return append(rs, withError, debugOnly)
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name        string
		results     []Result
		maxAttempts int
		want        Summary
	}{{
		name:        "paper counting",
		results:     sample(),
		maxAttempts: 3,
		want: Summary{
			Total: 10, Passed: 8, PassRate: 0.8, DebugPassed: 9, Errors: 1,
			// 5×1 + 2×2 + 4 + 4 + 2 calls.
			APICallsMean:     1.9,
			MaxAttempts:      3,
			AttemptHistogram: []int{5, 2, 0, 1},
			UnsolvedBefore:   []int{10, 5, 3, 3},
			// Solved at k / 8 solved.
			RelativeSuccessRatio: []float64{0.625, 0.25, 0, 0.125},
			// Solved at k / unsolved before k.
			NormalizedInfluence: []float64{0.5, 0.4, 0, 1.0 / 3},
			PromptTokens:        1000, CompletionTokens: 100,
		},
	}, {
		name:        "none solved",
		results:     repeat(3, unsolved),
		maxAttempts: 2,
		want: Summary{
			Total: 3, APICallsMean: 4, MaxAttempts: 2,
			AttemptHistogram:     []int{0, 0, 0},
			UnsolvedBefore:       []int{3, 3, 3},
			RelativeSuccessRatio: []float64{0, 0, 0},
			NormalizedInfluence:  []float64{0, 0, 0},
			PromptTokens:         300, CompletionTokens: 30,
		},
	}, {
		name:        "no results",
		maxAttempts: 1,
		want: Summary{
			MaxAttempts:          1,
			AttemptHistogram:     []int{0, 0},
			UnsolvedBefore:       []int{0, 0},
			RelativeSuccessRatio: []float64{0, 0},
			NormalizedInfluence:  []float64{0, 0},
		},
	}, {
		name:        "all solved by the last attempt",
		results:     repeat(2, solvedAt(1)),
		maxAttempts: 1,
		want: Summary{
			Total: 2, Passed: 2, PassRate: 1, DebugPassed: 2, APICallsMean: 2, MaxAttempts: 1,
			AttemptHistogram:     []int{0, 2},
			UnsolvedBefore:       []int{2, 2},
			RelativeSuccessRatio: []float64{0, 1},
			NormalizedInfluence:  []float64{0, 1},
			PromptTokens:         200, CompletionTokens: 20,
		},
	}, {
		name:        "attempt index beyond max widens, negative is unknown",
		results:     []Result{solvedAt(2), {Solved: true, AttemptIndex: -1, ModelCalls: 1}},
		maxAttempts: 0,
		want: Summary{
			Total: 2, Passed: 2, PassRate: 1, DebugPassed: 1, APICallsMean: 2, MaxAttempts: 0,
			AttemptHistogram:     []int{0, 0, 1},
			UnsolvedBefore:       []int{2, 2, 2},
			RelativeSuccessRatio: []float64{0, 0, 0.5},
			NormalizedInfluence:  []float64{0, 0, 0.5},
			UnknownAttempt:       1,
			PromptTokens:         100, CompletionTokens: 10,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.Dataset, tt.want.Model, tt.want.WallSeconds = "HumanEval", "m", 90
			got := Summarize("HumanEval", "m", tt.results, tt.maxAttempts, 90*time.Second)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Summarize =\n%+v\nwant\n%+v", got, tt.want)
			}
			data, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("json.Marshal: %v", err)
			}
			if s := string(data); strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
				t.Errorf("JSON has a non-finite number: %s", s)
			}
		})
	}
}

func TestSummaryJSONFields(t *testing.T) {
	data, err := json.Marshal(Summarize("d", "m", sample(), 3, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"dataset", "model", "total", "passed", "pass_rate", "api_calls_mean",
		"attempt_histogram", "relative_success_ratio", "normalized_influence", "prompt_tokens",
		"completion_tokens", "wall_seconds"} {
		if _, ok := fields[name]; !ok {
			t.Errorf("summary JSON lacks %q: %s", name, data)
		}
	}
}

func TestResultJSON(t *testing.T) {
	r := Result{TaskID: "HumanEval/0", Solved: true, DebugPassed: true, AttemptIndex: 1, ModelCalls: 2,
		PromptTokens: 3, CompletionTokens: 4, Seconds: 1.5, FinalCode: "x = 1", Feedback: []string{"AssertionError"}}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"task_id":"HumanEval/0","solved":true,"debug_passed":true,"attempt_index":1,"model_calls":2,` +
		`"prompt_tokens":3,"completion_tokens":4,"seconds":1.5,"final_code":"x = 1","feedback":["AssertionError"]}`
	if string(data) != want {
		t.Errorf("JSON =\n%s\nwant\n%s", data, want)
	}
	var back Result
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, r) {
		t.Errorf("round trip = %+v, %v; want %+v", back, err, r)
	}
}

// TestSummaryJSONHasEveryField checks that summary.json names
// environment_failures, as [], when the sandbox could run every problem.
func TestSummaryJSONHasEveryField(t *testing.T) {
	data, err := json.Marshal(Summarize("HumanEval", "m", []Result{{TaskID: "HumanEval/0", Solved: true}}, 1, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"environment_failures":[]`) {
		t.Errorf("summary.json = %s, want environment_failures: []", data)
	}
}
