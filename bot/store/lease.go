package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

// AbandonedReason is the Reason of a job Claim fails for having been
// claimed MaxClaims times already.
var AbandonedReason = fmt.Sprintf("abandoned after %d attempts to run it: the server stopped each time", MaxClaims)

// claimableQuery finds the oldest claimable job at time ?1 created before
// ?2. The state term matches jobs_claimable's WHERE clause word for word,
// which is what lets SQLite use that partial index.
const claimableQuery = `SELECT ` + JobColumns + ` FROM jobs
	WHERE state IN ('queued', 'running')
		AND ((state = 'queued' AND not_before <= ?1) OR (state = 'running' AND lease_until <= ?1))
		AND created_at < ?2
	ORDER BY id LIMIT 1`

// Claim hands worker the oldest claimable job: one that is queued, or one
// that is running under a lease that has run out (its worker is gone).
// The job becomes Running under worker until now+lease, and its Claims
// goes up by one. Claim reports false when there is nothing to claim.
//
// A job already claimed MaxClaims times is not handed out again but
// marked Failed (the oldest round waiting for its issue is queued), and
// Claim moves on to the next. A queued job whose
// NotBefore is still ahead is not claimable yet.
func (s *Store) Claim(ctx context.Context, worker string, lease time.Duration) (Job, bool, error) {
	return s.ClaimCreatedBefore(ctx, worker, lease, time.Time{})
}

// ClaimCreatedBefore is Claim among the jobs created before t only; the
// zero t means every job. A server whose model endpoint is down uses it
// to take up only the jobs that have waited for it too long.
func (s *Store) ClaimCreatedBefore(ctx context.Context, worker string, lease time.Duration, t time.Time) (Job, bool, error) {
	if err := CheckLease(worker, lease); err != nil {
		return Job{}, false, fmt.Errorf("store: claim: %w", err)
	}
	var (
		j  Job
		ok bool
	)
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		j, ok, err = s.claim(ctx, tx, worker, lease, t)
		return err
	})
	if err != nil {
		return Job{}, false, fmt.Errorf("store: claim for %s: %w", worker, err)
	}
	return j, ok, nil
}

// claim does Claim's work inside tx.
func (s *Store) claim(ctx context.Context, tx *sql.Tx, worker string, lease time.Duration, createdBefore time.Time) (Job, bool, error) {
	now := s.clock()
	before := int64(math.MaxInt64)
	if !createdBefore.IsZero() {
		before = ToNanos(createdBefore)
	}
	for {
		j, err := ScanJob(tx.QueryRowContext(ctx, claimableQuery, ToNanos(now), before))
		if errors.Is(err, sql.ErrNoRows) {
			return Job{}, false, nil
		}
		if err != nil {
			return Job{}, false, err
		}
		if j.Claims >= MaxClaims {
			// It pushed nothing that anyone knows of.
			_, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'failed', reason = ?,
				head_sha = '', lease_until = 0, updated_at = ? WHERE id = ?`,
				AbandonedReason, ToNanos(now), j.ID)
			if err == nil {
				err = s.promote(ctx, tx, j.ID)
			}
			if err != nil {
				return Job{}, false, err
			}
			continue
		}
		j.Claimed(worker, now, lease)
		_, err = tx.ExecContext(ctx, `UPDATE jobs SET state = 'running', worker = ?,
			lease_until = ?, claims = ?, updated_at = ?, not_before = 0 WHERE id = ?`,
			j.Worker, ToNanos(j.LeaseUntil), j.Claims, ToNanos(now), j.ID)
		if err != nil {
			return Job{}, false, err
		}
		return j, true, nil
	}
}

// Renew extends worker's lease on job id to now+lease. It fails with
// ErrLeaseLost when the job is no longer running under worker.
func (s *Store) Renew(ctx context.Context, id int64, worker string, lease time.Duration) error {
	if err := CheckLease(worker, lease); err != nil {
		return fmt.Errorf("store: renew job %d: %w", id, err)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		now := s.clock()
		return s.leased(ctx, tx, id, worker, `UPDATE jobs SET lease_until = ?, updated_at = ?
			WHERE id = ? AND state = 'running' AND worker = ?`,
			ToNanos(now.Add(lease)), ToNanos(now), id, worker)
	})
	if err != nil {
		return fmt.Errorf("store: renew job %d: %w", id, err)
	}
	return nil
}

// RecordPullRequest records that job id, which must be running under
// worker, opened (or updated) pull request number, before the job ends:
// from then on PullRequestOf knows the pull request, so that a review of
// it is taken while the job still finishes. It fails with ErrLeaseLost
// when the job is no longer running under worker.
func (s *Store) RecordPullRequest(ctx context.Context, id int64, worker string, number int) error {
	if number <= 0 {
		return fmt.Errorf("store: record pull request %d of job %d: %w", number, id, ErrInvalid)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		return s.leased(ctx, tx, id, worker, `UPDATE jobs SET pull_request = ?, updated_at = ?
			WHERE id = ? AND state = 'running' AND worker = ?`,
			number, ToNanos(s.clock()), id, worker)
	})
	if err != nil {
		return fmt.Errorf("store: record pull request %d of job %d: %w", number, id, err)
	}
	return nil
}

// Finish ends job id, which must be running under worker, as e says: in
// e.State (Done, Failed or Skipped) for e.Reason, with what the job made.
// The oldest round waiting for the job's issue is queued (see Enqueue).
// It fails with ErrLeaseLost when the job is no longer running under
// worker.
func (s *Store) Finish(ctx context.Context, id int64, worker string, e End) error {
	if !e.State.Terminal() {
		return fmt.Errorf("store: finish job %d: state %q is not done, failed or skipped: %w", id, e.State, ErrInvalid)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		err := s.leased(ctx, tx, id, worker, `UPDATE jobs SET state = ?1, reason = ?2,
			status_comment = CASE WHEN ?3 = 0 THEN status_comment ELSE ?3 END,
			pull_request = CASE WHEN ?4 = 0 THEN pull_request ELSE ?4 END,
			head_sha = ?5, lease_until = 0, updated_at = ?6
			WHERE id = ?7 AND state = 'running' AND worker = ?8`,
			string(e.State), e.Reason, e.StatusComment, e.PullRequest, e.HeadSHA, ToNanos(s.clock()), id, worker)
		if err != nil {
			return err
		}
		return s.promote(ctx, tx, id)
	})
	if err != nil {
		return fmt.Errorf("store: finish job %d as %s: %w", id, e.State, err)
	}
	return nil
}

// Release puts job id, which must be running under worker, back in the
// queue, for a worker that is shutting down. The claim does not count
// towards MaxClaims: the worker gave the job back in good order, so the
// job is not suspected of bringing the server down. Release fails with
// ErrLeaseLost when the job is no longer running under worker.
func (s *Store) Release(ctx context.Context, id int64, worker string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		return s.leased(ctx, tx, id, worker, `UPDATE jobs SET state = 'queued',
			claims = max(claims - 1, 0), lease_until = 0, updated_at = ?
			WHERE id = ? AND state = 'running' AND worker = ?`,
			ToNanos(s.clock()), id, worker)
	})
	if err != nil {
		return fmt.Errorf("store: release job %d: %w", id, err)
	}
	return nil
}

// Defer puts job id, which must be running under worker, back in the
// queue until notBefore, for a job that cannot go on yet (its model
// endpoint is down). Like Release, the claim does not count towards
// MaxClaims: waiting spends none of the job's claims. Defer fails with
// ErrLeaseLost when the job is no longer running under worker.
func (s *Store) Defer(ctx context.Context, id int64, worker string, notBefore time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		return s.leased(ctx, tx, id, worker, `UPDATE jobs SET state = 'queued',
			claims = max(claims - 1, 0), lease_until = 0, not_before = ?, updated_at = ?
			WHERE id = ? AND state = 'running' AND worker = ?`,
			ToNanos(notBefore), ToNanos(s.clock()), id, worker)
	})
	if err != nil {
		return fmt.Errorf("store: defer job %d: %w", id, err)
	}
	return nil
}

// leased runs update, which must change job id only if it is running under
// worker, and turns "no row changed" into an ErrLeaseLost that says where
// the job is now.
func (s *Store) leased(ctx context.Context, tx *sql.Tx, id int64, worker, update string, args ...any) error {
	res, err := tx.ExecContext(ctx, update, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 1 {
		return nil
	}
	j, err := getJob(ctx, tx, id)
	return LeaseLost(j, err, worker)
}

// LeaseLost is the ErrLeaseLost of a job that no longer runs under
// worker, saying where the job is now: j and err are what reading the job
// again returned.
func LeaseLost(j Job, err error, worker string) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return fmt.Errorf("no such job: %w", ErrLeaseLost)
	case err != nil:
		return err
	case j.State == work.Running:
		return fmt.Errorf("running under %s, not %s: %w", j.Worker, worker, ErrLeaseLost)
	}
	return fmt.Errorf("%s, not running under %s: %w", j.State, worker, ErrLeaseLost)
}

// RecoverAbandoned puts every running job back in the queue and says how
// many there were. Call it once at start-up: the store's lock guarantees
// that the process that was running them is gone. Their claims still count
// towards MaxClaims.
func (s *Store) RecoverAbandoned(ctx context.Context) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'queued', lease_until = 0,
			updated_at = ? WHERE state = 'running'`, ToNanos(s.clock()))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: recover abandoned jobs: %w", err)
	}
	return int(n), nil
}

// CheckLease rejects a claim or renewal without a worker name or with a
// lease that is not positive.
func CheckLease(worker string, lease time.Duration) error {
	if worker == "" {
		return fmt.Errorf("no worker name: %w", ErrInvalid)
	}
	if lease <= 0 {
		return fmt.Errorf("lease %v is not positive: %w", lease, ErrInvalid)
	}
	return nil
}
