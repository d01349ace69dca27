package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/budget"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
)

// refusingSolver fails the test when a job runs the loop.
type refusingSolver struct{ t *testing.T }

func (r refusingSolver) Solve(context.Context, repo.Task) (*repo.Outcome, error) {
	r.t.Error("the loop ran, though the installation's budget for the day is spent")
	return nil, nil
}

// A job of an installation that spent its day's budget does not start:
// its status comment says which budget, and the model hears nothing.
func TestDayBudgetSpentJobDoesNotStart(t *testing.T) {
	w := newWorld(t, fixes, worldOptions{solver: refusingSolver{t}, dayBudget: budget.Limits{Tokens: 10000}})
	today := time.Now().UTC().Format(time.DateOnly)
	if err := w.store.Settle(context.Background(), installation, today, store.Amount{Tokens: 9500}); err != nil {
		t.Fatal(err)
	}
	w.start()
	if code, body := w.send("issues", "", w.labelled(maintainer, "capsule"), secret); code != http.StatusAccepted {
		t.Fatalf("delivery: %d %s", code, body)
	}
	jobs := w.wait()
	if len(jobs) != 1 || jobs[0].State != work.Failed {
		t.Fatalf("jobs = %+v, want one failed", jobs)
	}
	want := "The job did not start: the installation's token budget for the day (10,000 tokens on " + today + ", UTC) is spent."
	if c := w.comments(); len(c) != 1 || !strings.Contains(c[0], want) {
		t.Errorf("status comment = %q, want it to say %q", c, want)
	}
	if n := len(w.model.Requests()); n != 0 {
		t.Errorf("%d model calls", n)
	}
}

// A job whose next call would pass its installation's budget for the
// day stops there with what it has: the draft pull request holds the
// best attempt, and the store counts what the endpoint reported.
func TestDayBudgetStopsJob(t *testing.T) {
	usage := &fakeopenai.Usage{Prompt: 8000, Completion: 1000}
	script := fakeopenai.Sequence(
		fakeopenai.Response{Content: calculatortest.Answer("calc/stats.py", calculatortest.WrongStats), Usage: usage},
		fakeopenai.Response{Content: calculatortest.Answer("calc/stats.py", calculatortest.RightStats), Usage: usage})
	w := newWorld(t, script, worldOptions{dayBudget: budget.Limits{Tokens: 20000}})
	w.start()
	if code, body := w.send("issues", "", w.labelled(maintainer, "capsule"), secret); code != http.StatusAccepted {
		t.Fatalf("delivery: %d %s", code, body)
	}
	w.wait()
	if n := len(w.model.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
	prs := w.repo.PullRequests()
	if len(prs) != 1 || !prs[0].Draft {
		t.Fatalf("pull requests = %+v, want one draft", prs)
	}
	want := "Stopped by the budget: the installation's token budget for the day (20,000 tokens on "
	for where, text := range map[string]string{"pull request": prs[0].Body, "status comment": strings.Join(w.comments(), "\n")} {
		if !strings.Contains(text, want) || !strings.Contains(text, "Spent: 8,000 prompt and 1,000 completion tokens by the programmer") {
			t.Errorf("%s lacks the stop and the spend:\n%s", where, text)
		}
	}
	spent, err := w.store.SpentOn(context.Background(), installation, time.Now().UTC().Format(time.DateOnly))
	if err != nil || spent.Tokens != 9000 {
		t.Errorf("the day's spend = %+v, %v; want the 9,000 tokens reported", spent, err)
	}
	if m := w.metric(`capsule_budget_stops_total{budget="the installation's token budget for the day"}`); !strings.HasSuffix(m, " 1") {
		t.Errorf("metric line %q", m)
	}
}

// The day's money budget refuses a call whose worst case would pass it,
// and finds the day spent once less than a micro-dollar is left; a new
// day starts afresh.
func TestDayBudgetMoney(t *testing.T) {
	st, err := store.Open(t.TempDir() + "/capsule.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 11, 27, 23, 0, 0, 0, time.UTC)
	d := &dayBudget{spend: st, installation: 5, limit: budget.Limits{Cost: 1}, now: func() time.Time { return now }}
	ctx := context.Background()
	if err := d.Reserve(ctx, 5000, 600_000); err != nil {
		t.Fatal(err)
	}
	err = d.Reserve(ctx, 5000, 500_000)
	if e, ok := errors.AsType[*budget.Exceeded](err); !ok || e.Error() != "the installation's money budget for the day ($1.00 on 2026-11-27, UTC) has $0.4000 left, and the next model call could take up to $0.5000" {
		t.Errorf("err = %v", err)
	}
	if err := d.Settle(ctx, 0, 400_000); err != nil {
		t.Fatal(err)
	}
	if err := d.Check(ctx); err == nil || !strings.HasSuffix(err.Error(), "is spent") {
		t.Errorf("Check = %v, want the day spent", err)
	}
	now = now.Add(time.Hour)
	if err := d.Check(ctx); err != nil {
		t.Errorf("the next day: %v", err)
	}
}
