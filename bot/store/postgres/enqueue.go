package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
)

// The queries that find an issue's active job and a round's job, their
// WHERE clauses matching jobs_active_issue's and jobs_round's so that
// PostgreSQL uses those indexes. activeQuery locks the job it finds: the
// job cannot end (and leave a waiting round behind with nothing to wait
// for) while the delivery is recorded against it; a job that ended
// meanwhile is not found.
const (
	activeQuery = `SELECT ` + store.JobColumns + ` FROM jobs
		WHERE lower(owner) = lower($1) AND lower(repo) = lower($2) AND issue = $3
			AND state IN ('queued', 'running')
		FOR UPDATE`
	roundQuery = `SELECT ` + store.JobColumns + ` FROM jobs
		WHERE lower(owner) = lower($1) AND lower(repo) = lower($2) AND pull_request = $3
			AND round = $4 AND round <> ''`
)

// Enqueue queues r as a job, with the checks and outcomes of the SQLite
// store's Enqueue (see store.Store.Enqueue), in one transaction that has
// committed when Enqueue returns without error: the delivery may then be
// acknowledged. Replicas enqueueing the same delivery, round or issue at
// once race on the unique constraints; the losers run again and answer
// Duplicate, Busy or Waiting with the winner's job.
func (s *Store) Enqueue(ctx context.Context, r work.Request) (store.Job, store.Outcome, error) {
	if err := store.Validate(r); err != nil {
		return store.Job{}, 0, fmt.Errorf("store: enqueue: %w", err)
	}
	var (
		j       store.Job
		outcome store.Outcome
	)
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var err error
		j, outcome, err = s.enqueue(ctx, tx, r)
		return err
	})
	if err != nil {
		return store.Job{}, 0, fmt.Errorf("store: enqueue delivery %s: %w", r.Delivery, err)
	}
	return j, outcome, nil
}

// enqueue does Enqueue's work inside tx.
func (s *Store) enqueue(ctx context.Context, tx pgx.Tx, r work.Request) (store.Job, store.Outcome, error) {
	var id int64
	err := tx.QueryRow(ctx, `SELECT job_id FROM deliveries WHERE delivery = $1`, r.Delivery).Scan(&id)
	switch {
	case err == nil:
		got, err := getJob(ctx, tx, id)
		return got, store.Duplicate, err
	case !errors.Is(err, pgx.ErrNoRows):
		return store.Job{}, 0, err
	}

	// The active job first: it is locked, so that the round's job, read
	// after it, is as of no earlier than the active job. (A round's job
	// committed between the two reads would otherwise be taken for an
	// active job the round must wait for.)
	active, err := store.ScanJob(tx.QueryRow(ctx, activeQuery, r.Owner, r.Repo, r.Issue))
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return store.Job{}, 0, err
	}
	found := err == nil
	if r.Round != "" {
		same, err := store.ScanJob(tx.QueryRow(ctx, roundQuery, r.Owner, r.Repo, r.PullRequest, r.Round))
		switch {
		case err == nil:
			return same, store.Duplicate, recordDelivery(ctx, tx, r.Delivery, same.ID)
		case !errors.Is(err, pgx.ErrNoRows):
			return store.Job{}, 0, err
		}
	}
	if found && store.Waits(r, active) {
		return s.waitFor(ctx, tx, r, active)
	}
	if found {
		if err := recordDelivery(ctx, tx, r.Delivery, active.ID); err != nil {
			return store.Job{}, 0, err
		}
		if _, err := tx.Exec(ctx, `UPDATE jobs SET busy = true WHERE id = $1`, active.ID); err != nil {
			return store.Job{}, 0, err
		}
		active.Busy = true
		return active, store.Busy, nil
	}

	j, err := s.insertJob(ctx, tx, r, s.clock())
	if err != nil {
		return store.Job{}, 0, err
	}
	if err := recordDelivery(ctx, tx, j.Delivery, j.ID); err != nil {
		return store.Job{}, 0, err
	}
	return j, store.Created, nil
}

// insertJob queues r as a new job created at created, and wakes the
// workers when tx commits.
func (s *Store) insertJob(ctx context.Context, tx pgx.Tx, r work.Request, created time.Time) (store.Job, error) {
	now := s.clock()
	j := store.Job{Request: r, State: work.Queued, CreatedAt: created, UpdatedAt: now}
	err := tx.QueryRow(ctx, `INSERT INTO jobs
		(delivery, event, trigger, installation, owner, repo, issue, sender, label, state, created_at, updated_at,
			pull_request, round, head_sha)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id`,
		j.Delivery, j.Event, string(j.Trigger), j.Installation, j.Owner, j.Repo, j.Issue,
		j.Sender, j.Label, string(j.State), store.ToNanos(created), store.ToNanos(now),
		j.PullRequest, j.Round, j.HeadSHA).Scan(&j.ID)
	if err != nil {
		return store.Job{}, err
	}
	return j, notify(ctx, tx)
}

// recordDelivery remembers which job a delivery created or was answered
// with.
func recordDelivery(ctx context.Context, tx pgx.Tx, delivery string, id int64) error {
	_, err := tx.Exec(ctx, `INSERT INTO deliveries (delivery, job_id) VALUES ($1, $2)`, delivery, id)
	return err
}

// waitFor records r (see store.Waits), which arrived while its issue had
// the active job active, to be queued once that ends, and records its
// delivery against active. A round, or a label of the issue, already
// waiting is not recorded twice: Duplicate.
func (s *Store) waitFor(ctx context.Context, tx pgx.Tx, r work.Request, active store.Job) (store.Job, store.Outcome, error) {
	var id int64
	var err error
	if r.Round != "" {
		err = tx.QueryRow(ctx, `SELECT id FROM waiting
			WHERE lower(owner) = lower($1) AND lower(repo) = lower($2) AND pull_request = $3 AND round = $4 AND round <> ''`,
			r.Owner, r.Repo, r.PullRequest, r.Round).Scan(&id)
	} else {
		err = tx.QueryRow(ctx, `SELECT id FROM waiting
			WHERE lower(owner) = lower($1) AND lower(repo) = lower($2) AND issue = $3 AND lower(label) = lower($4) AND label <> ''`,
			r.Owner, r.Repo, r.Issue, r.Label).Scan(&id)
	}
	outcome := store.Duplicate
	if errors.Is(err, pgx.ErrNoRows) {
		outcome = store.Waiting
		_, err = tx.Exec(ctx, `INSERT INTO waiting (`+store.WaitingColumns[len("id, "):]+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			r.Delivery, r.Event, string(r.Trigger), r.Installation, r.Owner, r.Repo, r.Issue, r.Sender,
			r.PullRequest, r.Round, r.HeadSHA, store.ToNanos(s.clock()), r.Label)
	}
	if err != nil {
		return store.Job{}, 0, err
	}
	return active, outcome, recordDelivery(ctx, tx, r.Delivery, active.ID)
}

// promote queues the oldest request (round or label trigger) waiting for
// the issue of job id, which has just ended, with the time it arrived,
// and points its delivery at the new job. A waiting round whose job exists already (it cannot, but
// the index would refuse a second) is dropped in its favour.
func (s *Store) promote(ctx context.Context, tx pgx.Tx, id int64) error {
	ended, err := getJob(ctx, tx, id)
	if err != nil {
		return err
	}
	for {
		_, r, created, err := store.ScanWaiting(tx.QueryRow(ctx, `DELETE FROM waiting WHERE id = (
				SELECT id FROM waiting
				WHERE lower(owner) = lower($1) AND lower(repo) = lower($2) AND issue = $3
				ORDER BY id LIMIT 1)
			RETURNING `+store.WaitingColumns, ended.Owner, ended.Repo, ended.Issue))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		j, err := store.ScanJob(tx.QueryRow(ctx, roundQuery, r.Owner, r.Repo, r.PullRequest, r.Round))
		queued := errors.Is(err, pgx.ErrNoRows)
		if queued {
			j, err = s.insertJob(ctx, tx, r, created)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE deliveries SET job_id = $1 WHERE delivery = $2`, j.ID, r.Delivery); err != nil || queued {
			return err
		}
	}
}
