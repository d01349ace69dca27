package server

import (
	"context"
	"time"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
)

// Store is the durable job queue the server takes deliveries into and its
// workers claim from: the SQLite store (*store.Store), embedded in one
// server, or the PostgreSQL one (*postgres.Store), shared by any number
// of replicas. The methods keep the promises store.Store documents;
// bot/store/storetest checks that both keep them.
type Store interface {
	Enqueue(ctx context.Context, r work.Request) (store.Job, store.Outcome, error)
	Claim(ctx context.Context, worker string, lease time.Duration) (store.Job, bool, error)
	ClaimCreatedBefore(ctx context.Context, worker string, lease time.Duration, t time.Time) (store.Job, bool, error)
	Renew(ctx context.Context, id int64, worker string, lease time.Duration) error
	RecordPullRequest(ctx context.Context, id int64, worker string, number int) error
	Finish(ctx context.Context, id int64, worker string, e store.End) error
	Release(ctx context.Context, id int64, worker string) error
	Defer(ctx context.Context, id int64, worker string, notBefore time.Time) error
	// RecoverAbandoned puts back in the queue, at start-up, the jobs a
	// previous process left running: at least those whose lease ran out.
	RecoverAbandoned(ctx context.Context) (int, error)
	Get(ctx context.Context, id int64) (store.Job, error)
	Counts(ctx context.Context) (map[work.State]int, error)
	PullRequestOf(ctx context.Context, owner, repo string, issue int) (store.PullRequest, bool, error)
	PullRequestNumbered(ctx context.Context, owner, repo string, number int) (store.PullRequest, bool, error)
	// Ping checks the database answers, for /readyz; Check that it can
	// serve the workers, every CheckEvery.
	Ping(ctx context.Context) error
	Check(ctx context.Context) error
}

// waker is a Store whose jobs may be queued by other processes: it says
// when, so that idle workers claim at once rather than at their next
// poll. The PostgreSQL store is one (LISTEN/NOTIFY).
type waker interface {
	Wakeups() <-chan struct{}
}

// storeWakeups is the store's wake-ups, or nil (never) when only this
// process queues its jobs.
func storeWakeups(st Store) <-chan struct{} {
	if w, ok := st.(waker); ok {
		return w.Wakeups()
	}
	return nil
}
