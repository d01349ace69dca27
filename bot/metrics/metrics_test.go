package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// What a job spent shows on /metrics: tokens by role and kind, the cost
// when priced, and the budget that stopped it.
func TestJobSpend(t *testing.T) {
	m := New(nil, nil)
	m.JobSpend(Spend{ProgrammerPrompt: 1200, ProgrammerCompletion: 300, DesignerPrompt: 400, DesignerCompletion: 100, Cost: 0.25, Priced: true})
	m.JobSpend(Spend{ProgrammerPrompt: 10, Cost: 5, StoppedBy: "the token budget per job"}) // unpriced: no cost
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`capsule_job_tokens_total{kind="prompt",role="programmer"} 1210`,
		`capsule_job_tokens_total{kind="completion",role="programmer"} 300`,
		`capsule_job_tokens_total{kind="prompt",role="test_designer"} 400`,
		`capsule_job_tokens_total{kind="completion",role="test_designer"} 100`,
		`capsule_job_cost_dollars_total 0.25`,
		`capsule_budget_stops_total{budget="the token budget per job"} 1`,
	} {
		if !strings.Contains(string(body), want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
