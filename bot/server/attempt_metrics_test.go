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
