package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/capsulehq/capsule/bot/work"
)

// TestCommitBatch runs one batch by hand, with calls that interact, to
// check that each is carried out as if alone, in order, and that a failed
// call takes nothing with it.
func TestCommitBatch(t *testing.T) {
	s, _ := openTest(t)
	// A trigger on the writer's connection fails delivery "poison" at its
	// last statement, after its job row went in.
	_, err := s.w.Exec(`CREATE TEMP TRIGGER poison BEFORE INSERT ON deliveries
		WHEN NEW.delivery = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`)
	if err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	calls := []struct {
		ctx     context.Context
		req     work.Request
		outcome Outcome
		err     string // the call's error, if it should fail
	}{
		{context.Background(), newRequest("a", 1), Created, ""},
		{canceled, newRequest("b", 2), 0, "context canceled"},
		{context.Background(), newRequest("poison", 3), 0, "poisoned"},
		{context.Background(), newRequest("a", 1), Duplicate, ""},
		{context.Background(), newRequest("c", 1), Busy, ""},
		{context.Background(), newRequest("d", 3), Created, ""},
		{context.Background(), newRequest("e", 2), Created, ""},
	}
	batch := make([]*enqueueCall, len(calls))
	for i, c := range calls {
		batch[i] = &enqueueCall{ctx: c.ctx, req: c.req, done: make(chan enqueueResult, 1)}
	}
	s.commitBatch(batch)

	for i, c := range calls {
		r := <-batch[i].done
		switch {
		case c.err != "":
			if r.err == nil || !strings.Contains(r.err.Error(), c.err) {
				t.Errorf("call %d (%s): error %v, want %q", i, c.req.Delivery, r.err, c.err)
			}
		case r.err != nil:
			t.Errorf("call %d (%s): %v", i, c.req.Delivery, r.err)
		case r.outcome != c.outcome:
			t.Errorf("call %d (%s): %v, want %v", i, c.req.Delivery, r.outcome, c.outcome)
		}
	}
	for _, d := range []string{"b", "poison"} {
		if _, err := s.ByDelivery(context.Background(), d); !errors.Is(err, ErrNotFound) {
			t.Errorf("ByDelivery(%s) = %v, want ErrNotFound", d, err)
		}
	}
	wantCounts(t, s, map[work.State]int{work.Queued: 3})
}

// Close while Enqueue calls are under way: each call either succeeds, and
// its job is stored, or fails with ErrClosed; none hangs.
func TestCloseDuringEnqueue(t *testing.T) {
	s, path := openTest(t)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		stored  []string
		started = make(chan struct{})
		once    sync.Once
	)
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				d := fmt.Sprintf("g%d-%d", g, i)
				_, _, err := s.Enqueue(context.Background(), newRequest(d, g*100_000+i+1))
				if err != nil {
					if !errors.Is(err, ErrClosed) {
						t.Errorf("Enqueue(%s): %v, want ErrClosed", d, err)
					}
					return
				}
				mu.Lock()
				stored = append(stored, d)
				mu.Unlock()
				once.Do(func() { close(started) })
			}
		})
	}
	<-started
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, d := range stored {
		if _, err := s.ByDelivery(context.Background(), d); err != nil {
			t.Errorf("stored delivery %s: %v", d, err)
		}
	}
}
