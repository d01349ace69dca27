package storetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
)

func testLifecycle(t *testing.T, open Open) {
	tests := []struct {
		state  work.State
		reason string
	}{
		{work.Done, "opened #7"},
		{work.Failed, "the tests did not pass"},
		{work.Skipped, "octocat may not write to acme/widgets"},
	}
	for _, tt := range tests {
		t.Run(string(tt.state), func(t *testing.T) {
			s, clk := newStore(t, open)
			ctx := context.Background()
			WantCounts(t, s, nil)

			queued := Enqueue(t, s, NewRequest("d1", 1), store.Created)
			if queued.ID == 0 || queued.State != work.Queued || queued.Claims != 0 || !queued.CreatedAt.Equal(clk.Now()) {
				t.Fatalf("Enqueue returned %+v", queued)
			}
			if got := Get(t, s, queued.ID); got != queued {
				t.Fatalf("Get = %+v\nwant %+v", got, queued)
			}
			WantCounts(t, s, map[work.State]int{work.Queued: 1})

			clk.Advance(time.Second)
			running := Claim(t, s, "w1", time.Minute)
			if running.ID != queued.ID || running.State != work.Running || running.Worker != "w1" ||
				running.Claims != 1 || !running.LeaseUntil.Equal(clk.Now().Add(time.Minute)) {
				t.Fatalf("Claim returned %+v", running)
			}
			if got := Get(t, s, queued.ID); got != running {
				t.Fatalf("Get = %+v\nwant %+v", got, running)
			}
			WantCounts(t, s, map[work.State]int{work.Running: 1})

			if err := s.Finish(ctx, running.ID, "w1", store.End{State: tt.state, Reason: tt.reason}); err != nil {
				t.Fatal(err)
			}
			got := Get(t, s, queued.ID)
			if got.State != tt.state || got.Reason != tt.reason || !got.LeaseUntil.IsZero() {
				t.Fatalf("after Finish: %+v", got)
			}
			WantCounts(t, s, map[work.State]int{tt.state: 1})
			ClaimNone(t, s, "w1")
		})
	}
}

func testEnqueueKeepsIdentity(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	in := work.Request{
		Delivery: "d1", Event: "issue_comment", Trigger: work.TriggerRetry, Installation: 7,
		Owner: "Acme", Repo: "Widgets", Issue: 12, Sender: "hubot", Label: "",
	}
	got := Enqueue(t, s, in, store.Created)
	want := store.Job{ID: got.ID, Request: in, State: work.Queued, CreatedAt: got.CreatedAt, UpdatedAt: got.UpdatedAt}
	if got != want || got.ID == 0 {
		t.Fatalf("Enqueue = %+v\nwant %+v", got, want)
	}
	if got.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt is in %v, want UTC", got.CreatedAt.Location())
	}
}

func testEnqueueInvalid(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	tests := []struct {
		name string
		edit func(*work.Request)
	}{
		{"no delivery", func(j *work.Request) { j.Delivery = "" }},
		{"no owner", func(j *work.Request) { j.Owner = "" }},
		{"no repo", func(j *work.Request) { j.Repo = "" }},
		{"no issue", func(j *work.Request) { j.Issue = 0 }},
		{"negative issue", func(j *work.Request) { j.Issue = -1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := NewRequest("d1", 1)
			tt.edit(&j)
			if _, _, err := s.Enqueue(context.Background(), j); !errors.Is(err, store.ErrInvalid) {
				t.Fatalf("Enqueue = %v, want ErrInvalid", err)
			}
		})
	}
	WantCounts(t, s, nil)
}

func testEnqueueDuplicate(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	first := Enqueue(t, s, NewRequest("d1", 1), store.Created)
	for range 9 {
		if got := Enqueue(t, s, NewRequest("d1", 1), store.Duplicate); got != first {
			t.Fatalf("store.Duplicate returned %+v\nwant %+v", got, first)
		}
	}
	// A redelivery shows the job as it is now, not as it was.
	Claim(t, s, "w1", time.Minute)
	if got := Enqueue(t, s, NewRequest("d1", 1), store.Duplicate); got.State != work.Running {
		t.Fatalf("store.Duplicate returned a job in state %s, want running", got.State)
	}
	WantCounts(t, s, map[work.State]int{work.Running: 1})
}

func testEnqueueDuplicateConcurrent(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	const n = 10
	var (
		wg       sync.WaitGroup
		start    = make(chan struct{})
		outcomes [n]store.Outcome
		jobs     [n]store.Job
		errs     [n]error
	)
	for i := range n {
		wg.Go(func() {
			<-start
			jobs[i], outcomes[i], errs[i] = s.Enqueue(context.Background(), NewRequest("d1", 1))
		})
	}
	close(start)
	wg.Wait()

	count := map[store.Outcome]int{}
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		count[outcomes[i]]++
		if jobs[i].ID != jobs[0].ID {
			t.Errorf("goroutine %d got job %d, goroutine 0 got job %d", i, jobs[i].ID, jobs[0].ID)
		}
	}
	if count[store.Created] != 1 || count[store.Duplicate] != n-1 {
		t.Errorf("outcomes %v, want 1 created and %d duplicate", count, n-1)
	}
	WantCounts(t, s, map[work.State]int{work.Queued: 1})
}

func testEnqueueBusy(t *testing.T, open Open) {
	tests := []struct {
		name  string
		claim bool         // whether the first job is running rather than queued
		other work.Request // the second delivery
	}{
		{"queued", false, NewRequest("d2", 1)},
		{"running", true, NewRequest("d2", 1)},
		{"owner in other case", false, func() work.Request { j := NewRequest("d2", 1); j.Owner = "ACME"; return j }()},
		{"repo in other case", true, func() work.Request { j := NewRequest("d2", 1); j.Repo = "WidGets"; return j }()},
		{"retry comment", true, func() work.Request {
			j := NewRequest("d2", 1)
			j.Event, j.Trigger, j.Label = "issue_comment", work.TriggerRetry, ""
			return j
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newStore(t, open)
			ctx := context.Background()
			active := Enqueue(t, s, NewRequest("d1", 1), store.Created)
			if tt.claim {
				active = Claim(t, s, "w1", time.Minute)
			}

			if active.Busy {
				t.Fatalf("a new job is busy: %+v", active)
			}
			active.Busy = true // the second delivery marks it
			if got := Enqueue(t, s, tt.other, store.Busy); got != active {
				t.Fatalf("store.Busy returned %+v\nwant %+v", got, active)
			}
			if got := Enqueue(t, s, tt.other, store.Duplicate); got != active {
				t.Fatalf("redelivery of the busy delivery returned %+v\nwant %+v", got, active)
			}
			if got, err := s.ByDelivery(ctx, tt.other.Delivery); err != nil || got != active {
				t.Fatalf("ByDelivery(%s) = %+v, %v\nwant %+v", tt.other.Delivery, got, err, active)
			}
			WantCounts(t, s, map[work.State]int{active.State: 1})

			if !tt.claim {
				Claim(t, s, "w1", time.Minute)
			}
			if err := s.Finish(ctx, active.ID, "w1", store.End{State: work.Done, Reason: "opened #2"}); err != nil {
				t.Fatal(err)
			}
			tt.other.Delivery = "d3"
			next := Enqueue(t, s, tt.other, store.Created)
			if next.ID == active.ID || next.Busy {
				t.Fatalf("the new job %+v has the old one's ID %d or its busy mark", next, active.ID)
			}
			WantCounts(t, s, map[work.State]int{work.Done: 1, work.Queued: 1})
		})
	}
}

func testEnqueueOtherIssues(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	Enqueue(t, s, NewRequest("d1", 1), store.Created)
	tests := []struct {
		name string
		job  work.Request
	}{
		{"other issue", NewRequest("d2", 2)},
		{"other repo", func() work.Request { j := NewRequest("d3", 1); j.Repo = "gadgets"; return j }()},
		{"other owner", func() work.Request { j := NewRequest("d4", 1); j.Owner = "umbrella"; return j }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Enqueue(t, s, tt.job, store.Created)
		})
	}
	WantCounts(t, s, map[work.State]int{work.Queued: 1 + len(tests)})
}

func testEnqueueCanceled(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s.Enqueue(ctx, NewRequest("d1", 1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Enqueue with a canceled context = %v, want context.Canceled", err)
	}
	// The delivery was not recorded, so trying again creates the job.
	Enqueue(t, s, NewRequest("d1", 1), store.Created)
}

func testClaimFIFO(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	ClaimNone(t, s, "w1")
	var want []int64
	for i := range 5 {
		want = append(want, Enqueue(t, s, NewRequest(Delivery(i), i+1), store.Created).ID)
	}
	for i, id := range want {
		if got := Claim(t, s, "w1", time.Minute); got.ID != id {
			t.Fatalf("claim %d got job %d, want %d", i, got.ID, id)
		}
	}
	ClaimNone(t, s, "w1")
}

func testClaimInvalid(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	Enqueue(t, s, NewRequest("d1", 1), store.Created)
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
			if _, _, err := s.Claim(context.Background(), tt.worker, tt.lease); !errors.Is(err, store.ErrInvalid) {
				t.Fatalf("Claim = %v, want ErrInvalid", err)
			}
			if err := s.Renew(context.Background(), 1, tt.worker, tt.lease); !errors.Is(err, store.ErrInvalid) {
				t.Fatalf("Renew = %v, want ErrInvalid", err)
			}
		})
	}
	WantCounts(t, s, map[work.State]int{work.Queued: 1})
}

func testLeaseExpiry(t *testing.T, open Open) {
	s, clk := newStore(t, open)
	ctx := context.Background()
	first := Enqueue(t, s, NewRequest("d1", 1), store.Created)

	Claim(t, s, "w1", time.Minute)
	ClaimNone(t, s, "w2")
	clk.Advance(time.Minute - time.Nanosecond)
	ClaimNone(t, s, "w2")
	clk.Advance(time.Nanosecond)

	got := Claim(t, s, "w2", time.Minute)
	if got.ID != first.ID || got.Worker != "w2" || got.Claims != 2 {
		t.Fatalf("after the lease ran out w2 claimed %+v", got)
	}
	if err := s.Renew(ctx, got.ID, "w1", time.Minute); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("w1 renewing = %v, want ErrLeaseLost", err)
	}
	if err := s.Renew(ctx, got.ID, "w2", time.Minute); err != nil {
		t.Fatalf("w2 renewing: %v", err)
	}
}

func testRenew(t *testing.T, open Open) {
	s, clk := newStore(t, open)
	j := Enqueue(t, s, NewRequest("d1", 1), store.Created)
	Claim(t, s, "w1", time.Minute)

	clk.Advance(50 * time.Second)
	if err := s.Renew(context.Background(), j.ID, "w1", time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := Get(t, s, j.ID); !got.LeaseUntil.Equal(clk.Now().Add(time.Minute)) {
		t.Fatalf("LeaseUntil = %v, want %v", got.LeaseUntil, clk.Now().Add(time.Minute))
	}
	clk.Advance(50 * time.Second) // past the first lease, within the renewed one
	ClaimNone(t, s, "w2")
	clk.Advance(10 * time.Second)
	Claim(t, s, "w2", time.Minute)
}

// A Renew by a worker whose lease ran out, but whose job nobody else has
// claimed, keeps the job: nothing was lost.
func testRenewLateButUnclaimed(t *testing.T, open Open) {
	s, clk := newStore(t, open)
	j := Enqueue(t, s, NewRequest("d1", 1), store.Created)
	Claim(t, s, "w1", time.Minute)
	clk.Advance(time.Hour)
	if err := s.Renew(context.Background(), j.ID, "w1", time.Minute); err != nil {
		t.Fatal(err)
	}
	ClaimNone(t, s, "w2")
}

func testLeaseLost(t *testing.T, open Open) {
	// Each setup leaves job 1 not running under w1 and says where it is.
	setups := []struct {
		name  string
		setup func(t *testing.T, s Store, clk *Clock)
		where string // in the error message
	}{
		{"claimed by another", func(t *testing.T, s Store, clk *Clock) {
			Claim(t, s, "w1", time.Minute)
			clk.Advance(2 * time.Minute)
			Claim(t, s, "w2", time.Minute)
		}, "running under w2"},
		{"finished", func(t *testing.T, s Store, clk *Clock) {
			Claim(t, s, "w1", time.Minute)
			if err := s.Finish(context.Background(), 1, "w1", store.End{State: work.Done}); err != nil {
				t.Fatal(err)
			}
		}, "done"},
		{"released", func(t *testing.T, s Store, clk *Clock) {
			Claim(t, s, "w1", time.Minute)
			if err := s.Release(context.Background(), 1, "w1"); err != nil {
				t.Fatal(err)
			}
		}, "queued"},
		// Every store puts back at least the jobs whose lease ran out.
		{"recovered", func(t *testing.T, s Store, clk *Clock) {
			Claim(t, s, "w1", time.Minute)
			clk.Advance(time.Minute)
			if _, err := s.RecoverAbandoned(context.Background()); err != nil {
				t.Fatal(err)
			}
		}, "queued"},
		{"never claimed", func(t *testing.T, s Store, clk *Clock) {}, "queued"},
	}
	ops := []struct {
		name string
		op   func(s Store, id int64) error
	}{
		{"Renew", func(s Store, id int64) error { return s.Renew(context.Background(), id, "w1", time.Minute) }},
		{"Finish", func(s Store, id int64) error {
			return s.Finish(context.Background(), id, "w1", store.End{State: work.Failed})
		}},
		{"Release", func(s Store, id int64) error { return s.Release(context.Background(), id, "w1") }},
		{"RecordPullRequest", func(s Store, id int64) error { return s.RecordPullRequest(context.Background(), id, "w1", 5) }},
	}
	for _, st := range setups {
		for _, op := range ops {
			t.Run(st.name+"/"+op.name, func(t *testing.T) {
				s, clk := newStore(t, open)
				Enqueue(t, s, NewRequest("d1", 1), store.Created)
				st.setup(t, s, clk)
				before := Get(t, s, 1)

				err := op.op(s, 1)
				if !errors.Is(err, store.ErrLeaseLost) {
					t.Fatalf("%s = %v, want ErrLeaseLost", op.name, err)
				}
				if !strings.Contains(err.Error(), st.where) {
					t.Errorf("%s = %q, want it to say %q", op.name, err, st.where)
				}
				if after := Get(t, s, 1); after != before {
					t.Errorf("%s changed the job:\n%+v\nto\n%+v", op.name, before, after)
				}
			})
		}
	}
	t.Run("no such job", func(t *testing.T) {
		s, _ := newStore(t, open)
		for _, op := range ops {
			if err := op.op(s, 99); !errors.Is(err, store.ErrLeaseLost) {
				t.Errorf("%s = %v, want ErrLeaseLost", op.name, err)
			}
		}
	})
}

func testFinishInvalidState(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	j := Enqueue(t, s, NewRequest("d1", 1), store.Created)
	Claim(t, s, "w1", time.Minute)
	for _, state := range []work.State{work.Queued, work.Running, "", "lost"} {
		if err := s.Finish(context.Background(), j.ID, "w1", store.End{State: state}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Finish(%q) = %v, want ErrInvalid", state, err)
		}
	}
	WantCounts(t, s, map[work.State]int{work.Running: 1})
}

func testRelease(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	j := Enqueue(t, s, NewRequest("d1", 1), store.Created)
	Claim(t, s, "w1", time.Minute)
	if err := s.Release(context.Background(), j.ID, "w1"); err != nil {
		t.Fatal(err)
	}
	got := Get(t, s, j.ID)
	if got.State != work.Queued || got.Claims != 0 || !got.LeaseUntil.IsZero() {
		t.Fatalf("after Release: %+v", got)
	}
	WantCounts(t, s, map[work.State]int{work.Queued: 1})
	// Released claims do not count towards store.MaxClaims.
	for range store.MaxClaims + 1 {
		Claim(t, s, "w2", time.Minute)
		if err := s.Release(context.Background(), j.ID, "w2"); err != nil {
			t.Fatal(err)
		}
	}
	if got := Claim(t, s, "w2", time.Minute); got.Claims != 1 {
		t.Fatalf("Claims = %d, want 1", got.Claims)
	}
}

func testMaxClaims(t *testing.T, open Open) {
	// Ways a worker can vanish without finishing its job.
	tests := []struct {
		name    string
		abandon func(t *testing.T, s Store, clk *Clock)
	}{
		{"lease runs out", func(t *testing.T, s Store, clk *Clock) {
			clk.Advance(2 * time.Minute)
		}},
		{"server restarts after the lease", func(t *testing.T, s Store, clk *Clock) {
			clk.Advance(time.Minute)
			if n, err := s.RecoverAbandoned(context.Background()); err != nil || n != 1 {
				t.Fatalf("RecoverAbandoned = %d, %v; want 1", n, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clk := newStore(t, open)
			crashy := Enqueue(t, s, NewRequest("d1", 1), store.Created)
			for i := 1; i <= store.MaxClaims; i++ {
				if got := Claim(t, s, "w1", time.Minute); got.ID != crashy.ID || got.Claims != i {
					t.Fatalf("claim %d: got job %d with %d claims", i, got.ID, got.Claims)
				}
				tt.abandon(t, s, clk)
			}
			next := Enqueue(t, s, NewRequest("d2", 2), store.Created)

			if got := Claim(t, s, "w1", time.Minute); got.ID != next.ID {
				t.Fatalf("claimed job %d, want the next one, %d", got.ID, next.ID)
			}
			got := Get(t, s, crashy.ID)
			if got.State != work.Failed || got.Claims != store.MaxClaims || !strings.Contains(got.Reason, "abandoned") {
				t.Fatalf("the job claimed %d times: %+v", store.MaxClaims, got)
			}
			WantCounts(t, s, map[work.State]int{work.Failed: 1, work.Running: 1})
			// Its issue is free again.
			Enqueue(t, s, NewRequest("d3", 1), store.Created)
		})
	}
}

func testNotFound(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	ctx := context.Background()
	if _, err := s.Get(ctx, 1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get = %v, want ErrNotFound", err)
	}
	if _, err := s.ByDelivery(ctx, "d1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ByDelivery = %v, want ErrNotFound", err)
	}
}

func testByDelivery(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	want := Enqueue(t, s, NewRequest("d1", 1), store.Created)
	got, err := s.ByDelivery(context.Background(), "d1")
	if err != nil || got != want {
		t.Fatalf("ByDelivery = %+v, %v\nwant %+v", got, err, want)
	}
}

// testFinishRecords checks what Finish keeps of what a job made.
func testFinishRecords(t *testing.T, open Open) {
	label := NewRequest("d1", 1)
	review := NewRound("d1", 1, 12, "review:5", "seen")
	tests := []struct {
		name          string
		req           work.Request
		end           store.End
		comment       int64
		pr            int
		head, ofIssue string // the job's head SHA, PullRequestOf's
	}{
		{"opened", label, store.End{State: work.Done, StatusComment: 1001, PullRequest: 7, HeadSHA: "c0ffee"}, 1001, 7, "c0ffee", "c0ffee"},
		{"failed", label, store.End{State: work.Failed, Reason: "no"}, 0, 0, "", ""},
		{"round pushed", review, store.End{State: work.Done, StatusComment: 1001, HeadSHA: "pushed"}, 1001, 12, "pushed", "pushed"},
		{"round pushed nothing", review, store.End{State: work.Done}, 0, 12, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newStore(t, open)
			ctx := context.Background()
			j := Enqueue(t, s, tt.req, store.Created)
			Finish(t, s, j, tt.end)
			got := Get(t, s, j.ID)
			if got.State != tt.end.State || got.Reason != tt.end.Reason || got.StatusComment != tt.comment ||
				got.PullRequest != tt.pr || got.HeadSHA != tt.head {
				t.Errorf("after Finish(%+v): %+v", tt.end, got)
			}
			pr, ok, err := s.PullRequestOf(ctx, "acme", "widgets", 1)
			if want := (store.PullRequest{Issue: 1, Number: tt.pr, HeadSHA: tt.ofIssue}); err != nil || ok != (tt.pr != 0) || ok && pr != want {
				t.Errorf("PullRequestOf = %+v, %v, %v; want %+v", pr, ok, err, want)
			}
		})
	}
}

func testList(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	for i := range 5 {
		Enqueue(t, s, NewRequest(Delivery(i), i+1), store.Created)
	}
	Claim(t, s, "w1", time.Minute)
	tests := []struct {
		limit int
		want  []int64
	}{
		{0, []int64{5, 4, 3, 2, 1}},
		{-1, []int64{5, 4, 3, 2, 1}},
		{2, []int64{5, 4}},
		{10, []int64{5, 4, 3, 2, 1}},
	}
	for _, tt := range tests {
		jobs, err := s.List(context.Background(), tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, j := range jobs {
			ids = append(ids, j.ID)
		}
		if !equal(ids, tt.want) {
			t.Errorf("List(%d) = jobs %v, want %v", tt.limit, ids, tt.want)
		}
	}
}

func testPing(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.Ping(context.Background()); err == nil {
		t.Fatal("Ping after Close succeeded")
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// testEnqueueRound follows the deliveries of rounds on one pull request:
// those of one round make one job, whenever they come; another round
// waits its turn like any job of the issue.
func testEnqueueRound(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	review := Enqueue(t, s, NewRound("d1", 7, 12, "review:1", "aaa"), store.Created)
	if review.PullRequest != 12 || review.Round != "review:1" || review.HeadSHA != "aaa" || review.Issue != 7 {
		t.Fatalf("Enqueue = %+v", review)
	}
	if got := Get(t, s, review.ID); got != review {
		t.Fatalf("Get = %+v\nwant %+v", got, review)
	}

	// The review's comments, while the round waits: the same round, not
	// a busy issue.
	if got := Enqueue(t, s, NewRound("d2", 7, 12, "review:1", "aaa"), store.Duplicate); got.ID != review.ID || got.Busy {
		t.Fatalf("a comment of the same review gave %+v", got)
	}
	// Owners and repositories compare as on GitHub.
	upper := NewRound("d3", 7, 12, "review:1", "aaa")
	upper.Owner, upper.Repo = "ACME", "Widgets"
	Enqueue(t, s, upper, store.Duplicate)
	// Work on the issue waits for the active job.
	if got := Enqueue(t, s, NewRequest("d4", 7), store.Busy); got.ID != review.ID || !got.Busy {
		t.Fatalf("a label gave %+v", got)
	}

	Finish(t, s, review, store.End{State: work.Done, HeadSHA: "bbb"})
	// A comment of the review that arrives after its round ended starts
	// nothing.
	if got := Enqueue(t, s, NewRound("d6", 7, 12, "review:1", "bbb"), store.Duplicate); got.ID != review.ID || got.State != work.Done {
		t.Fatalf("a late comment of the review gave %+v", got)
	}
	for _, d := range []string{"d2", "d3", "d6"} {
		if got, err := s.ByDelivery(context.Background(), d); err != nil || got.ID != review.ID {
			t.Errorf("ByDelivery(%s) = job %d, %v; want %d", d, got.ID, err, review.ID)
		}
	}
	// Keys are unique per pull request and repository, not across them.
	Enqueue(t, s, NewRound("d7", 7, 13, "review:1", "ccc"), store.Created)
	other := NewRound("d8", 7, 12, "review:1", "ddd")
	other.Repo = "gadgets"
	Enqueue(t, s, other, store.Created)
	WantCounts(t, s, map[work.State]int{work.Done: 1, work.Queued: 2})
}

// testWaitingRounds sends rounds while their issue has an active job:
// each waits, once, and is queued in its turn when the job before it
// ends, as it ends or is abandoned.
func testWaitingRounds(t *testing.T, open Open) {
	s, clk := newStore(t, open)
	ctx := context.Background()
	byDelivery := func(d string) store.Job {
		t.Helper()
		j, err := s.ByDelivery(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}

	crashy := Enqueue(t, s, NewRequest("label", 7), store.Created)
	arrived := clk.Now()
	if got := Enqueue(t, s, NewRound("review-1", 7, 12, "review:1", "aaa"), store.Waiting); got.ID != crashy.ID || got.Busy {
		t.Fatalf("a review while the issue is active gave %+v", got)
	}
	clk.Advance(time.Second)
	// The review's comments: the same round, still waiting.
	Enqueue(t, s, NewRound("review-1-comment", 7, 12, "review:1", "aaa"), store.Duplicate)
	Enqueue(t, s, NewRound("run-5", 7, 12, "run:5", "aaa"), store.Waiting)
	Enqueue(t, s, NewRound("review-1", 7, 12, "review:1", "aaa"), store.Duplicate)
	if got := byDelivery("review-1"); got.ID != crashy.ID {
		t.Fatalf("ByDelivery of a waiting round = %+v, want the active job", got)
	}
	WantCounts(t, s, map[work.State]int{work.Queued: 1})

	// The job is abandoned: the review's round is queued, with the time
	// it arrived.
	for range store.MaxClaims {
		Claim(t, s, "w1", time.Minute)
		clk.Advance(2 * time.Minute)
	}
	review := Claim(t, s, "w1", time.Minute)
	if review.Round != "review:1" || review.PullRequest != 12 || review.HeadSHA != "aaa" || review.Delivery != "review-1" ||
		!review.CreatedAt.Equal(arrived) || review.Claims != 1 {
		t.Fatalf("claimed %+v, want the review's round", review)
	}
	if got := byDelivery("review-1"); got.ID != review.ID {
		t.Errorf("ByDelivery of the promoted round = job %d, want %d", got.ID, review.ID)
	}
	// Its comments, and the CI run still waiting, make no second job.
	Enqueue(t, s, NewRound("review-1-comment-2", 7, 12, "review:1", "aaa"), store.Duplicate)
	Enqueue(t, s, NewRound("run-5-again", 7, 12, "run:5", "aaa"), store.Duplicate)

	if err := s.Finish(ctx, review.ID, "w1", store.End{State: work.Done, HeadSHA: "bbb"}); err != nil {
		t.Fatal(err)
	}
	run := Claim(t, s, "w1", time.Minute)
	if run.Round != "run:5" || run.Delivery != "run-5" {
		t.Fatalf("claimed %+v, want the CI run's round", run)
	}
	if err := s.Finish(ctx, run.ID, "w1", store.End{State: work.Failed}); err != nil {
		t.Fatal(err)
	}
	ClaimNone(t, s, "w1")
	WantCounts(t, s, map[work.State]int{work.Failed: 2, work.Done: 1})
}

// testWaitingLabels: an issue opened with two labels gets a delivery for
// each, in either order. The label that arrives while the other's job is
// active waits for it, once, and is queued as the issue's job when that
// ends, with the time it arrived; the same label again, or a retry, is
// still answered Busy. Rounds and labels wait in one line, oldest first.
func testWaitingLabels(t *testing.T, open Open) {
	s, clk := newStore(t, open)
	ctx := context.Background()
	label := func(delivery, name string) work.Request {
		r := NewRequest(delivery, 7)
		r.Label = name
		return r
	}
	bug := Enqueue(t, s, label("bug", "bug"), store.Created)
	bug = Claim(t, s, "w1", time.Minute)
	clk.Advance(time.Second)
	arrived := clk.Now()
	if got := Enqueue(t, s, label("capsule", "capsule"), store.Waiting); got.ID != bug.ID || got.Busy {
		t.Fatalf("the trigger label while the bug label's job runs gave %+v, want the waiting outcome with that job", got)
	}
	clk.Advance(time.Second)
	Enqueue(t, s, label("capsule-again", "Capsule"), store.Duplicate)
	Enqueue(t, s, NewRound("review-1", 7, 12, "review:1", "aaa"), store.Waiting)
	if got := Enqueue(t, s, label("bug-again", "BUG"), store.Busy); got.ID != bug.ID || !got.Busy {
		t.Fatalf("the same label again gave %+v, want Busy with the running job", got)
	}
	retry := NewRequest("retry", 7)
	retry.Event, retry.Trigger, retry.Label = "issue_comment", work.TriggerRetry, ""
	Enqueue(t, s, retry, store.Busy)
	if got, err := s.ByDelivery(ctx, "capsule"); err != nil || got.ID != bug.ID {
		t.Fatalf("ByDelivery of the waiting label = %+v, %v; want the active job", got, err)
	}
	WantCounts(t, s, map[work.State]int{work.Running: 1})

	if err := s.Finish(ctx, bug.ID, "w1", store.End{State: work.Skipped, Reason: "not the trigger label"}); err != nil {
		t.Fatal(err)
	}
	capsule := Claim(t, s, "w1", time.Minute)
	if capsule.Trigger != work.TriggerLabel || capsule.Label != "capsule" || capsule.Delivery != "capsule" ||
		!capsule.CreatedAt.Equal(arrived) || capsule.Busy || capsule.Claims != 1 {
		t.Fatalf("claimed %+v, want the capsule label's job, as it arrived", capsule)
	}
	if got, err := s.ByDelivery(ctx, "capsule"); err != nil || got.ID != capsule.ID {
		t.Errorf("ByDelivery of the promoted label = %+v, %v; want job %d", got, err, capsule.ID)
	}
	// The trigger label once more while its own job runs: Busy, as before.
	Enqueue(t, s, label("capsule-third", "capsule"), store.Busy)
	if err := s.Finish(ctx, capsule.ID, "w1", store.End{State: work.Done}); err != nil {
		t.Fatal(err)
	}
	if review := Claim(t, s, "w1", time.Minute); review.Round != "review:1" {
		t.Fatalf("claimed %+v, want the review that waited", review)
	}
	ClaimNone(t, s, "w1")

	// The other order on another issue: the trigger label's job first,
	// then "bug", which waits and is queued after it.
	first := NewRequest("capsule-8", 8)
	Enqueue(t, s, first, store.Created)
	second := first
	second.Delivery, second.Label = "bug-8", "bug"
	Enqueue(t, s, second, store.Waiting)
	j := Claim(t, s, "w2", time.Minute)
	if j.Label != "capsule" {
		t.Fatalf("claimed %+v, want the capsule label's job first", j)
	}
	if err := s.Finish(ctx, j.ID, "w2", store.End{State: work.Done}); err != nil {
		t.Fatal(err)
	}
	if j := Claim(t, s, "w2", time.Minute); j.Label != "bug" || j.Issue != 8 {
		t.Fatalf("claimed %+v, want the bug label's job of issue 8", j)
	}
}

// testEnqueueRoundConcurrent sends a review's deliveries at once, as
// GitHub does for a review with several comments: they share one batch,
// and make one job.
func testEnqueueRoundConcurrent(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	const n = 16
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		outcomes = map[store.Outcome]int{}
		ids      = map[int64]bool{}
	)
	for i := range n {
		wg.Go(func() {
			j, o, err := s.Enqueue(context.Background(), NewRound(Delivery(i), 7, 12, "review:1", "aaa"))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			outcomes[o]++
			ids[j.ID] = true
		})
	}
	wg.Wait()
	if outcomes[store.Created] != 1 || outcomes[store.Duplicate] != n-1 || len(ids) != 1 {
		t.Fatalf("outcomes %v for %d jobs, want 1 created and %d duplicates of one job", outcomes, len(ids), n-1)
	}
	WantCounts(t, s, map[work.State]int{work.Queued: 1})
}

func testEnqueueRoundInvalid(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	tests := []struct {
		name string
		req  work.Request
	}{
		{"round without a pull request", NewRound("d1", 7, 0, "review:1", "")},
		{"round without a key", NewRound("d1", 7, 12, "", "")},
		{"label with a key", func() work.Request { r := NewRequest("d1", 7); r.Round = "review:1"; return r }()},
		{"label with a pull request", func() work.Request { r := NewRequest("d1", 7); r.PullRequest = 12; return r }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := s.Enqueue(context.Background(), tt.req); !errors.Is(err, store.ErrInvalid) {
				t.Fatalf("Enqueue = %v, want ErrInvalid", err)
			}
		})
	}
	WantCounts(t, s, nil)
}

// testPullRequestOf follows what the store says of an issue's pull
// request as its jobs open it, run rounds on it and open another.
func testPullRequestOf(t *testing.T, open Open) {
	s, clk := newStore(t, open)
	ctx := context.Background()
	want := func(issue, number int, head string) {
		t.Helper()
		pr, ok, err := s.PullRequestOf(ctx, "acme", "widgets", issue)
		if w := (store.PullRequest{Issue: issue, Number: number, HeadSHA: head}); err != nil || ok != (number != 0) || ok && pr != w {
			t.Errorf("PullRequestOf(%d) = %+v, %v, %v; want %+v", issue, pr, ok, err, w)
		}
	}
	wantNumbered := func(number, issue int) {
		t.Helper()
		pr, ok, err := s.PullRequestNumbered(ctx, "Acme", "Widgets", number)
		if err != nil || ok != (issue != 0) || ok && (pr.Issue != issue || pr.Number != number) {
			t.Errorf("PullRequestNumbered(%d) = %+v, %v, %v; want issue %d", number, pr, ok, err, issue)
		}
	}

	opening := Enqueue(t, s, NewRequest("d1", 7), store.Created)
	want(7, 0, "")
	wantNumbered(12, 0)
	Finish(t, s, opening, store.End{State: work.Done, PullRequest: 12, HeadSHA: "first"})
	want(7, 12, "first")
	wantNumbered(12, 7)
	want(8, 0, "")

	// An active round's head is what its delivery saw, maybe a human's
	// commit: not Capsule's until the round ends.
	review := Enqueue(t, s, NewRound("d2", 7, 12, "review:1", "human"), store.Created)
	want(7, 12, "first")
	Finish(t, s, review, store.End{State: work.Done, HeadSHA: "second"})
	want(7, 12, "second")
	// A round that pushed nothing leaves the head as it was.
	command := Enqueue(t, s, NewRound("d3", 7, 12, "comment:1", "second"), store.Created)
	Finish(t, s, command, store.End{State: work.Failed})
	want(7, 12, "second")

	// A round abandoned by crashing servers pushed nothing anyone knows of.
	crashy := Enqueue(t, s, NewRound("d4", 7, 12, "run:1", "second"), store.Created)
	for range store.MaxClaims {
		Claim(t, s, "w1", time.Minute)
		clk.Advance(2 * time.Minute)
	}
	ClaimNone(t, s, "w1")
	if got := Get(t, s, crashy.ID); got.State != work.Failed || got.HeadSHA != "" {
		t.Fatalf("abandoned round: %+v", got)
	}
	want(7, 12, "second")

	// The pull request was closed; a retry opened another.
	retry := NewRequest("d5", 7)
	retry.Trigger = work.TriggerRetry
	Finish(t, s, Enqueue(t, s, retry, store.Created), store.End{State: work.Done, PullRequest: 20, HeadSHA: "third"})
	want(7, 20, "third")
	wantNumbered(20, 7)
	wantNumbered(12, 0)
}

// testWaitingRoundWithAJob breaks the rule that a round waits only while
// it has no job, by hand: the job that ends still ends, and the waiting
// round goes to the job it has.
func testWaitingRoundWithAJob(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	active := Enqueue(t, s, NewRequest("label", 7), store.Created)
	Enqueue(t, s, NewRound("review-1", 7, 12, "review:1", "aaa"), store.Waiting)
	other := NewRound("elsewhere", 7, 12, "review:1", "aaa")
	other.Issue = 8 // the same round key, queued for another issue
	round := Enqueue(t, s, other, store.Created)
	Finish(t, s, active, store.End{State: work.Done})
	if got, err := s.ByDelivery(context.Background(), "review-1"); err != nil || got.ID != round.ID {
		t.Fatalf("ByDelivery = job %d, %v; want the round's job %d", got.ID, err, round.ID)
	}
	WantCounts(t, s, map[work.State]int{work.Done: 1, work.Queued: 1})
}

// testDefer checks that a deferred job waits until its time, spends none
// of its claims however often it waits, and runs afterwards.
func testDefer(t *testing.T, open Open) {
	s, clk := newStore(t, open)
	ctx := context.Background()
	first := Enqueue(t, s, NewRequest("d1", 1), store.Created)
	for range store.MaxClaims + 2 {
		j := Claim(t, s, "w", time.Minute)
		if j.ID != first.ID || j.Claims != 1 {
			t.Fatalf("claimed job %d with %d claims, want job %d with 1", j.ID, j.Claims, first.ID)
		}
		if err := s.Defer(ctx, j.ID, "w", clk.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got := Get(t, s, j.ID); got.State != work.Queued || got.Claims != 0 || !got.NotBefore.Equal(clk.Now().Add(time.Minute)) {
			t.Fatalf("after Defer: %s with %d claims, not before %v", got.State, got.Claims, got.NotBefore)
		}
		ClaimNone(t, s, "w")
		clk.Advance(time.Minute)
	}
	// A job queued later is not held up by the waiting one.
	clk.Advance(-time.Second)
	second := Enqueue(t, s, NewRequest("d2", 2), store.Created)
	if j := Claim(t, s, "w", time.Minute); j.ID != second.ID {
		t.Errorf("claimed job %d, want the one not waiting (%d)", j.ID, second.ID)
	}
	if err := s.Defer(ctx, first.ID, "w", clk.Now()); err == nil {
		t.Error("Defer of a job not running under the worker succeeded")
	}
}

func testClaimCreatedBefore(t *testing.T, open Open) {
	s, clk := newStore(t, open)
	old := Enqueue(t, s, NewRequest("d1", 1), store.Created)
	clk.Advance(time.Hour)
	Enqueue(t, s, NewRequest("d2", 2), store.Created)
	ctx := context.Background()
	j, ok, err := s.ClaimCreatedBefore(ctx, "w", time.Minute, clk.Now().Add(-time.Minute))
	if err != nil || !ok || j.ID != old.ID {
		t.Fatalf("ClaimCreatedBefore = job %d, %v, %v; want the old job %d", j.ID, ok, err, old.ID)
	}
	if _, ok, err := s.ClaimCreatedBefore(ctx, "w", time.Minute, clk.Now().Add(-time.Minute)); ok || err != nil {
		t.Errorf("ClaimCreatedBefore = %v, %v; want nothing, the other job is newer", ok, err)
	}
}

// Many deliveries for a few issues, all at once: one job per issue, the
// rest store.Busy.
func testEnqueueConcurrentIssues(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	const deliveries, issues = 60, 6
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		count = map[store.Outcome]int{}
		jobs  = map[int]int64{} // issue → job ID
	)
	for i := range deliveries {
		wg.Go(func() {
			issue := i%issues + 1
			j, o, err := s.Enqueue(context.Background(), NewRequest(Delivery(i), issue))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Error(err)
				return
			}
			count[o]++
			if id, ok := jobs[issue]; ok && id != j.ID {
				t.Errorf("issue %d has jobs %d and %d", issue, id, j.ID)
			}
			jobs[issue] = j.ID
		})
	}
	wg.Wait()
	if count[store.Created] != issues || count[store.Busy] != deliveries-issues {
		t.Errorf("outcomes %v, want %d created and %d busy", count, issues, deliveries-issues)
	}
	WantCounts(t, s, map[work.State]int{work.Queued: issues})
}

// testRecordPullRequest: a job says which pull request it opened before it
// ends, and from then on the store knows the pull request, so that a
// review of it is not turned away while the job finishes; the job's end
// keeps the number when it names none.
func testRecordPullRequest(t *testing.T, open Open) {
	s, _ := newStore(t, open)
	ctx := context.Background()
	j := Enqueue(t, s, NewRequest("d1", 7), store.Created)
	Claim(t, s, "w1", time.Minute)
	if err := s.RecordPullRequest(ctx, j.ID, "w1", 0); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("RecordPullRequest(0) = %v, want ErrInvalid", err)
	}
	if err := s.RecordPullRequest(ctx, j.ID, "w1", 12); err != nil {
		t.Fatal(err)
	}
	if got := Get(t, s, j.ID); got.State != work.Running || got.PullRequest != 12 {
		t.Errorf("job = %+v, want running with pull request 12", got)
	}
	pr, ok, err := s.PullRequestNumbered(ctx, "acme", "widgets", 12)
	if want := (store.PullRequest{Issue: 7, Number: 12}); err != nil || !ok || pr != want {
		t.Errorf("PullRequestNumbered(12) while the job runs = %+v, %v, %v; want %+v", pr, ok, err, want)
	}
	if err := s.Finish(ctx, j.ID, "w1", store.End{State: work.Failed, HeadSHA: "first"}); err != nil {
		t.Fatal(err)
	}
	pr, ok, err = s.PullRequestOf(ctx, "acme", "widgets", 7)
	if want := (store.PullRequest{Issue: 7, Number: 12, HeadSHA: "first"}); err != nil || !ok || pr != want {
		t.Errorf("PullRequestOf(7) after the job = %+v, %v, %v; want %+v", pr, ok, err, want)
	}
}
