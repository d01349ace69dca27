package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/capsulehq/capsule/bot/store"
)

// spending is the store under test as store.Spending; both stores are.
func spending(t *testing.T, open Open) store.Spending {
	t.Helper()
	s, _ := newStore(t, open)
	sp, ok := s.(store.Spending)
	if !ok {
		t.Fatalf("%T does not keep the spend per installation and day", s)
	}
	return sp
}

// testSpendWithinLimit: a reservation that fits is taken, one that does
// not takes nothing; installations and days are apart; settling gives
// back, never below zero.
func testSpendWithinLimit(t *testing.T, open Open) {
	sp := spending(t, open)
	ctx := context.Background()
	limit := store.Amount{Tokens: 100, Micros: 1000}
	steps := []struct {
		name         string
		installation int64
		day          string
		add          store.Amount
		wantOK       bool
		want         store.Amount
	}{
		{"first fits", 1, "2026-01-02", store.Amount{Tokens: 60, Micros: 500}, true, store.Amount{Tokens: 60, Micros: 500}},
		{"tokens would pass", 1, "2026-01-02", store.Amount{Tokens: 41, Micros: 1}, false, store.Amount{Tokens: 60, Micros: 500}},
		{"money would pass", 1, "2026-01-02", store.Amount{Tokens: 1, Micros: 501}, false, store.Amount{Tokens: 60, Micros: 500}},
		{"exactly the limit", 1, "2026-01-02", store.Amount{Tokens: 40, Micros: 500}, true, store.Amount{Tokens: 100, Micros: 1000}},
		{"another installation", 2, "2026-01-02", store.Amount{Tokens: 100}, true, store.Amount{Tokens: 100}},
		{"the next day", 1, "2026-01-03", store.Amount{Tokens: 100}, true, store.Amount{Tokens: 100}},
	}
	for _, st := range steps {
		got, ok, err := sp.Reserve(ctx, st.installation, st.day, st.add, limit)
		if err != nil || ok != st.wantOK || got != st.want {
			t.Errorf("%s: Reserve = %+v, %v, %v; want %+v, %v", st.name, got, ok, err, st.want, st.wantOK)
		}
	}
	if err := sp.Settle(ctx, 1, "2026-01-02", store.Amount{Tokens: -30, Micros: -2000}); err != nil {
		t.Fatal(err)
	}
	if got, err := sp.SpentOn(ctx, 1, "2026-01-02"); err != nil || got != (store.Amount{Tokens: 70}) {
		t.Errorf("after settling: %+v, %v; want 70 tokens, no money", got, err)
	}
	if err := sp.Settle(ctx, 3, "2026-01-02", store.Amount{Tokens: 5, Micros: 7}); err != nil {
		t.Fatal(err)
	}
	if got, err := sp.SpentOn(ctx, 3, "2026-01-02"); err != nil || got != (store.Amount{Tokens: 5, Micros: 7}) {
		t.Errorf("settled without a reservation: %+v, %v", got, err)
	}
	if got, err := sp.SpentOn(ctx, 9, "2026-01-02"); err != nil || got != (store.Amount{}) {
		t.Errorf("nothing spent: %+v, %v", got, err)
	}
	// No limit: every reservation fits.
	if got, ok, err := sp.Reserve(ctx, 4, "2026-01-02", store.Amount{Tokens: 1 << 40, Micros: 1 << 40}, store.Amount{}); err != nil || !ok || got.Tokens != 1<<40 {
		t.Errorf("without a limit: %+v, %v, %v", got, ok, err)
	}
}

// testSpendConcurrent: reservations at once (replicas, workers) never
// pass the limit together.
func testSpendConcurrent(t *testing.T, open Open) {
	sp := spending(t, open)
	const workers, each, limit = 16, 10, 95
	var (
		wg sync.WaitGroup
		mu sync.Mutex
		ok int
	)
	for range workers {
		wg.Go(func() {
			_, took, err := sp.Reserve(context.Background(), 7, "2026-01-02", store.Amount{Tokens: each}, store.Amount{Tokens: limit})
			if err != nil {
				t.Error(err)
			}
			if took {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	got, err := sp.SpentOn(context.Background(), 7, "2026-01-02")
	if err != nil || ok != limit/each || got.Tokens != int64(ok*each) {
		t.Errorf("%d reservations taken, spend %+v (%v); want %d, within %d", ok, got, err, limit/each, limit)
	}
}
