package server

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/store"
)

// hangingStore is a store whose Check, once told to, waits for its
// context to end, as a query to a database across a network that drops
// packets does.
type hangingStore struct {
	store.Queue
	hang atomic.Bool
}

func (h *hangingStore) Check(ctx context.Context) error {
	if h.hang.Load() {
		<-ctx.Done()
		return errors.New("no answer: " + ctx.Err().Error())
	}
	return h.Queue.Check(ctx)
}

// A store check that times out is a failing store, not a server shutting
// down: /readyz fails, and the server gives up after the grace.
func TestStoreCheckTimesOut(t *testing.T) {
	var st *hangingStore
	s, _ := checkedServer(t, noClients{}, func(cfg *Config) {
		st = &hangingStore{Queue: cfg.Store}
		cfg.Store = st
	})
	done := runUntilDone(t, s)
	waitReadyz(t, s, "/readyz to pass", readyzOK)
	st.hang.Store(true)
	waitReadyz(t, s, "/readyz to fail", readyzFailing("no answer"))
	select {
	case err := <-done:
		if !errors.Is(err, errStoreFailed) {
			t.Fatalf("Run = %v, want the store's failure", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the server did not give up on a store that never answers")
	}
}
