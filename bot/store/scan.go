package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

// JobColumns is the column list of a job's row that ScanJob reads, in
// its order: every store's jobs table has them.
const JobColumns = `id, delivery, event, trigger, installation, owner, repo, issue,
	sender, label, state, reason, claims, worker, lease_until, status_comment,
	pull_request, created_at, updated_at, not_before, busy, round, head_sha`

// scanner is what a row of database/sql (*sql.Row, *sql.Rows) and of pgx
// (pgx.Row, pgx.Rows) have in common.
type scanner interface {
	Scan(dest ...any) error
}

// ScanJob reads one row of JobColumns: a row of database/sql or of pgx.
func ScanJob(row scanner) (Job, error) {
	var (
		j                       Job
		state                   string
		lease, created, updated int64
		notBefore               int64
	)
	err := row.Scan(&j.ID, &j.Delivery, &j.Event, &j.Trigger, &j.Installation,
		&j.Owner, &j.Repo, &j.Issue, &j.Sender, &j.Label, &state, &j.Reason,
		&j.Claims, &j.Worker, &lease, &j.StatusComment, &j.PullRequest,
		&created, &updated, &notBefore, &j.Busy, &j.Round, &j.HeadSHA)
	if err != nil {
		return Job{}, err
	}
	j.State = work.State(state)
	j.LeaseUntil = FromNanos(lease)
	j.CreatedAt = FromNanos(created)
	j.UpdatedAt = FromNanos(updated)
	j.NotBefore = FromNanos(notBefore)
	return j, nil
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// getJob reads job id through q, which may be a transaction.
func getJob(ctx context.Context, q querier, id int64) (Job, error) {
	j, err := ScanJob(q.QueryRowContext(ctx, `SELECT `+JobColumns+` FROM jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	return j, err
}

// ToNanos is how every store keeps a time: Unix nanoseconds, the zero
// time as 0.
func ToNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// FromNanos is the inverse of ToNanos; times come back in UTC.
func FromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
