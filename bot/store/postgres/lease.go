package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
)

// claimableQuery finds and locks the oldest claimable job at time $1
// created before $2, skipping the jobs other transactions hold: replicas
// claiming at once each take a different job, and none waits. The state
// term matches jobs_claimable's WHERE clause.
const claimableQuery = `SELECT ` + store.JobColumns + ` FROM jobs
	WHERE state IN ('queued', 'running')
		AND ((state = 'queued' AND not_before <= $1) OR (state = 'running' AND lease_until <= $1))
		AND created_at < $2
	ORDER BY id LIMIT 1
	FOR UPDATE SKIP LOCKED`

// Claim hands worker the oldest claimable job, as store.Store.Claim does:
// a queued job, or a running one whose lease ran out (its replica is gone
// or stuck). A job claimed MaxClaims times already is failed instead and
// Claim moves on.
func (s *Store) Claim(ctx context.Context, worker string, lease time.Duration) (store.Job, bool, error) {
	return s.ClaimCreatedBefore(ctx, worker, lease, time.Time{})
}

// ClaimCreatedBefore is Claim among the jobs created before t only; the
// zero t means every job.
func (s *Store) ClaimCreatedBefore(ctx context.Context, worker string, lease time.Duration, t time.Time) (store.Job, bool, error) {
	if err := store.CheckLease(worker, lease); err != nil {
		return store.Job{}, false, fmt.Errorf("store: claim: %w", err)
	}
	var (
		j  store.Job
		ok bool
	)
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var err error
		j, ok, err = s.claim(ctx, tx, worker, lease, t)
		return err
	})
	if err != nil {
		return store.Job{}, false, fmt.Errorf("store: claim for %s: %w", worker, err)
	}
	return j, ok, nil
}

// claim does Claim's work inside tx.
func (s *Store) claim(ctx context.Context, tx pgx.Tx, worker string, lease time.Duration, createdBefore time.Time) (store.Job, bool, error) {
	now := s.clock()
	before := int64(math.MaxInt64)
	if !createdBefore.IsZero() {
		before = store.ToNanos(createdBefore)
	}
	for {
		j, err := store.ScanJob(tx.QueryRow(ctx, claimableQuery, store.ToNanos(now), before))
		if errors.Is(err, pgx.ErrNoRows) {
			return store.Job{}, false, nil
		}
		if err != nil {
			return store.Job{}, false, err
		}
		if j.Claims >= store.MaxClaims {
			// It pushed nothing that anyone knows of.
			_, err := tx.Exec(ctx, `UPDATE jobs SET state = 'failed', reason = $1,
				head_sha = '', lease_until = 0, updated_at = $2 WHERE id = $3`,
				store.AbandonedReason, store.ToNanos(now), j.ID)
			if err == nil {
				err = s.promote(ctx, tx, j.ID)
			}
			if err != nil {
				return store.Job{}, false, err
			}
			continue
		}
		j.Claimed(worker, now, lease)
		_, err = tx.Exec(ctx, `UPDATE jobs SET state = 'running', worker = $1,
			lease_until = $2, claims = $3, updated_at = $4, not_before = 0 WHERE id = $5`,
			j.Worker, store.ToNanos(j.LeaseUntil), j.Claims, store.ToNanos(now), j.ID)
		if err != nil {
			return store.Job{}, false, err
		}
		return j, true, nil
	}
}

// Renew extends worker's lease on job id to now+lease. It fails with
// store.ErrLeaseLost when the job is no longer running under worker.
func (s *Store) Renew(ctx context.Context, id int64, worker string, lease time.Duration) error {
	if err := store.CheckLease(worker, lease); err != nil {
		return fmt.Errorf("store: renew job %d: %w", id, err)
	}
	now := s.clock()
	err := s.leased(ctx, id, worker, `UPDATE jobs SET lease_until = $1, updated_at = $2
		WHERE id = $3 AND state = 'running' AND worker = $4`,
		store.ToNanos(now.Add(lease)), store.ToNanos(now), id, worker)
	if err != nil {
		return fmt.Errorf("store: renew job %d: %w", id, err)
	}
	return nil
}

// RecordPullRequest records that job id, which must be running under
// worker, opened (or updated) pull request number, before the job ends
// (see store.Store.RecordPullRequest). It fails with store.ErrLeaseLost
// when the job is no longer running under worker.
func (s *Store) RecordPullRequest(ctx context.Context, id int64, worker string, number int) error {
	if number <= 0 {
		return fmt.Errorf("store: record pull request %d of job %d: %w", number, id, store.ErrInvalid)
	}
	err := s.leased(ctx, id, worker, `UPDATE jobs SET pull_request = $1, updated_at = $2
		WHERE id = $3 AND state = 'running' AND worker = $4`,
		number, store.ToNanos(s.clock()), id, worker)
	if err != nil {
		return fmt.Errorf("store: record pull request %d of job %d: %w", number, id, err)
	}
	return nil
}

// Finish ends job id, which must be running under worker, as e says, and
// queues the oldest round waiting for its issue (see
// store.Store.Finish). It fails with store.ErrLeaseLost when the job is
// no longer running under worker.
func (s *Store) Finish(ctx context.Context, id int64, worker string, e store.End) error {
	if !e.State.Terminal() {
		return fmt.Errorf("store: finish job %d: state %q is not done, failed or skipped: %w", id, e.State, store.ErrInvalid)
	}
	err := s.leased(ctx, id, worker, `UPDATE jobs SET state = $1, reason = $2,
		status_comment = CASE WHEN $3::bigint = 0 THEN status_comment ELSE $3::bigint END,
		pull_request = CASE WHEN $4::integer = 0 THEN pull_request ELSE $4::integer END,
		head_sha = $5, lease_until = 0, updated_at = $6
		WHERE id = $7 AND state = 'running' AND worker = $8`,
		string(e.State), e.Reason, e.StatusComment, e.PullRequest, e.HeadSHA, store.ToNanos(s.clock()), id, worker)
	if err != nil {
		return fmt.Errorf("store: finish job %d as %s: %w", id, e.State, err)
	}
	return nil
}

// Release puts job id, which must be running under worker, back in the
// queue, for a worker that is shutting down; the claim does not count
// towards MaxClaims. The other replicas' workers are woken for it.
func (s *Store) Release(ctx context.Context, id int64, worker string) error {
	err := s.leased(ctx, id, worker, `UPDATE jobs SET state = 'queued',
		claims = greatest(claims - 1, 0), lease_until = 0, updated_at = $1
		WHERE id = $2 AND state = 'running' AND worker = $3`,
		store.ToNanos(s.clock()), id, worker)
	if err != nil {
		return fmt.Errorf("store: release job %d: %w", id, err)
	}
	return nil
}

// Defer puts job id, which must be running under worker, back in the
// queue until notBefore, spending none of its claims.
func (s *Store) Defer(ctx context.Context, id int64, worker string, notBefore time.Time) error {
	err := s.leased(ctx, id, worker, `UPDATE jobs SET state = 'queued',
		claims = greatest(claims - 1, 0), lease_until = 0, not_before = $1, updated_at = $2
		WHERE id = $3 AND state = 'running' AND worker = $4`,
		store.ToNanos(notBefore), store.ToNanos(s.clock()), id, worker)
	if err != nil {
		return fmt.Errorf("store: defer job %d: %w", id, err)
	}
	return nil
}

// leased runs update, which must change job id only if it is running under
// worker, in a transaction; then queues the round waiting for the job's
// issue if the job ended, and wakes the workers if it is queued again. It
// turns "no row changed" into a store.ErrLeaseLost that says where the
// job is now.
func (s *Store) leased(ctx context.Context, id int64, worker, update string, args ...any) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		var state work.State
		err := tx.QueryRow(ctx, update+` RETURNING state`, args...).Scan(&state)
		switch {
		case err == nil && state.Terminal():
			return s.promote(ctx, tx, id)
		case err == nil && state == work.Queued:
			return notify(ctx, tx)
		case err == nil:
			return nil
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		j, err := getJob(ctx, tx, id)
		return store.LeaseLost(j, err, worker)
	})
}

// RecoverAbandoned puts back in the queue the running jobs whose lease
// has run out, and says how many there were; their claims still count
// towards MaxClaims. Unlike the SQLite store it leaves the other running
// jobs alone: they may be another replica's, alive and well. A replica
// that restarts after a crash finds its own jobs again once their leases
// run out, as any replica would.
func (s *Store) RecoverAbandoned(ctx context.Context) (int, error) {
	var n int64
	err := s.tx(ctx, func(tx pgx.Tx) error {
		now := store.ToNanos(s.clock())
		tag, err := tx.Exec(ctx, `UPDATE jobs SET state = 'queued', lease_until = 0, updated_at = $1
			WHERE state = 'running' AND lease_until <= $1`, now)
		if err != nil {
			return err
		}
		if n = tag.RowsAffected(); n > 0 {
			return notify(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: recover abandoned jobs: %w", err)
	}
	return int(n), nil
}
