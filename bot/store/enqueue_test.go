package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

func TestLifecycle(t *testing.T) {
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
			s, _ := openTest(t)
			clk := fakeClock(s)
			ctx := context.Background()
			wantCounts(t, s, nil)

			queued := enqueue(t, s, newRequest("d1", 1), Created)
			if queued.ID == 0 || queued.State != work.Queued || queued.Claims != 0 || !queued.CreatedAt.Equal(clk.Now()) {
				t.Fatalf("Enqueue returned %+v", queued)
			}
			if got := get(t, s, queued.ID); got != queued {
				t.Fatalf("Get = %+v\nwant %+v", got, queued)
			}
			wantCounts(t, s, map[work.State]int{work.Queued: 1})

			clk.Advance(time.Second)
			running := claim(t, s, "w1", time.Minute)
			if running.ID != queued.ID || running.State != work.Running || running.Worker != "w1" ||
				running.Claims != 1 || !running.LeaseUntil.Equal(clk.Now().Add(time.Minute)) {
				t.Fatalf("Claim returned %+v", running)
			}
			if got := get(t, s, queued.ID); got != running {
				t.Fatalf("Get = %+v\nwant %+v", got, running)
			}
			wantCounts(t, s, map[work.State]int{work.Running: 1})

			if err := s.Finish(ctx, running.ID, "w1", End{State: tt.state, Reason: tt.reason}); err != nil {
				t.Fatal(err)
			}
			got := get(t, s, queued.ID)
			if got.State != tt.state || got.Reason != tt.reason || !got.LeaseUntil.IsZero() {
				t.Fatalf("after Finish: %+v", got)
			}
			wantCounts(t, s, map[work.State]int{tt.state: 1})
			claimNone(t, s, "w1")
		})
	}
}

func TestEnqueueKeepsIdentity(t *testing.T) {
	s, _ := openTest(t)
	in := work.Request{
		Delivery: "d1", Event: "issue_comment", Trigger: work.TriggerRetry, Installation: 7,
		Owner: "Acme", Repo: "Widgets", Issue: 12, Sender: "hubot", Label: "",
	}
	got := enqueue(t, s, in, Created)
	want := Job{ID: got.ID, Request: in, State: work.Queued, CreatedAt: got.CreatedAt, UpdatedAt: got.UpdatedAt}
	if got != want || got.ID == 0 {
		t.Fatalf("Enqueue = %+v\nwant %+v", got, want)
	}
	if got.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt is in %v, want UTC", got.CreatedAt.Location())
	}
}

func TestEnqueueInvalid(t *testing.T) {
	s, _ := openTest(t)
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
			j := newRequest("d1", 1)
			tt.edit(&j)
			if _, _, err := s.Enqueue(context.Background(), j); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Enqueue = %v, want ErrInvalid", err)
			}
		})
	}
	wantCounts(t, s, nil)
}

func TestEnqueueDuplicate(t *testing.T) {
	s, _ := openTest(t)
	first := enqueue(t, s, newRequest("d1", 1), Created)
	for range 9 {
		if got := enqueue(t, s, newRequest("d1", 1), Duplicate); got != first {
			t.Fatalf("Duplicate returned %+v\nwant %+v", got, first)
		}
	}
	// A redelivery shows the job as it is now, not as it was.
	claim(t, s, "w1", time.Minute)
	if got := enqueue(t, s, newRequest("d1", 1), Duplicate); got.State != work.Running {
		t.Fatalf("Duplicate returned a job in state %s, want running", got.State)
	}
	wantCounts(t, s, map[work.State]int{work.Running: 1})
}

func TestEnqueueDuplicateConcurrent(t *testing.T) {
	s, _ := openTest(t)
	const n = 10
	var (
		wg       sync.WaitGroup
		start    = make(chan struct{})
		outcomes [n]Outcome
		jobs     [n]Job
		errs     [n]error
	)
	for i := range n {
		wg.Go(func() {
			<-start
			jobs[i], outcomes[i], errs[i] = s.Enqueue(context.Background(), newRequest("d1", 1))
		})
	}
	close(start)
	wg.Wait()

	count := map[Outcome]int{}
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		count[outcomes[i]]++
		if jobs[i].ID != jobs[0].ID {
			t.Errorf("goroutine %d got job %d, goroutine 0 got job %d", i, jobs[i].ID, jobs[0].ID)
		}
	}
	if count[Created] != 1 || count[Duplicate] != n-1 {
		t.Errorf("outcomes %v, want 1 created and %d duplicate", count, n-1)
	}
	wantCounts(t, s, map[work.State]int{work.Queued: 1})
}

func TestEnqueueBusy(t *testing.T) {
	tests := []struct {
		name  string
		claim bool         // whether the first job is running rather than queued
		other work.Request // the second delivery
	}{
		{"queued", false, newRequest("d2", 1)},
		{"running", true, newRequest("d2", 1)},
		{"owner in other case", false, func() work.Request { j := newRequest("d2", 1); j.Owner = "ACME"; return j }()},
		{"repo in other case", true, func() work.Request { j := newRequest("d2", 1); j.Repo = "WidGets"; return j }()},
		{"retry comment", true, func() work.Request {
			j := newRequest("d2", 1)
			j.Event, j.Trigger, j.Label = "issue_comment", work.TriggerRetry, ""
			return j
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTest(t)
			ctx := context.Background()
			active := enqueue(t, s, newRequest("d1", 1), Created)
			if tt.claim {
				active = claim(t, s, "w1", time.Minute)
			}

			if active.Busy {
				t.Fatalf("a new job is busy: %+v", active)
			}
			active.Busy = true // the second delivery marks it
			if got := enqueue(t, s, tt.other, Busy); got != active {
				t.Fatalf("Busy returned %+v\nwant %+v", got, active)
			}
			if got := enqueue(t, s, tt.other, Duplicate); got != active {
				t.Fatalf("redelivery of the busy delivery returned %+v\nwant %+v", got, active)
			}
			if got, err := s.ByDelivery(ctx, tt.other.Delivery); err != nil || got != active {
				t.Fatalf("ByDelivery(%s) = %+v, %v\nwant %+v", tt.other.Delivery, got, err, active)
			}
			wantCounts(t, s, map[work.State]int{active.State: 1})

			if !tt.claim {
				claim(t, s, "w1", time.Minute)
			}
			if err := s.Finish(ctx, active.ID, "w1", End{State: work.Done, Reason: "opened #2"}); err != nil {
				t.Fatal(err)
			}
			tt.other.Delivery = "d3"
			next := enqueue(t, s, tt.other, Created)
			if next.ID == active.ID || next.Busy {
				t.Fatalf("the new job %+v has the old one's ID %d or its busy mark", next, active.ID)
			}
			wantCounts(t, s, map[work.State]int{work.Done: 1, work.Queued: 1})
		})
	}
}

func TestEnqueueOtherIssues(t *testing.T) {
	s, _ := openTest(t)
	enqueue(t, s, newRequest("d1", 1), Created)
	tests := []struct {
		name string
		job  work.Request
	}{
		{"other issue", newRequest("d2", 2)},
		{"other repo", func() work.Request { j := newRequest("d3", 1); j.Repo = "gadgets"; return j }()},
		{"other owner", func() work.Request { j := newRequest("d4", 1); j.Owner = "umbrella"; return j }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enqueue(t, s, tt.job, Created)
		})
	}
	wantCounts(t, s, map[work.State]int{work.Queued: 1 + len(tests)})
}

func TestEnqueueCanceled(t *testing.T) {
	s, _ := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s.Enqueue(ctx, newRequest("d1", 1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Enqueue with a canceled context = %v, want context.Canceled", err)
	}
	// The delivery was not recorded, so trying again creates the job.
	enqueue(t, s, newRequest("d1", 1), Created)
}
