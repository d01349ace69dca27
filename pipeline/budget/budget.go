// Package budget keeps a job's model calls within its budgets: tokens and,
// when prices are known, money, per job and per installation and day. A
// Meter wraps the models of one job; before each call it adds the call's
// worst case (the prompt's tokens, estimated, plus the answer's bound,
// max_tokens) to what was spent, and refuses the call with an *Exceeded
// when that passes a budget, so that no budget is ever overrun. After the
// call it counts the tokens the endpoint reported, by role (programmer,
// test designer), and their cost.
package budget

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/programmer"
)

// DefaultAnswerBound is the answer's bound in tokens (max_tokens) that a
// job with a budget sends when the operator set none: without one, a
// call's worst case is unknown.
const DefaultAnswerBound = 8192

// Model is a connection to a language model; *programmer.Client
// implements it, and so does what Wrap returns.
type Model interface {
	Complete(ctx context.Context, msgs []chat.Message) (programmer.Reply, error)
}

// Limits are a job's budgets; zero is none.
type Limits struct {
	Tokens int     // prompt and completion tokens, every call of the job
	Cost   float64 // US dollars, every call of the job
}

// Cap returns the smaller of each of l's budgets and the operator's
// maxima max (zero: none), and a note for each of l's cut to max.
func (l Limits) Cap(max Limits) (Limits, []string) {
	var notes []string
	if max.Tokens > 0 && (l.Tokens == 0 || l.Tokens > max.Tokens) {
		if l.Tokens > max.Tokens {
			notes = append(notes, fmt.Sprintf("max_tokens_per_job %d capped to %d by the operator", l.Tokens, max.Tokens))
		}
		l.Tokens = max.Tokens
	}
	if max.Cost > 0 && (l.Cost == 0 || l.Cost > max.Cost) {
		if l.Cost > max.Cost {
			notes = append(notes, fmt.Sprintf("max_cost_per_job %s capped to %s by the operator", attemptlog.FormatCost(l.Cost), attemptlog.FormatCost(max.Cost)))
		}
		l.Cost = max.Cost
	}
	return l, notes
}

// Day is an installation's budget for the day, which the App's replicas
// share (its store keeps it). Reserve takes a call's worst case before
// the call; Settle then gives back what the call did not use (or takes
// what it used beyond), so that a call in flight on one replica counts
// on every other.
type Day interface {
	// Reserve takes tokens and micro-dollars from the day's budget. When
	// they do not fit it takes nothing and returns an *Exceeded.
	Reserve(ctx context.Context, tokens, micros int64) error
	// Settle adds tokens and micro-dollars (negative: gives them back).
	Settle(ctx context.Context, tokens, micros int64) error
	// Check returns an *Exceeded when less than MinCall is left: a job
	// is then not started.
	Check(ctx context.Context) error
}

// MinCall is the least a model call takes, in tokens: a budget with
// less left has none left.
const MinCall = 1000

// Micros converts US dollars to the micro-dollars Day counts, rounding
// up so that a reservation is never short.
func Micros(usd float64) int64 { return int64(math.Ceil(usd * 1e6)) }

// Job is what a job's Meter keeps it to.
type Job struct {
	Limits Limits
	// Prices, when set, price the calls: the money budget needs the
	// price of every model the job calls.
	Prices Prices
	// Day, when set, is the installation's budget for the day.
	Day Day
}

// Role is who makes a call.
type Role string

// The roles of a job's model calls.
const (
	Programmer Role = "programmer"
	Designer   Role = "test designer"
)

// Exceeded is the refusal of a call whose worst case does not fit in a
// budget: the job stops there, with what it has.
type Exceeded struct {
	// Budget names the budget, e.g. "the token budget per job".
	Budget string
	// Limit, Left and Need say the budget, what is left of it and the
	// worst case of the call refused, in its unit.
	Limit, Left, Need string
}

func (e *Exceeded) Error() string {
	if e.Need == "" {
		return fmt.Sprintf("%s (%s) is spent", e.Budget, e.Limit)
	}
	return fmt.Sprintf("%s (%s) has %s left, and the next model call could take up to %s", e.Budget, e.Limit, e.Left, e.Need)
}

// Stop is the sentence a log gives for a job that err stopped, and
// whether err is a budget's refusal.
func Stop(err error) (string, bool) {
	e, ok := errors.AsType[*Exceeded](err)
	if !ok {
		return "", false
	}
	return "Stopped by the budget: " + e.Error() + "; no further model call was made.", true
}

// Meter counts a job's model calls and keeps them within its budgets.
// It is safe for concurrent use.
type Meter struct {
	job Job

	mu       sync.Mutex
	used     map[Role]*attemptlog.Usage
	tokens   int
	cost     float64
	unpriced []string
	perByte  float64 // the most prompt tokens per byte the endpoint reported
	stopped  string
}

// NewMeter returns a meter for a job with budgets j.
func NewMeter(j Job) *Meter {
	return &Meter{job: j, used: map[Role]*attemptlog.Usage{}}
}

// limited reports whether a budget bounds the job's calls.
func (m *Meter) limited() bool {
	return m.job.Limits != (Limits{}) || m.job.Day != nil
}

// configured is a model client that says its settings and can bound its
// answers: *programmer.Client.
type configured interface {
	Config() programmer.Config
	WithMaxTokens(n int) *programmer.Client
}

// Wrap returns model metered as role's: name is the model's name when
// model does not say it. When a budget bounds the job and the model
// client sends no answer bound, the wrapped client sends
// DefaultAnswerBound.
func (m *Meter) Wrap(model Model, role Role, name string) Model {
	if model == nil {
		return nil
	}
	w := &metered{m: m, next: model, role: role, name: name, bound: DefaultAnswerBound}
	if c, ok := model.(configured); ok {
		cfg := c.Config()
		w.name = cfg.Model
		switch {
		case cfg.MaxTokens > 0:
			w.bound = cfg.MaxTokens
		case m.limited():
			w.next = c.WithMaxTokens(DefaultAnswerBound)
		}
	}
	return w
}

// metered is a model whose calls a Meter counts.
type metered struct {
	m     *Meter
	next  Model
	role  Role
	name  string
	bound int
}

func (w *metered) Complete(ctx context.Context, msgs []chat.Message) (programmer.Reply, error) {
	prompt := w.m.estimate(msgs)
	reserved, err := w.m.reserve(ctx, w.name, prompt, w.bound)
	if err != nil {
		return programmer.Reply{}, err
	}
	reply, err := w.next.Complete(ctx, msgs)
	used := attemptlog.Usage{Prompt: reply.PromptTokens, Completion: reply.CompletionTokens}
	if err == nil && used == (attemptlog.Usage{}) && reply.Content != "" {
		// The endpoint reported no usage: count the estimates.
		used = attemptlog.Usage{Prompt: prompt, Completion: min(w.bound, estimateText(reply.Content))}
	}
	if serr := w.m.settle(ctx, w.role, w.name, msgs, reserved, used); serr != nil && err == nil {
		err = serr
	}
	return reply, err
}

// messageOverhead is the tokens a chat template adds around a message.
const messageOverhead = 8

// estimate is msgs' prompt tokens, estimated on the high side: a third
// of their bytes (a token of English or code is three to four bytes), or
// more when the endpoint reported more per byte, plus each message's
// template.
func (m *Meter) estimate(msgs []chat.Message) int {
	m.mu.Lock()
	perByte := max(m.perByte*1.1, 1.0/3)
	m.mu.Unlock()
	n := 0
	for _, msg := range msgs {
		n += len(msg.Content)
	}
	return int(math.Ceil(float64(n)*perByte)) + messageOverhead*len(msgs)
}

// estimateText is the tokens of text, estimated as estimate does.
func estimateText(s string) int { return int(math.Ceil(float64(len(s)) / 3)) }

// reservation is what reserve took from the day's budget.
type reservation struct{ tokens, micros int64 }

// reserve checks that a call of model with a prompt of about prompt
// tokens and an answer of at most bound fits in every budget, and
// reserves it in the day's.
func (m *Meter) reserve(ctx context.Context, model string, prompt, bound int) (reservation, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped != "" {
		return reservation{}, &Exceeded{Budget: m.stopped, Limit: m.limitOf(m.stopped)}
	}
	need := prompt + bound
	price, priced := m.job.Prices.Of(model)
	if !priced && !slices.Contains(m.unpriced, model) {
		m.unpriced = append(m.unpriced, model)
	}
	cost := price.Cost(prompt, bound)
	lim := m.job.Limits
	var refusal *Exceeded
	switch {
	case lim.Tokens > 0 && m.tokens+need > lim.Tokens:
		refusal = &Exceeded{Budget: tokensPerJob, Limit: tokens(lim.Tokens), Left: tokens(lim.Tokens - m.tokens),
			Need: fmt.Sprintf("%s (a prompt of about %s and an answer of up to %s)", tokens(need), attemptlog.Commas(prompt), attemptlog.Commas(bound))}
	case lim.Cost > 0 && !priced:
		refusal = &Exceeded{Budget: costPerJob, Limit: attemptlog.FormatCost(lim.Cost), Left: "an unknown amount",
			Need: "an unknown amount: model " + model + " has no price"}
	case lim.Cost > 0 && m.cost+cost > lim.Cost:
		refusal = &Exceeded{Budget: costPerJob, Limit: attemptlog.FormatCost(lim.Cost), Left: attemptlog.FormatCost(lim.Cost - m.cost), Need: attemptlog.FormatCost(cost)}
	}
	if refusal != nil {
		m.stopped = refusal.Budget
		return reservation{}, refusal
	}
	r := reservation{tokens: int64(need)}
	if priced {
		r.micros = Micros(cost)
	}
	if m.job.Day != nil {
		if err := m.job.Day.Reserve(ctx, r.tokens, r.micros); err != nil {
			if e, ok := errors.AsType[*Exceeded](err); ok {
				m.stopped = e.Budget
			}
			return reservation{}, err
		}
	}
	return r, nil
}

// settle counts a call's usage, learns the tokens per byte of its
// prompt, and settles its reservation in the day's budget.
func (m *Meter) settle(ctx context.Context, role Role, model string, msgs []chat.Message, r reservation, used attemptlog.Usage) error {
	m.mu.Lock()
	u := m.used[role]
	if u == nil {
		u = &attemptlog.Usage{}
		m.used[role] = u
	}
	u.Prompt += used.Prompt
	u.Completion += used.Completion
	m.tokens += used.Prompt + used.Completion
	var micros int64
	if price, ok := m.job.Prices.Of(model); ok {
		cost := price.Cost(used.Prompt, used.Completion)
		m.cost += cost
		micros = Micros(cost)
	}
	bytes := 0
	for _, msg := range msgs {
		bytes += len(msg.Content)
	}
	if bytes > 0 && used.Prompt > 0 {
		m.perByte = max(m.perByte, float64(max(used.Prompt-messageOverhead*len(msgs), 0))/float64(bytes))
	}
	m.mu.Unlock()
	if m.job.Day == nil {
		return nil
	}
	return m.job.Day.Settle(ctx, int64(used.Prompt+used.Completion)-r.tokens, micros-r.micros)
}

// Record is what the job spent and under which budgets, for its log.
func (m *Meter) Record() *attemptlog.Spend {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &attemptlog.Spend{MaxTokens: m.job.Limits.Tokens, MaxCost: m.job.Limits.Cost, StoppedBy: m.stopped}
	if u := m.used[Programmer]; u != nil {
		s.Programmer = *u
	}
	if u := m.used[Designer]; u != nil {
		s.Designer = *u
	}
	if len(m.job.Prices) > 0 && len(m.unpriced) == 0 {
		s.Priced, s.Cost = true, m.cost
	}
	return s
}

// The names of the per-job budgets.
const (
	tokensPerJob = "the token budget per job"
	costPerJob   = "the money budget per job"
)

// limitOf is the limit of the per-job budget called name, or "" for
// another.
func (m *Meter) limitOf(name string) string {
	switch name {
	case tokensPerJob:
		return tokens(m.job.Limits.Tokens)
	case costPerJob:
		return attemptlog.FormatCost(m.job.Limits.Cost)
	}
	return "for the day"
}

// tokens writes n tokens.
func tokens(n int) string { return attemptlog.Commas(n) + " tokens" }
