package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/budget"
)

// dayBudget is an installation's budget for the day (a UTC date), kept in
// the store that the replicas share (budget.Day).
type dayBudget struct {
	spend        store.Spending
	installation int64
	limit        budget.Limits
	now          func() time.Time

	mu  sync.Mutex
	day string // the day of the last reservation, which Settle settles
}

// dayBudget is the budget for the day of installation, or nil when
// there is none (no limit, or a store that keeps no spend).
func (s *Server) dayBudget(installation int64) budget.Day {
	sp, ok := s.cfg.Store.(store.Spending)
	if !ok || s.cfg.DayBudget == (budget.Limits{}) {
		return nil
	}
	return &dayBudget{spend: sp, installation: installation, limit: s.cfg.DayBudget, now: time.Now}
}

// today is the UTC date the budget counts on now.
func (d *dayBudget) today() string { return d.now().UTC().Format(time.DateOnly) }

// limits is the budget in the store's units.
func (d *dayBudget) limits() store.Amount {
	return store.Amount{Tokens: int64(d.limit.Tokens), Micros: budget.Micros(d.limit.Cost)}
}

func (d *dayBudget) Reserve(ctx context.Context, tokens, micros int64) error {
	day := d.today()
	after, ok, err := d.spend.Reserve(ctx, d.installation, day, store.Amount{Tokens: tokens, Micros: micros}, d.limits())
	if err != nil {
		return err
	}
	if !ok {
		return d.exceeded(day, after, store.Amount{Tokens: tokens, Micros: micros})
	}
	d.mu.Lock()
	d.day = day
	d.mu.Unlock()
	return nil
}

func (d *dayBudget) Settle(ctx context.Context, tokens, micros int64) error {
	d.mu.Lock()
	day := d.day
	d.mu.Unlock()
	if day == "" {
		day = d.today()
	}
	return d.spend.Settle(ctx, d.installation, day, store.Amount{Tokens: tokens, Micros: micros})
}

func (d *dayBudget) Check(ctx context.Context) error {
	day := d.today()
	spent, err := d.spend.SpentOn(ctx, d.installation, day)
	if err != nil {
		return err
	}
	if e := d.exceeded(day, spent, store.Amount{Tokens: budget.MinCall, Micros: 1}); e != nil {
		e.Need = "" // spent: no call fits
		return e
	}
	return nil
}

// exceeded is the refusal of need on day, spent being spent, or nil when
// it fits.
func (d *dayBudget) exceeded(day string, spent, need store.Amount) *budget.Exceeded {
	lim := d.limits()
	switch {
	case lim.Tokens > 0 && spent.Tokens+need.Tokens > lim.Tokens:
		return &budget.Exceeded{Budget: "the installation's token budget for the day",
			Limit: fmt.Sprintf("%s tokens on %s, UTC", attemptlog.Commas(d.limit.Tokens), day),
			Left:  attemptlog.Commas(int(lim.Tokens-spent.Tokens)) + " tokens", Need: attemptlog.Commas(int(need.Tokens)) + " tokens"}
	case lim.Micros > 0 && spent.Micros+need.Micros > lim.Micros:
		return &budget.Exceeded{Budget: "the installation's money budget for the day",
			Limit: fmt.Sprintf("%s on %s, UTC", attemptlog.FormatCost(d.limit.Cost), day),
			Left:  attemptlog.FormatCost(float64(lim.Micros-spent.Micros) / 1e6), Need: attemptlog.FormatCost(float64(need.Micros) / 1e6)}
	}
	return nil
}
