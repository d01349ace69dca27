package server

import (
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/metrics"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// An attempt of the loop reaches the metrics as plain values.
func TestAttemptMetrics(t *testing.T) {
	tests := []struct {
		name string
		rec  attemptlog.Attempt
		want metrics.Attempt
	}{
		{"no code", attemptlog.Attempt{PromptTokens: 10, CompletionTokens: 2},
			metrics.Attempt{PromptTokens: 10, CompletionTokens: 2}},
		{"failed", attemptlog.Attempt{PromptTokens: 1, Run: &attemptlog.Run{Duration: time.Second}},
			metrics.Attempt{Tested: true, PromptTokens: 1, TestDuration: time.Second}},
		{"passed", attemptlog.Attempt{CompletionTokens: 3, Run: &attemptlog.Run{Passed: true, Duration: 2 * time.Second}},
			metrics.Attempt{Tested: true, Passed: true, CompletionTokens: 3, TestDuration: 2 * time.Second}},
		{"after two requests", attemptlog.Attempt{PromptTokens: 30, Requests: make([]attemptlog.Request, 2)},
			metrics.Attempt{PromptTokens: 30, Requests: 2}},
	}
	for _, tt := range tests {
		if got := attemptMetrics(pipeline.Event{Record: tt.rec}); got != tt.want {
			t.Errorf("%s: attemptMetrics = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// A job's spend reaches the metrics as plain values; a log without a
// Spend gives its attempts' and the test designer's tokens, unpriced.
func TestSpendMetrics(t *testing.T) {
	priced := &attemptlog.Log{Spend: &attemptlog.Spend{Programmer: attemptlog.Usage{Prompt: 5, Completion: 1}, Designer: attemptlog.Usage{Prompt: 3, Completion: 2},
		Cost: 0.5, Priced: true, StoppedBy: "the money budget per job"}}
	plain := &attemptlog.Log{Attempts: []attemptlog.Attempt{{PromptTokens: 10, CompletionTokens: 4}},
		Reproduction: &attemptlog.Reproduction{Tries: []attemptlog.DesignTry{{PromptTokens: 7, CompletionTokens: 3}}}}
	for _, tt := range []struct {
		name string
		log  *attemptlog.Log
		want metrics.Spend
	}{
		{"metered", priced, metrics.Spend{ProgrammerPrompt: 5, ProgrammerCompletion: 1, DesignerPrompt: 3, DesignerCompletion: 2, Cost: 0.5, Priced: true, StoppedBy: "the money budget per job"}},
		{"not metered", plain, metrics.Spend{ProgrammerPrompt: 10, ProgrammerCompletion: 4, DesignerPrompt: 7, DesignerCompletion: 3}},
	} {
		if got := spendMetrics(tt.log.Spent()); got != tt.want {
			t.Errorf("%s: spendMetrics = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
