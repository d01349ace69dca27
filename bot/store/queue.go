package store

import (
	"context"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

// Queue is the durable job queue the server (bot/server) takes deliveries
// into and its workers claim from: the SQLite store (*Store), embedded in one
// server, or the PostgreSQL one (*postgres.Store), shared by any number
// of replicas. The methods keep the promises Store documents;
// the shared suite, bot/store/storetest, checks that both keep them.
type Queue interface {
	Enqueue(ctx context.Context, r work.Request) (Job, Outcome, error)
	Claim(ctx context.Context, worker string, lease time.Duration) (Job, bool, error)
	ClaimCreatedBefore(ctx context.Context, worker string, lease time.Duration, t time.Time) (Job, bool, error)
	Renew(ctx context.Context, id int64, worker string, lease time.Duration) error
	RecordPullRequest(ctx context.Context, id int64, worker string, number int) error
	Finish(ctx context.Context, id int64, worker string, e End) error
	Release(ctx context.Context, id int64, worker string) error
	Defer(ctx context.Context, id int64, worker string, notBefore time.Time) error
	// RecoverAbandoned puts back in the queue, at start-up, the jobs a
	// previous process left running: at least those whose lease ran out.
	RecoverAbandoned(ctx context.Context) (int, error)
	Get(ctx context.Context, id int64) (Job, error)
	Counts(ctx context.Context) (map[work.State]int, error)
	PullRequestOf(ctx context.Context, owner, repo string, issue int) (PullRequest, bool, error)
	PullRequestNumbered(ctx context.Context, owner, repo string, number int) (PullRequest, bool, error)
	// Ping checks the database answers, for /readyz; Check that it can
	// serve the workers, every CheckEvery.
	Ping(ctx context.Context) error
	Check(ctx context.Context) error
}

// The SQLite store keeps the queue's contract.
var _ Queue = (*Store)(nil)
