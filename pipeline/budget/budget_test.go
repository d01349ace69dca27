package budget_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/budget"
	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
)

// tokenizer is the fake endpoint's count of a request: a token per four
// bytes of the messages, as real tokenizers count English and code, and
// an answer as long as the request allows (the worst case).
func tokenizer(t *testing.T) fakeopenai.Script {
	return func(call int, req openai.ChatCompletionRequest) fakeopenai.Response {
		//lint:ignore SA1019 the fake reads max_tokens, which the client sends for this model.
		bound := req.MaxTokens
		if bound == 0 {
			t.Errorf("call %d: no answer bound (max_tokens) sent under a budget", call)
		}
		prompt := 0
		for _, m := range req.Messages {
			prompt += (len(m.Content) + 3) / 4
		}
		return fakeopenai.Response{Content: strings.Repeat("word ", bound), Usage: &fakeopenai.Usage{Prompt: prompt, Completion: bound}}
	}
}

// client is a real go-openai client of srv, for model, answering at
// most bound tokens (0: no bound).
func client(t *testing.T, srv *fakeopenai.Server, model string, bound int) *programmer.Client {
	t.Helper()
	c, err := programmer.New(programmer.Config{BaseURL: srv.URL(), Model: model, MaxTokens: bound, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// prompt is a conversation whose user message grows with the call.
func prompt(call int) []chat.Message {
	return []chat.Message{
		{Role: chat.System, Content: "You fix bugs."},
		{Role: chat.User, Content: strings.Repeat("The function fails on empty lists. ", 20*(call+1))},
	}
}

// spendUntilRefused calls model until a budget refuses a call, and
// returns the refusal.
func spendUntilRefused(t *testing.T, model budget.Model) *budget.Exceeded {
	t.Helper()
	for call := range 1000 {
		_, err := model.Complete(context.Background(), prompt(call))
		if err == nil {
			continue
		}
		e, ok := errors.AsType[*budget.Exceeded](err)
		if !ok {
			t.Fatalf("call %d: %v, want a budget's refusal", call, err)
		}
		return e
	}
	t.Fatal("no budget refused a call in 1000")
	return nil
}

// total is what srv reported, in tokens.
func total(srv *fakeopenai.Server) int {
	n := 0
	for _, u := range srv.Usages() {
		n += u.Prompt + u.Completion
	}
	return n
}

func TestTokenBudgetIsNeverOverrun(t *testing.T) {
	for _, tc := range []struct {
		name          string
		limit, bound  int
		wantAnyCalled bool
	}{
		{"several calls", 20000, 2000, true},
		{"one call", 3500, 2000, true},
		{"no call fits", 1500, 2000, false},
		{"default answer bound", 30000, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeopenai.New(t, tokenizer(t))
			m := budget.NewMeter(budget.Job{Limits: budget.Limits{Tokens: tc.limit}})
			model := m.Wrap(client(t, srv, "m", tc.bound), budget.Programmer, "")
			e := spendUntilRefused(t, model)
			if e.Budget != "the token budget per job" {
				t.Errorf("refused by %q", e.Budget)
			}
			if got := total(srv); got > tc.limit {
				t.Errorf("the endpoint reported %d tokens, over the budget of %d", got, tc.limit)
			}
			if called := len(srv.Requests()) > 0; called != tc.wantAnyCalled {
				t.Errorf("calls made: %v, want %v", called, tc.wantAnyCalled)
			}
			rec := m.Record()
			if rec.Programmer.Prompt+rec.Programmer.Completion != total(srv) || rec.StoppedBy != e.Budget || rec.MaxTokens != tc.limit {
				t.Errorf("record %+v, endpoint total %d", rec, total(srv))
			}
			// Once stopped, the job makes no call at all.
			n := len(srv.Requests())
			if _, err := model.Complete(context.Background(), []chat.Message{{Role: chat.User, Content: "hi"}}); err == nil || len(srv.Requests()) != n {
				t.Errorf("a call after the stop: err %v, requests %d then %d", err, n, len(srv.Requests()))
			}
		})
	}
}

func TestMoneyBudgetIsNeverOverrun(t *testing.T) {
	prices := budget.Prices{"big": {Input: 3, Output: 15}, "small": {Input: 0.15, Output: 0.6}}
	srv := fakeopenai.New(t, tokenizer(t))
	m := budget.NewMeter(budget.Job{Limits: budget.Limits{Cost: 0.05}, Prices: prices})
	programmerModel := m.Wrap(client(t, srv, "big", 1000), budget.Programmer, "")
	designer := m.Wrap(client(t, srv, "small", 1000), budget.Designer, "")
	if _, err := designer.Complete(context.Background(), prompt(0)); err != nil {
		t.Fatal(err)
	}
	e := spendUntilRefused(t, programmerModel)
	if e.Budget != "the money budget per job" {
		t.Errorf("refused by %q", e.Budget)
	}
	var cost float64
	for i, u := range srv.Usages() {
		p := prices["big"]
		if i == 0 {
			p = prices["small"]
		}
		cost += p.Cost(u.Prompt, u.Completion)
	}
	rec := m.Record()
	if cost > 0.05 || !rec.Priced || rec.Cost-cost > 1e-9 || cost-rec.Cost > 1e-9 {
		t.Errorf("spent $%f (record %+v), budget $0.05", cost, rec)
	}
	if rec.Designer.Completion != 1000 || rec.Programmer.Completion == 0 {
		t.Errorf("usage by role: %+v", rec)
	}
}

func TestMoneyBudgetNeedsAPrice(t *testing.T) {
	srv := fakeopenai.New(t, tokenizer(t))
	m := budget.NewMeter(budget.Job{Limits: budget.Limits{Cost: 1}, Prices: budget.Prices{"other": {Input: 1, Output: 1}}})
	_, err := m.Wrap(client(t, srv, "unpriced", 100), budget.Programmer, "").Complete(context.Background(), prompt(0))
	if e, ok := errors.AsType[*budget.Exceeded](err); !ok || !strings.Contains(e.Error(), "model unpriced has no price") {
		t.Errorf("err %v", err)
	}
	if len(srv.Requests()) != 0 {
		t.Error("the model was called")
	}
	if rec := m.Record(); rec.Priced {
		t.Errorf("record %+v: priced", rec)
	}
}

func TestUnlimitedMeterCountsAndLeavesTheBound(t *testing.T) {
	srv := fakeopenai.New(t, func(int, openai.ChatCompletionRequest) fakeopenai.Response {
		return fakeopenai.Response{Content: "ok", Usage: &fakeopenai.Usage{Prompt: 120, Completion: 7}}
	})
	m := budget.NewMeter(budget.Job{Prices: budget.Prices{"": {Input: 1, Output: 2}}})
	if _, err := m.Wrap(client(t, srv, "m", 0), budget.Programmer, "").Complete(context.Background(), prompt(0)); err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 the request carries max_tokens for this model.
	if got := srv.Requests()[0].MaxTokens; got != 0 {
		t.Errorf("max_tokens %d sent without a budget", got)
	}
	rec := m.Record()
	if rec.Programmer != (attemptlog.Usage{Prompt: 120, Completion: 7}) || !rec.Priced || rec.Cost != (120*1.0+7*2.0)/1e6 {
		t.Errorf("record %+v", rec)
	}
}

func TestCap(t *testing.T) {
	for _, tc := range []struct {
		name           string
		repo, operator budget.Limits
		want           budget.Limits
		notes          int
	}{
		{"none", budget.Limits{}, budget.Limits{}, budget.Limits{}, 0},
		{"operator's maxima", budget.Limits{}, budget.Limits{Tokens: 100, Cost: 1}, budget.Limits{Tokens: 100, Cost: 1}, 0},
		{"repository asks for less", budget.Limits{Tokens: 50, Cost: 0.5}, budget.Limits{Tokens: 100, Cost: 1}, budget.Limits{Tokens: 50, Cost: 0.5}, 0},
		{"repository asks for more", budget.Limits{Tokens: 500, Cost: 5}, budget.Limits{Tokens: 100, Cost: 1}, budget.Limits{Tokens: 100, Cost: 1}, 2},
		{"no maxima", budget.Limits{Tokens: 500}, budget.Limits{}, budget.Limits{Tokens: 500}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, notes := tc.repo.Cap(tc.operator)
			if got != tc.want || len(notes) != tc.notes {
				t.Errorf("Cap = %+v %q, want %+v and %d notes", got, notes, tc.want, tc.notes)
			}
		})
	}
}

func TestParsePrices(t *testing.T) {
	ps, err := budget.ParsePrices([]byte("# USD per million tokens\ngpt-4o 2.50 10\n\n* $0.15 0.60\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := ps.Of("gpt-4o"); p != (budget.Price{Input: 2.5, Output: 10}) {
		t.Errorf("gpt-4o: %+v", p)
	}
	if p, ok := ps.Of("other"); !ok || p != (budget.Price{Input: 0.15, Output: 0.6}) {
		t.Errorf("other: %+v", p)
	}
	for _, bad := range []string{"m 1\n", "m 1 x\n", "m -1 1\n", "m 1 1\nm 2 2\n", "m 1 1 1\n"} {
		if _, err := budget.ParsePrices([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// day is an installation's budget for the day in memory, as the App's
// store keeps it.
type day struct {
	mu            sync.Mutex
	limit, tokens int64
}

func (d *day) Reserve(_ context.Context, tokens, _ int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.tokens+tokens > d.limit {
		return &budget.Exceeded{Budget: "the installation's token budget for the day", Limit: "x"}
	}
	d.tokens += tokens
	return nil
}

func (d *day) Settle(_ context.Context, tokens, _ int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tokens += tokens
	return nil
}

func (d *day) Check(context.Context) error { return nil }

func TestDayBudgetIsSharedAndSettled(t *testing.T) {
	srv := fakeopenai.New(t, tokenizer(t))
	d := &day{limit: 12000}
	for range 3 { // three jobs of one installation
		m := budget.NewMeter(budget.Job{Day: d})
		e := spendUntilRefused(t, m.Wrap(client(t, srv, "m", 1000), budget.Programmer, ""))
		if e.Budget != "the installation's token budget for the day" {
			t.Errorf("refused by %q", e.Budget)
		}
	}
	if got := int64(total(srv)); got > d.limit || got != d.tokens {
		t.Errorf("endpoint total %d, the day's count %d, limit %d", got, d.tokens, d.limit)
	}
}
