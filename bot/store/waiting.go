package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

// WaitingColumns is the column list of a waiting request that
// ScanWaiting reads, in its order: every store's waiting table has them.
const WaitingColumns = `id, delivery, event, trigger, installation, owner, repo, issue, sender,
	pull_request, round, head_sha, created_at, label`

// waitingRoundQuery finds round (?, ?, ?, ?) among the waiting ones,
// waitingLabelQuery the trigger of label ?4 for issue (?1, ?2, ?3);
// nextWaitingQuery the oldest request waiting for issue (?, ?, ?). The
// round and label terms match waiting_round's and waiting_label's WHERE
// clauses, which is what lets SQLite use those partial indexes.
const (
	waitingRoundQuery = `SELECT id FROM waiting
		WHERE owner = ?1 AND repo = ?2 AND pull_request = ?3 AND round = ?4 AND round != ''`
	waitingLabelQuery = `SELECT id FROM waiting
		WHERE owner = ?1 AND repo = ?2 AND issue = ?3 AND lower(label) = lower(?4) AND label != ''`
	nextWaitingQuery = `SELECT ` + WaitingColumns + ` FROM waiting
		WHERE owner = ? AND repo = ? AND issue = ? ORDER BY id LIMIT 1`
)

// Waits reports whether r, which arrived while its issue had the active
// job active, waits for it rather than being answered Busy: a round
// does, and so does a label trigger while active is the job of another
// label (compared case-insensitively, as GitHub compares labels). A label
// added while a retry or a round is active, or its own label's job, is
// Busy as before: that job works on the issue already.
//
// Why the store keeps the trigger, rather than the job deciding on the
// issue's labels when it runs: only the job can tell the trigger label
// (it is in the repository's configuration on GitHub, and intake must not
// need GitHub), so an issue opened with "bug" and "capsule" gets two
// deliveries, in either order, and the second must not be folded into
// the first's job, which will act on its own label only. Deciding on the
// issue's labels at run time instead would make every label added to an
// issue that carries the trigger label (say "bug", to an issue Capsule
// solved last week) run Capsule again, and would still lose the trigger
// added in the moment between the running job reading the labels and its
// end. Kept here, in the transaction that keeps one active job per
// issue, the trigger waits its turn, and its own job judges its label.
func Waits(r work.Request, active Job) bool {
	if r.Round != "" {
		return true
	}
	return r.Trigger == work.TriggerLabel && active.Trigger == work.TriggerLabel && !strings.EqualFold(active.Label, r.Label)
}

// waitFor records r (see Waits), which arrived while its issue had the
// active job active, to be queued once that ends, and records its
// delivery against active. A round, or a label of the issue, already
// waiting is not recorded twice: Duplicate.
func (s *Store) waitFor(ctx context.Context, tx *sql.Tx, r work.Request, active Job) (Job, Outcome, error) {
	var id int64
	var err error
	if r.Round != "" {
		err = tx.QueryRowContext(ctx, waitingRoundQuery, r.Owner, r.Repo, r.PullRequest, r.Round).Scan(&id)
	} else {
		err = tx.QueryRowContext(ctx, waitingLabelQuery, r.Owner, r.Repo, r.Issue, r.Label).Scan(&id)
	}
	outcome := Duplicate
	switch {
	case errors.Is(err, sql.ErrNoRows):
		outcome = Waiting
		_, err = tx.ExecContext(ctx, `INSERT INTO waiting (`+WaitingColumns[len("id, "):]+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.Delivery, r.Event, r.Trigger, r.Installation, r.Owner, r.Repo, r.Issue, r.Sender,
			r.PullRequest, r.Round, r.HeadSHA, ToNanos(s.clock()), r.Label)
	}
	if err != nil {
		return Job{}, 0, err
	}
	return active, outcome, recordDelivery(ctx, tx, r.Delivery, active.ID)
}

// promote queues the oldest request (round or label trigger) waiting for
// the issue of job id, which has just ended, with the time it arrived,
// and points its delivery at the new job. A waiting round whose job
// exists already (it cannot, but the index would refuse a second) is
// dropped in its favour.
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

// ScanWaiting reads one row of WaitingColumns: the waiting request's id,
// the request and when it arrived.
func ScanWaiting(row scanner) (id int64, r work.Request, created time.Time, err error) {
	var nanos int64
	err = row.Scan(&id, &r.Delivery, &r.Event, &r.Trigger, &r.Installation, &r.Owner, &r.Repo, &r.Issue,
		&r.Sender, &r.PullRequest, &r.Round, &r.HeadSHA, &nanos, &r.Label)
	return id, r, FromNanos(nanos), err
}
