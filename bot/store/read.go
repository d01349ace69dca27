package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/capsulehq/capsule/bot/work"
)

// Get returns job id, or an error wrapping ErrNotFound.
func (s *Store) Get(ctx context.Context, id int64) (Job, error) {
	j, err := getJob(ctx, s.r, id)
	if err != nil {
		return Job{}, fmt.Errorf("store: get: %w", err)
	}
	return j, nil
}

// ByDelivery returns the job delivery created or, if it was answered Busy,
// the job that was active then; or an error wrapping ErrNotFound.
func (s *Store) ByDelivery(ctx context.Context, delivery string) (Job, error) {
	j, err := scanJob(s.r.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs
		WHERE id = (SELECT job_id FROM deliveries WHERE delivery = ?)`, delivery))
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return Job{}, fmt.Errorf("store: delivery %s: %w", delivery, err)
	}
	return j, nil
}

// Counts returns how many jobs are in each state, every State present.
func (s *Store) Counts(ctx context.Context) (map[work.State]int, error) {
	counts := make(map[work.State]int, len(work.States))
	for _, st := range work.States {
		counts[st] = 0
	}
	rows, err := s.r.QueryContext(ctx, `SELECT state, count(*) FROM jobs GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("store: counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			st string
			n  int
		)
		if err := rows.Scan(&st, &n); err != nil {
			return nil, fmt.Errorf("store: counts: %w", err)
		}
		counts[work.State(st)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: counts: %w", err)
	}
	return counts, nil
}

// List returns up to limit jobs, newest first; all of them when limit is
// not positive. It is meant for tests and debugging.
func (s *Store) List(ctx context.Context, limit int) ([]Job, error) {
	if limit <= 0 {
		limit = -1 // SQLite's "no limit"
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+jobColumns+` FROM jobs ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list: %w", err)
	}
	defer rows.Close()
	var jobs []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list: %w", err)
		}
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list: %w", err)
	}
	return jobs, nil
}

// Note remembers job id's status comment and pull request; a zero argument
// leaves its field as it is. It fails with ErrNotFound when there is no
// such job.
func (s *Store) Note(ctx context.Context, id int64, statusComment int64, pullRequest int) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE jobs SET
			status_comment = CASE WHEN ?1 = 0 THEN status_comment ELSE ?1 END,
			pull_request = CASE WHEN ?2 = 0 THEN pull_request ELSE ?2 END,
			updated_at = ?3
			WHERE id = ?4`, statusComment, pullRequest, toNanos(s.clock()), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: note on job %d: %w", id, err)
	}
	return nil
}
