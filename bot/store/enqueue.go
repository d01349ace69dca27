package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

// activeQuery finds the active job of issue (?, ?, ?). The state term
// matches jobs_active_issue's WHERE clause word for word, which is what lets
// SQLite use that partial index; the columns' NOCASE collation makes the
// comparison case-insensitive.
const activeQuery = `SELECT ` + JobColumns + ` FROM jobs
	WHERE owner = ? AND repo = ? AND issue = ? AND state IN ('queued', 'running')`

// roundQuery finds the job of round (?, ?, ?, ?): owner, repo, pull
// request and round key. The round term matches jobs_round's WHERE clause
// word for word, which is what lets SQLite use that partial index.
const roundQuery = `SELECT ` + JobColumns + ` FROM jobs
	WHERE owner = ? AND repo = ? AND pull_request = ? AND round = ? AND round != ''`

// Enqueue queues r as a job, atomically with the checks that keep the queue sane:
//
//   - a delivery ID seen before changes nothing (Duplicate), so GitHub's
//     redeliveries are harmless;
//   - a round (r.Round set) that its pull request already has, active or
//     ended, is not made again: the delivery is recorded against the
//     round's job and answered Duplicate, so that the comments of one
//     review make one round, whenever they come;
//   - an issue has at most one active (queued or running) job, shared by
//     the work on the issue and the rounds on its pull request. A round
//     that arrives while its issue has one waits for it (Waiting, once
//     per round: Duplicate after), and is queued as the issue's job when
//     that ends, the oldest first; its delivery is recorded against the
//     active job until then. So does a label trigger while the active
//     job is another label's (once per issue and label; see Waits): no
//     label is folded into another label's job. Any other
//     delivery for an issue that has one (a retry, the same label
//     again) is recorded against it and answered Busy, and the active job
//     is marked Busy. Owner and repo compare case-insensitively, as on
//     GitHub.
//
// Once Enqueue has returned without error the outcome is on
// disk, and the delivery may be acknowledged.
//
// Concurrent calls are committed together, in one transaction and one
// fsync (group commit), each in a savepoint of its own, so that a failure
// of one does not fail the others. If ctx ends before the call's turn, it
// is not carried out; if it ends while the call's batch commits, Enqueue
// returns ctx's error without knowing whether the job was stored, and a
// redelivery will tell.
func (s *Store) Enqueue(ctx context.Context, r work.Request) (Job, Outcome, error) {
	if err := Validate(r); err != nil {
		return Job{}, 0, fmt.Errorf("store: enqueue: %w", err)
	}
	c := &enqueueCall{ctx: ctx, req: r, done: make(chan enqueueResult, 1)}
	var err error
	select {
	case s.calls <- c:
		select {
		case r := <-c.done:
			if r.err == nil {
				return r.job, r.outcome, nil
			}
			err = r.err
		case <-ctx.Done():
			err = ctx.Err()
		}
	case <-ctx.Done():
		err = ctx.Err()
	case <-s.closing:
		err = ErrClosed
	}
	return Job{}, 0, fmt.Errorf("store: enqueue delivery %s: %w", r.Delivery, err)
}

// Validate rejects a request the queue could not deduplicate or route,
// with an error wrapping ErrInvalid. Every implementation of the queue
// checks requests with it.
func Validate(j work.Request) error {
	switch {
	case j.Delivery == "":
		return fmt.Errorf("job without a delivery ID: %w", ErrInvalid)
	case j.Owner == "" || j.Repo == "":
		return fmt.Errorf("delivery %s: job without owner or repository: %w", j.Delivery, ErrInvalid)
	case j.Issue <= 0:
		return fmt.Errorf("delivery %s: issue number %d: %w", j.Delivery, j.Issue, ErrInvalid)
	case j.Trigger.Round() && (j.PullRequest <= 0 || j.Round == ""):
		return fmt.Errorf("delivery %s: round without a pull request or a key: %w", j.Delivery, ErrInvalid)
	case !j.Trigger.Round() && (j.PullRequest != 0 || j.Round != ""):
		return fmt.Errorf("delivery %s: %s job with a pull request or a round key: %w", j.Delivery, j.Trigger, ErrInvalid)
	}
	return nil
}

// enqueue does Enqueue's work inside tx.
func (s *Store) enqueue(ctx context.Context, tx *sql.Tx, r work.Request) (Job, Outcome, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT job_id FROM deliveries WHERE delivery = ?`, r.Delivery).Scan(&id)
	switch {
	case err == nil:
		got, err := getJob(ctx, tx, id)
		return got, Duplicate, err
	case !errors.Is(err, sql.ErrNoRows):
		return Job{}, 0, err
	}

	if r.Round != "" {
		same, err := ScanJob(tx.QueryRowContext(ctx, roundQuery, r.Owner, r.Repo, r.PullRequest, r.Round))
		switch {
		case err == nil:
			return same, Duplicate, recordDelivery(ctx, tx, r.Delivery, same.ID)
		case !errors.Is(err, sql.ErrNoRows):
			return Job{}, 0, err
		}
	}

	active, err := ScanJob(tx.QueryRowContext(ctx, activeQuery, r.Owner, r.Repo, r.Issue))
	switch {
	case err == nil && Waits(r, active):
		return s.waitFor(ctx, tx, r, active)
	case err == nil:
		if err := recordDelivery(ctx, tx, r.Delivery, active.ID); err != nil {
			return Job{}, 0, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET busy = 1 WHERE id = ?`, active.ID); err != nil {
			return Job{}, 0, err
		}
		active.Busy = true
		return active, Busy, nil
	case !errors.Is(err, sql.ErrNoRows):
		return Job{}, 0, err
	}

	j, err := s.insertJob(ctx, tx, r, s.clock())
	if err != nil {
		return Job{}, 0, err
	}
	if err := recordDelivery(ctx, tx, j.Delivery, j.ID); err != nil {
		return Job{}, 0, err
	}
	return j, Created, nil
}

// insertJob queues r as a new job created at created.
func (s *Store) insertJob(ctx context.Context, tx *sql.Tx, r work.Request, created time.Time) (Job, error) {
	now := s.clock()
	j := Job{Request: r, State: work.Queued, CreatedAt: created, UpdatedAt: now}
	err := tx.QueryRowContext(ctx, `INSERT INTO jobs
		(delivery, event, trigger, installation, owner, repo, issue, sender, label, state, created_at, updated_at,
			pull_request, round, head_sha)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		j.Delivery, j.Event, j.Trigger, j.Installation, j.Owner, j.Repo, j.Issue,
		j.Sender, j.Label, string(j.State), ToNanos(created), ToNanos(now),
		j.PullRequest, j.Round, j.HeadSHA).Scan(&j.ID)
	return j, err
}

// recordDelivery remembers which job a delivery created or was answered
// Busy with.
func recordDelivery(ctx context.Context, tx *sql.Tx, delivery string, id int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO deliveries (delivery, job_id) VALUES (?, ?)`, delivery, id)
	return err
}
