package main

import (
	"strings"
	"testing"

	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// TestActionBudgets runs the Action on the example's issue, the model
// answering wrong then right with the usage a real endpoint reports,
// under the operator's budgets: a budget that the second call would pass
// stops the job after the first attempt, which the draft pull request
// holds; the pull request body, the status comment and the outputs say
// what was spent, and which budget stopped the job.
func TestActionBudgets(t *testing.T) {
	sandboxtest.Engine(t)
	usage := &fakeopenai.Usage{Prompt: 8000, Completion: 1000}
	script := fakeopenai.Sequence(
		fakeopenai.Response{Content: calculatortest.Answer("calc/stats.py", calculatortest.WrongStats), Usage: usage},
		fakeopenai.Response{Content: calculatortest.Answer("calc/stats.py", calculatortest.RightStats), Usage: usage})
	for _, tc := range []struct {
		name      string
		env       map[string]string
		calls     int
		stop      string
		cost      string
		wantDraft bool
	}{
		{"token budget", map[string]string{"CAPSULE_MAX_TOKENS_PER_JOB": "20000"}, 1,
			"Stopped by the budget: the token budget per job (20,000 tokens) has 11,000 tokens left", "", true},
		{"money budget", map[string]string{"CAPSULE_MAX_COST_PER_JOB": "0.20", "CAPSULE_PRICE_INPUT": "10", "CAPSULE_PRICE_OUTPUT": "10"}, 1,
			"Stopped by the budget: the money budget per job ($0.2000) has $0.1100 left", "0.090000", true},
		{"priced, within budget", map[string]string{"CAPSULE_MAX_COST_PER_JOB": "1", "CAPSULE_PRICE_INPUT": "2.5", "CAPSULE_PRICE_OUTPUT": "10"}, 2,
			"", "0.060000", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newActionWorld(t, script, "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			w.event(t, "alice", "capsule")
			code, stdout, stderr := capsule(t, "action")
			if code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if got := len(w.model.Requests()); got != tc.calls {
				t.Errorf("%d model calls, want %d", got, tc.calls)
			}
			prs := w.repo.PullRequests()
			if len(prs) != 1 || prs[0].Draft != tc.wantDraft {
				t.Fatalf("pull requests = %+v, want one, draft %v", prs, tc.wantDraft)
			}
			spent := "Spent: " + map[int]string{1: "8,000 prompt and 1,000 completion", 2: "16,000 prompt and 2,000 completion"}[tc.calls] + " tokens by the programmer, 0 and 0 by the test designer"
			status := w.repo.Comments(5)
			for where, text := range map[string]string{"pull request body": prs[0].Body, "status comment": status[len(status)-1].Body} {
				for _, want := range []string{spent, tc.stop} {
					if !strings.Contains(text, want) {
						t.Errorf("%s lacks %q:\n%s", where, want, text)
					}
				}
			}
			outputs := readFile(t, w.output)
			tokens := map[int]string{1: "9000", 2: "18000"}[tc.calls]
			for _, want := range []string{"tokens=" + tokens + "\n", "cost=" + tc.cost + "\n"} {
				if !strings.Contains(outputs, want) {
					t.Errorf("outputs lack %q:\n%s", want, outputs)
				}
			}
		})
	}
}
