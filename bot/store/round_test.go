package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

// TestEnqueueRound follows the deliveries of rounds on one pull request:
// those of one round make one job, whenever they come; another round
// waits its turn like any job of the issue.
func TestEnqueueRound(t *testing.T) {
	s, _ := openTest(t)
	review := enqueue(t, s, newRound("d1", 7, 12, "review:1", "aaa"), Created)
	if review.PullRequest != 12 || review.Round != "review:1" || review.HeadSHA != "aaa" || review.Issue != 7 {
		t.Fatalf("Enqueue = %+v", review)
	}
	if got := get(t, s, review.ID); got != review {
		t.Fatalf("Get = %+v\nwant %+v", got, review)
	}

	// The review's comments, while the round waits: the same round, not
	// a busy issue.
	if got := enqueue(t, s, newRound("d2", 7, 12, "review:1", "aaa"), Duplicate); got.ID != review.ID || got.Busy {
		t.Fatalf("a comment of the same review gave %+v", got)
	}
	// Owners and repositories compare as on GitHub.
	upper := newRound("d3", 7, 12, "review:1", "aaa")
	upper.Owner, upper.Repo = "ACME", "Widgets"
	enqueue(t, s, upper, Duplicate)
	// Work on the issue waits for the active job.
	if got := enqueue(t, s, newRequest("d4", 7), Busy); got.ID != review.ID || !got.Busy {
		t.Fatalf("a label gave %+v", got)
	}

	finish(t, s, review, End{State: work.Done, HeadSHA: "bbb"})
	// A comment of the review that arrives after its round ended starts
	// nothing.
	if got := enqueue(t, s, newRound("d6", 7, 12, "review:1", "bbb"), Duplicate); got.ID != review.ID || got.State != work.Done {
		t.Fatalf("a late comment of the review gave %+v", got)
	}
	for _, d := range []string{"d2", "d3", "d6"} {
		if got, err := s.ByDelivery(context.Background(), d); err != nil || got.ID != review.ID {
			t.Errorf("ByDelivery(%s) = job %d, %v; want %d", d, got.ID, err, review.ID)
		}
	}
	// Keys are unique per pull request and repository, not across them.
	enqueue(t, s, newRound("d7", 7, 13, "review:1", "ccc"), Created)
	other := newRound("d8", 7, 12, "review:1", "ddd")
	other.Repo = "gadgets"
	enqueue(t, s, other, Created)
	wantCounts(t, s, map[work.State]int{work.Done: 1, work.Queued: 2})
}

// TestWaitingRounds sends rounds while their issue has an active job:
// each waits, once, and is queued in its turn when the job before it
// ends, as it ends or is abandoned.
func TestWaitingRounds(t *testing.T) {
	s, _ := openTest(t)
	clk := fakeClock(s)
	ctx := context.Background()
	byDelivery := func(d string) Job {
		t.Helper()
		j, err := s.ByDelivery(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}

	crashy := enqueue(t, s, newRequest("label", 7), Created)
	arrived := clk.Now()
	if got := enqueue(t, s, newRound("review-1", 7, 12, "review:1", "aaa"), Waiting); got.ID != crashy.ID || got.Busy {
		t.Fatalf("a review while the issue is active gave %+v", got)
	}
	clk.Advance(time.Second)
	// The review's comments: the same round, still waiting.
	enqueue(t, s, newRound("review-1-comment", 7, 12, "review:1", "aaa"), Duplicate)
	enqueue(t, s, newRound("run-5", 7, 12, "run:5", "aaa"), Waiting)
	enqueue(t, s, newRound("review-1", 7, 12, "review:1", "aaa"), Duplicate)
	if got := byDelivery("review-1"); got.ID != crashy.ID {
		t.Fatalf("ByDelivery of a waiting round = %+v, want the active job", got)
	}
	wantCounts(t, s, map[work.State]int{work.Queued: 1})

	// The job is abandoned: the review's round is queued, with the time
	// it arrived.
	for range MaxClaims {
		claim(t, s, "w1", time.Minute)
		clk.Advance(2 * time.Minute)
	}
	review := claim(t, s, "w1", time.Minute)
	if review.Round != "review:1" || review.PullRequest != 12 || review.HeadSHA != "aaa" || review.Delivery != "review-1" ||
		!review.CreatedAt.Equal(arrived) || review.Claims != 1 {
		t.Fatalf("claimed %+v, want the review's round", review)
	}
	if got := byDelivery("review-1"); got.ID != review.ID {
		t.Errorf("ByDelivery of the promoted round = job %d, want %d", got.ID, review.ID)
	}
	// Its comments, and the CI run still waiting, make no second job.
	enqueue(t, s, newRound("review-1-comment-2", 7, 12, "review:1", "aaa"), Duplicate)
	enqueue(t, s, newRound("run-5-again", 7, 12, "run:5", "aaa"), Duplicate)

	if err := s.Finish(ctx, review.ID, "w1", End{State: work.Done, HeadSHA: "bbb"}); err != nil {
		t.Fatal(err)
	}
	run := claim(t, s, "w1", time.Minute)
	if run.Round != "run:5" || run.Delivery != "run-5" {
		t.Fatalf("claimed %+v, want the CI run's round", run)
	}
	if err := s.Finish(ctx, run.ID, "w1", End{State: work.Failed}); err != nil {
		t.Fatal(err)
	}
	claimNone(t, s, "w1")
	wantCounts(t, s, map[work.State]int{work.Failed: 2, work.Done: 1})
}

// TestEnqueueRoundConcurrent sends a review's deliveries at once, as
// GitHub does for a review with several comments: they share one batch,
// and make one job.
func TestEnqueueRoundConcurrent(t *testing.T) {
	s, _ := openTest(t)
	const n = 16
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		outcomes = map[Outcome]int{}
		ids      = map[int64]bool{}
	)
	for i := range n {
		wg.Go(func() {
			j, o, err := s.Enqueue(context.Background(), newRound(delivery(i), 7, 12, "review:1", "aaa"))
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
	if outcomes[Created] != 1 || outcomes[Duplicate] != n-1 || len(ids) != 1 {
		t.Fatalf("outcomes %v for %d jobs, want 1 created and %d duplicates of one job", outcomes, len(ids), n-1)
	}
	wantCounts(t, s, map[work.State]int{work.Queued: 1})
}

func TestEnqueueRoundInvalid(t *testing.T) {
	s, _ := openTest(t)
	tests := []struct {
		name string
		req  work.Request
	}{
		{"round without a pull request", newRound("d1", 7, 0, "review:1", "")},
		{"round without a key", newRound("d1", 7, 12, "", "")},
		{"label with a key", func() work.Request { r := newRequest("d1", 7); r.Round = "review:1"; return r }()},
		{"label with a pull request", func() work.Request { r := newRequest("d1", 7); r.PullRequest = 12; return r }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := s.Enqueue(context.Background(), tt.req); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Enqueue = %v, want ErrInvalid", err)
			}
		})
	}
	wantCounts(t, s, nil)
}

// TestPullRequestOf follows what the store says of an issue's pull
// request as its jobs open it, run rounds on it and open another.
func TestPullRequestOf(t *testing.T) {
	s, _ := openTest(t)
	clk := fakeClock(s)
	ctx := context.Background()
	want := func(issue, number int, head string) {
		t.Helper()
		pr, ok, err := s.PullRequestOf(ctx, "acme", "widgets", issue)
		if w := (PullRequest{Issue: issue, Number: number, HeadSHA: head}); err != nil || ok != (number != 0) || ok && pr != w {
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

	opening := enqueue(t, s, newRequest("d1", 7), Created)
	want(7, 0, "")
	wantNumbered(12, 0)
	finish(t, s, opening, End{State: work.Done, PullRequest: 12, HeadSHA: "first"})
	want(7, 12, "first")
	wantNumbered(12, 7)
	want(8, 0, "")

	// An active round's head is what its delivery saw, maybe a human's
	// commit: not Capsule's until the round ends.
	review := enqueue(t, s, newRound("d2", 7, 12, "review:1", "human"), Created)
	want(7, 12, "first")
	finish(t, s, review, End{State: work.Done, HeadSHA: "second"})
	want(7, 12, "second")
	// A round that pushed nothing leaves the head as it was.
	command := enqueue(t, s, newRound("d3", 7, 12, "comment:1", "second"), Created)
	finish(t, s, command, End{State: work.Failed})
	want(7, 12, "second")

	// A round abandoned by crashing servers pushed nothing anyone knows of.
	crashy := enqueue(t, s, newRound("d4", 7, 12, "run:1", "second"), Created)
	for range MaxClaims {
		claim(t, s, "w1", time.Minute)
		clk.Advance(2 * time.Minute)
	}
	claimNone(t, s, "w1")
	if got := get(t, s, crashy.ID); got.State != work.Failed || got.HeadSHA != "" {
		t.Fatalf("abandoned round: %+v", got)
	}
	want(7, 12, "second")

	// The pull request was closed; a retry opened another.
	retry := newRequest("d5", 7)
	retry.Trigger = work.TriggerRetry
	finish(t, s, enqueue(t, s, retry, Created), End{State: work.Done, PullRequest: 20, HeadSHA: "third"})
	want(7, 20, "third")
	wantNumbered(20, 7)
	wantNumbered(12, 0)
}

// TestWaitingRoundWithAJob breaks the rule that a round waits only while
// it has no job, by hand: the job that ends still ends, and the waiting
// round goes to the job it has.
func TestWaitingRoundWithAJob(t *testing.T) {
	s, _ := openTest(t)
	active := enqueue(t, s, newRequest("label", 7), Created)
	enqueue(t, s, newRound("review-1", 7, 12, "review:1", "aaa"), Waiting)
	other := newRound("elsewhere", 7, 12, "review:1", "aaa")
	other.Issue = 8 // the same round key, queued for another issue
	round := enqueue(t, s, other, Created)
	finish(t, s, active, End{State: work.Done})
	if got, err := s.ByDelivery(context.Background(), "review-1"); err != nil || got.ID != round.ID {
		t.Fatalf("ByDelivery = job %d, %v; want the round's job %d", got.ID, err, round.ID)
	}
	wantCounts(t, s, map[work.State]int{work.Done: 1, work.Queued: 1})
}
