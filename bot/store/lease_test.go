package store

import (
	"context"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

func TestRecoverAbandoned(t *testing.T) {
	s, path := openTest(t)
	ctx := context.Background()
	for i := range 4 {
		enqueue(t, s, newRequest(delivery(i), i+1), Created)
	}
	running := claim(t, s, "w1", time.Hour)
	claim(t, s, "w2", time.Hour)
	done := claim(t, s, "w3", time.Hour)
	if err := s.Finish(ctx, done.ID, "w3", End{State: work.Done}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.RecoverAbandoned(ctx)
	if err != nil || n != 2 {
		t.Fatalf("RecoverAbandoned = %d, %v; want 2", n, err)
	}
	wantCounts(t, s, map[work.State]int{work.Queued: 3, work.Done: 1})
	if got := claim(t, s, "w4", time.Minute); got.ID != running.ID || got.Claims != 2 {
		t.Fatalf("claimed %+v, want job %d on its second claim", got, running.ID)
	}
	if n, err := s.RecoverAbandoned(ctx); err != nil || n != 1 {
		t.Fatalf("RecoverAbandoned = %d, %v; want 1", n, err)
	}
}
