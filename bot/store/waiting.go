package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

// WaitingColumns is the column list of a waiting round that ScanWaiting
// reads, in its order: every store's waiting table has them.
const WaitingColumns = `id, delivery, event, trigger, installation, owner, repo, issue, sender,
	pull_request, round, head_sha, created_at`

// waitingRoundQuery finds round (?, ?, ?, ?) among the waiting ones;
// nextWaitingQuery the oldest round waiting for issue (?, ?, ?).
const (
	waitingRoundQuery = `SELECT id FROM waiting WHERE owner = ? AND repo = ? AND pull_request = ? AND round = ?`
	nextWaitingQuery  = `SELECT ` + WaitingColumns + ` FROM waiting
		WHERE owner = ? AND repo = ? AND issue = ? ORDER BY id LIMIT 1`
)

// waitFor records round r, which arrived while its issue had the active
// job active, to be queued once that ends, and records its delivery
// against active. A round already waiting is not recorded twice:
// Duplicate.
func (s *Store) waitFor(ctx context.Context, tx *sql.Tx, r work.Request, active Job) (Job, Outcome, error) {
	var id int64
	err := tx.QueryRowContext(ctx, waitingRoundQuery, r.Owner, r.Repo, r.PullRequest, r.Round).Scan(&id)
	outcome := Duplicate
	switch {
	case errors.Is(err, sql.ErrNoRows):
		outcome = Waiting
		_, err = tx.ExecContext(ctx, `INSERT INTO waiting (`+WaitingColumns[len("id, "):]+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.Delivery, r.Event, r.Trigger, r.Installation, r.Owner, r.Repo, r.Issue, r.Sender,
			r.PullRequest, r.Round, r.HeadSHA, ToNanos(s.clock()))
	}
	if err != nil {
		return Job{}, 0, err
	}
	return active, outcome, recordDelivery(ctx, tx, r.Delivery, active.ID)
}

// promote queues the oldest round waiting for the issue of job id, which
// has just ended, with the time it arrived, and points its delivery at
// the new job. A waiting round whose job exists already (it cannot, but
// the index would refuse a second) is dropped in its favour.
func (s *Store) promote(ctx context.Context, tx *sql.Tx, id int64) error {
	ended, err := getJob(ctx, tx, id)
	if err != nil {
		return err
	}
	for {
		wid, r, created, err := ScanWaiting(tx.QueryRowContext(ctx, nextWaitingQuery, ended.Owner, ended.Repo, ended.Issue))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM waiting WHERE id = ?`, wid); err != nil {
			return err
		}
		j, err := ScanJob(tx.QueryRowContext(ctx, roundQuery, r.Owner, r.Repo, r.PullRequest, r.Round))
		queued := errors.Is(err, sql.ErrNoRows)
		if queued {
			j, err = s.insertJob(ctx, tx, r, created)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET job_id = ? WHERE delivery = ?`, j.ID, r.Delivery); err != nil || queued {
			return err
		}
	}
}

// ScanWaiting reads one row of WaitingColumns: the waiting round's id,
// its request and when it arrived.
func ScanWaiting(row scanner) (id int64, r work.Request, created time.Time, err error) {
	var nanos int64
	err = row.Scan(&id, &r.Delivery, &r.Event, &r.Trigger, &r.Installation, &r.Owner, &r.Repo, &r.Issue,
		&r.Sender, &r.PullRequest, &r.Round, &r.HeadSHA, &nanos)
	return id, r, FromNanos(nanos), err
}
