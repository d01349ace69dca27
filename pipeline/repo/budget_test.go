package repo_test

import (
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/budget"
)

// A budget no call fits stops the job cleanly before the model hears of
// it, whichever role would call first: the test designer (an issue that
// names no failing test) or the programmer.
func TestBudgetStopsBeforeAnyCall(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dir      func(*testing.T) string
		designer bool
	}{
		{"the test designer's call", filed, true},
		{"the programmer's call", func(t *testing.T) string { return calculator(t, nil) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := issueTask(t, tc.dir(t))
			task.Budget = budget.Job{Limits: budget.Limits{Tokens: 5000}}
			srv, out := solveScripted(t, task, reproAnswer(reproRight), rightAnswer)
			log := out.Log
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d model calls", n)
			}
			if !strings.HasPrefix(log.Stopped, "Stopped by the budget: the token budget per job (5,000 tokens) has 5,000 tokens left") {
				t.Errorf("stopped: %q", log.Stopped)
			}
			if log.Spend == nil || log.Spend.StoppedBy != "the token budget per job" || len(log.Attempts) != 0 || out.Solved() {
				t.Errorf("spend %+v, %d attempts, solved %v", log.Spend, len(log.Attempts), out.Solved())
			}
			if got := log.Reproduction.Stopped != ""; got != tc.designer {
				t.Errorf("reproduction stopped: %q", log.Reproduction.Stopped)
			}
		})
	}
}
