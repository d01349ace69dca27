package store

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

// openTest opens a store in a fresh file under t.TempDir and closes it
// when the test ends. It returns the file's path too, for reopening.
func openTest(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "capsule.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, path
}

// newRequest is a request for issue n of acme/widgets, made by delivery.
func newRequest(delivery string, n int) work.Request {
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

// enqueue enqueues j and fails the test unless the outcome is want.
func enqueue(t testing.TB, s *Store, j work.Request, want Outcome) Job {
	t.Helper()
	got, outcome, err := s.Enqueue(context.Background(), j)
	if err != nil {
		t.Fatalf("Enqueue(%s): %v", j.Delivery, err)
	}
	if outcome != want {
		t.Fatalf("Enqueue(%s) = %v, want %v", j.Delivery, outcome, want)
	}
	return got
}

// claim claims a job for worker and fails the test if there is none.
func claim(t testing.TB, s *Store, worker string, lease time.Duration) Job {
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

// wantCounts fails the test unless s holds exactly the jobs per state in
// want, states missing from want meaning zero.
func wantCounts(t testing.TB, s *Store, want map[work.State]int) {
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

// get reads job id and fails the test if it can't.
func get(t testing.TB, s *Store, id int64) Job {
	t.Helper()
	j, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// delivery names the i-th delivery of a test.
func delivery(i int) string { return fmt.Sprintf("delivery-%04d", i) }
