package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

func TestClaimFIFO(t *testing.T) {
	s, _ := openTest(t)
	claimNone(t, s, "w1")
	var want []int64
	for i := range 5 {
		want = append(want, enqueue(t, s, newRequest(delivery(i), i+1), Created).ID)
	}
	for i, id := range want {
		if got := claim(t, s, "w1", time.Minute); got.ID != id {
			t.Fatalf("claim %d got job %d, want %d", i, got.ID, id)
		}
	}
	claimNone(t, s, "w1")
}

func TestClaimInvalid(t *testing.T) {
	s, _ := openTest(t)
	enqueue(t, s, newRequest("d1", 1), Created)
	tests := []struct {
		name   string
		worker string
		lease  time.Duration
	}{
		{"no worker", "", time.Minute},
		{"zero lease", "w1", 0},
		{"negative lease", "w1", -time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := s.Claim(context.Background(), tt.worker, tt.lease); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Claim = %v, want ErrInvalid", err)
			}
			if err := s.Renew(context.Background(), 1, tt.worker, tt.lease); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Renew = %v, want ErrInvalid", err)
			}
		})
	}
	wantCounts(t, s, map[work.State]int{work.Queued: 1})
}

func TestLeaseExpiry(t *testing.T) {
	s, _ := openTest(t)
	clk := fakeClock(s)
	ctx := context.Background()
	first := enqueue(t, s, newRequest("d1", 1), Created)

	claim(t, s, "w1", time.Minute)
	claimNone(t, s, "w2")
	clk.Advance(time.Minute - time.Nanosecond)
	claimNone(t, s, "w2")
	clk.Advance(time.Nanosecond)

	got := claim(t, s, "w2", time.Minute)
	if got.ID != first.ID || got.Worker != "w2" || got.Claims != 2 {
		t.Fatalf("after the lease ran out w2 claimed %+v", got)
	}
	if err := s.Renew(ctx, got.ID, "w1", time.Minute); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("w1 renewing = %v, want ErrLeaseLost", err)
	}
	if err := s.Renew(ctx, got.ID, "w2", time.Minute); err != nil {
		t.Fatalf("w2 renewing: %v", err)
	}
}

func TestRenew(t *testing.T) {
	s, _ := openTest(t)
	clk := fakeClock(s)
	j := enqueue(t, s, newRequest("d1", 1), Created)
	claim(t, s, "w1", time.Minute)

	clk.Advance(50 * time.Second)
	if err := s.Renew(context.Background(), j.ID, "w1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, j.ID); !got.LeaseUntil.Equal(clk.Now().Add(time.Minute)) {
		t.Fatalf("LeaseUntil = %v, want %v", got.LeaseUntil, clk.Now().Add(time.Minute))
	}
	clk.Advance(50 * time.Second) // past the first lease, within the renewed one
	claimNone(t, s, "w2")
	clk.Advance(10 * time.Second)
	claim(t, s, "w2", time.Minute)
}

// A Renew by a worker whose lease ran out, but whose job nobody else has
// claimed, keeps the job: nothing was lost.
func TestRenewLateButUnclaimed(t *testing.T) {
	s, _ := openTest(t)
	clk := fakeClock(s)
	j := enqueue(t, s, newRequest("d1", 1), Created)
	claim(t, s, "w1", time.Minute)
	clk.Advance(time.Hour)
	if err := s.Renew(context.Background(), j.ID, "w1", time.Minute); err != nil {
		t.Fatal(err)
	}
	claimNone(t, s, "w2")
}

func TestLeaseLost(t *testing.T) {
	// Each setup leaves job 1 not running under w1 and says where it is.
	setups := []struct {
		name  string
		setup func(t *testing.T, s *Store, clk *clock)
		where string // in the error message
	}{
		{"claimed by another", func(t *testing.T, s *Store, clk *clock) {
			claim(t, s, "w1", time.Minute)
			clk.Advance(2 * time.Minute)
			claim(t, s, "w2", time.Minute)
		}, "running under w2"},
		{"finished", func(t *testing.T, s *Store, clk *clock) {
			claim(t, s, "w1", time.Minute)
			if err := s.Finish(context.Background(), 1, "w1", End{State: work.Done}); err != nil {
				t.Fatal(err)
			}
		}, "done"},
		{"released", func(t *testing.T, s *Store, clk *clock) {
			claim(t, s, "w1", time.Minute)
			if err := s.Release(context.Background(), 1, "w1"); err != nil {
				t.Fatal(err)
			}
		}, "queued"},
		{"recovered", func(t *testing.T, s *Store, clk *clock) {
			claim(t, s, "w1", time.Minute)
			if _, err := s.RecoverAbandoned(context.Background()); err != nil {
				t.Fatal(err)
			}
		}, "queued"},
		{"never claimed", func(t *testing.T, s *Store, clk *clock) {}, "queued"},
	}
	ops := []struct {
		name string
		op   func(s *Store, id int64) error
	}{
		{"Renew", func(s *Store, id int64) error { return s.Renew(context.Background(), id, "w1", time.Minute) }},
		{"Finish", func(s *Store, id int64) error {
			return s.Finish(context.Background(), id, "w1", End{State: work.Failed})
		}},
		{"Release", func(s *Store, id int64) error { return s.Release(context.Background(), id, "w1") }},
	}
	for _, st := range setups {
		for _, op := range ops {
			t.Run(st.name+"/"+op.name, func(t *testing.T) {
				s, _ := openTest(t)
				clk := fakeClock(s)
				enqueue(t, s, newRequest("d1", 1), Created)
				st.setup(t, s, clk)
				before := get(t, s, 1)

				err := op.op(s, 1)
				if !errors.Is(err, ErrLeaseLost) {
					t.Fatalf("%s = %v, want ErrLeaseLost", op.name, err)
				}
				if !strings.Contains(err.Error(), st.where) {
					t.Errorf("%s = %q, want it to say %q", op.name, err, st.where)
				}
				if after := get(t, s, 1); after != before {
					t.Errorf("%s changed the job:\n%+v\nto\n%+v", op.name, before, after)
				}
			})
		}
	}
	t.Run("no such job", func(t *testing.T) {
		s, _ := openTest(t)
		for _, op := range ops {
			if err := op.op(s, 99); !errors.Is(err, ErrLeaseLost) {
				t.Errorf("%s = %v, want ErrLeaseLost", op.name, err)
			}
		}
	})
}

func TestFinishInvalidState(t *testing.T) {
	s, _ := openTest(t)
	j := enqueue(t, s, newRequest("d1", 1), Created)
	claim(t, s, "w1", time.Minute)
	for _, state := range []work.State{work.Queued, work.Running, "", "lost"} {
		if err := s.Finish(context.Background(), j.ID, "w1", End{State: state}); !errors.Is(err, ErrInvalid) {
			t.Errorf("Finish(%q) = %v, want ErrInvalid", state, err)
		}
	}
	wantCounts(t, s, map[work.State]int{work.Running: 1})
}

func TestRelease(t *testing.T) {
	s, _ := openTest(t)
	j := enqueue(t, s, newRequest("d1", 1), Created)
	claim(t, s, "w1", time.Minute)
	if err := s.Release(context.Background(), j.ID, "w1"); err != nil {
		t.Fatal(err)
	}
	got := get(t, s, j.ID)
	if got.State != work.Queued || got.Claims != 0 || !got.LeaseUntil.IsZero() {
		t.Fatalf("after Release: %+v", got)
	}
	wantCounts(t, s, map[work.State]int{work.Queued: 1})
	// Released claims do not count towards MaxClaims.
	for range MaxClaims + 1 {
		claim(t, s, "w2", time.Minute)
		if err := s.Release(context.Background(), j.ID, "w2"); err != nil {
			t.Fatal(err)
		}
	}
	if got := claim(t, s, "w2", time.Minute); got.Claims != 1 {
		t.Fatalf("Claims = %d, want 1", got.Claims)
	}
}

func TestMaxClaims(t *testing.T) {
	// Ways a worker can vanish without finishing its job.
	tests := []struct {
		name    string
		abandon func(t *testing.T, s *Store, clk *clock)
	}{
		{"lease runs out", func(t *testing.T, s *Store, clk *clock) {
			clk.Advance(2 * time.Minute)
		}},
		{"server restarts", func(t *testing.T, s *Store, clk *clock) {
			if n, err := s.RecoverAbandoned(context.Background()); err != nil || n != 1 {
				t.Fatalf("RecoverAbandoned = %d, %v; want 1", n, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTest(t)
			clk := fakeClock(s)
			crashy := enqueue(t, s, newRequest("d1", 1), Created)
			for i := 1; i <= MaxClaims; i++ {
				if got := claim(t, s, "w1", time.Minute); got.ID != crashy.ID || got.Claims != i {
					t.Fatalf("claim %d: got job %d with %d claims", i, got.ID, got.Claims)
				}
				tt.abandon(t, s, clk)
			}
			next := enqueue(t, s, newRequest("d2", 2), Created)

			if got := claim(t, s, "w1", time.Minute); got.ID != next.ID {
				t.Fatalf("claimed job %d, want the next one, %d", got.ID, next.ID)
			}
			got := get(t, s, crashy.ID)
			if got.State != work.Failed || got.Claims != MaxClaims || !strings.Contains(got.Reason, "abandoned") {
				t.Fatalf("the job claimed %d times: %+v", MaxClaims, got)
			}
			wantCounts(t, s, map[work.State]int{work.Failed: 1, work.Running: 1})
			// Its issue is free again.
			enqueue(t, s, newRequest("d3", 1), Created)
		})
	}
}

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
