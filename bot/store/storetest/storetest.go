// Package storetest is the behavioural test suite every implementation of
// Capsule's job queue passes: the SQLite store (bot/store) and the
// PostgreSQL one (bot/store/postgres). Run runs it against an
// implementation; the helpers serve the implementations' own tests too.
package storetest

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
)

// Store is the job queue under test: what the server consumes, and what
// the tests read besides.
type Store interface {
	store.Queue
	ByDelivery(ctx context.Context, delivery string) (store.Job, error)
	List(ctx context.Context, limit int) ([]store.Job, error)
	Close() error
}

// Open opens a new, empty store that tells the time with now, and closes
// it when the test ends (a store closed by the test is closed again).
type Open func(t *testing.T, now func() time.Time) Store

// Run runs the suite against the stores open opens, each test on a store
// of its own.
func Run(t *testing.T, open Open) {
	tests := []struct {
		name string
		test func(*testing.T, Open)
	}{
		{"Lifecycle", testLifecycle},
		{"EnqueueKeepsIdentity", testEnqueueKeepsIdentity},
		{"EnqueueInvalid", testEnqueueInvalid},
		{"EnqueueDuplicate", testEnqueueDuplicate},
		{"EnqueueDuplicateConcurrent", testEnqueueDuplicateConcurrent},
		{"EnqueueBusy", testEnqueueBusy},
		{"EnqueueOtherIssues", testEnqueueOtherIssues},
		{"EnqueueCanceled", testEnqueueCanceled},
		{"EnqueueConcurrentIssues", testEnqueueConcurrentIssues},
		{"ClaimFIFO", testClaimFIFO},
		{"ClaimInvalid", testClaimInvalid},
		{"LeaseExpiry", testLeaseExpiry},
		{"Renew", testRenew},
		{"RenewLateButUnclaimed", testRenewLateButUnclaimed},
		{"LeaseLost", testLeaseLost},
		{"FinishInvalidState", testFinishInvalidState},
		{"Release", testRelease},
		{"MaxClaims", testMaxClaims},
		{"NotFound", testNotFound},
		{"ByDelivery", testByDelivery},
		{"FinishRecords", testFinishRecords},
		{"List", testList},
		{"Ping", testPing},
		{"EnqueueRound", testEnqueueRound},
		{"WaitingRounds", testWaitingRounds},
		{"WaitingLabels", testWaitingLabels},
		{"EnqueueRoundConcurrent", testEnqueueRoundConcurrent},
		{"EnqueueRoundInvalid", testEnqueueRoundInvalid},
		{"PullRequestOf", testPullRequestOf},
		{"RecordPullRequest", testRecordPullRequest},
		{"WaitingRoundWithAJob", testWaitingRoundWithAJob},
		{"Defer", testDefer},
		{"ClaimCreatedBefore", testClaimCreatedBefore},
		{"SpendWithinLimit", testSpendWithinLimit},
		{"SpendConcurrent", testSpendConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, open) })
	}
}

// newStore opens a store on a clock of its own, and returns both.
func newStore(t *testing.T, open Open) (Store, *Clock) {
	t.Helper()
	clk := NewClock()
	return open(t, clk.Now), clk
}

// Clock is a time source that moves only when told to.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock that starts at a fixed instant.
func NewClock() *Clock {
	return &Clock{now: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// NewRequest is a request for issue n of acme/widgets, made by delivery.
func NewRequest(delivery string, n int) work.Request {
	return work.Request{
		Delivery:     delivery,
		Event:        "issues",
		Trigger:      work.TriggerLabel,
		Installation: 42,
		Owner:        "acme",
		Repo:         "widgets",
		Issue:        n,
		Sender:       "octocat",
		Label:        "capsule",
	}
}

// NewRound is a request, made by delivery, for round key on pull request
// pr of issue n of acme/widgets, whose delivery saw head commit head.
func NewRound(delivery string, n, pr int, key, head string) work.Request {
	return work.Request{
		Delivery:     delivery,
		Event:        "pull_request_review",
		Trigger:      work.TriggerReview,
		Installation: 42,
		Owner:        "acme",
		Repo:         "widgets",
		Issue:        n,
		Sender:       "octocat",
		PullRequest:  pr,
		Round:        key,
		HeadSHA:      head,
	}
}

// Delivery names the i-th delivery of a test.
func Delivery(i int) string { return fmt.Sprintf("delivery-%04d", i) }

// Enqueue enqueues r and fails the test unless the outcome is want.
func Enqueue(t testing.TB, s Store, r work.Request, want store.Outcome) store.Job {
	t.Helper()
	got, outcome, err := s.Enqueue(context.Background(), r)
	if err != nil {
		t.Fatalf("Enqueue(%s): %v", r.Delivery, err)
	}
	if outcome != want {
		t.Fatalf("Enqueue(%s) = %v, want %v", r.Delivery, outcome, want)
	}
	return got
}

// Claim claims a job for worker and fails the test if there is none.
func Claim(t testing.TB, s Store, worker string, lease time.Duration) store.Job {
	t.Helper()
	j, ok, err := s.Claim(context.Background(), worker, lease)
	if err != nil {
		t.Fatalf("Claim(%s): %v", worker, err)
	}
	if !ok {
		t.Fatalf("Claim(%s): nothing to claim", worker)
	}
	return j
}

// ClaimNone fails the test unless worker finds nothing to claim.
func ClaimNone(t testing.TB, s Store, worker string) {
	t.Helper()
	j, ok, err := s.Claim(context.Background(), worker, time.Minute)
	if err != nil {
		t.Fatalf("Claim(%s): %v", worker, err)
	}
	if ok {
		t.Fatalf("Claim(%s) = job %d (%s), want nothing to claim", worker, j.ID, j.Delivery)
	}
}

// WantCounts fails the test unless s holds exactly the jobs per state in
// want, states missing from want meaning zero.
func WantCounts(t testing.TB, s Store, want map[work.State]int) {
	t.Helper()
	got, err := s.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	full := map[work.State]int{work.Queued: 0, work.Running: 0, work.Done: 0, work.Failed: 0, work.Skipped: 0}
	maps.Copy(full, want)
	if !maps.Equal(got, full) {
		t.Fatalf("Counts() = %v, want %v", got, full)
	}
}

// Get reads job id and fails the test if it can't.
func Get(t testing.TB, s Store, id int64) store.Job {
	t.Helper()
	j, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// Finish claims the oldest claimable job, which must be j, and ends it as
// e says.
func Finish(t testing.TB, s Store, j store.Job, e store.End) {
	t.Helper()
	if got := Claim(t, s, "w-finish", time.Minute); got.ID != j.ID {
		t.Fatalf("claimed job %d, want %d", got.ID, j.ID)
	}
	if err := s.Finish(context.Background(), j.ID, "w-finish", e); err != nil {
		t.Fatal(err)
	}
}
