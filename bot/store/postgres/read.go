package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
)

// querier is what the pool and a transaction have in common.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// getJob reads job id through q, which may be a transaction.
func getJob(ctx context.Context, q querier, id int64) (store.Job, error) {
	j, err := store.ScanJob(q.QueryRow(ctx, `SELECT `+store.JobColumns+` FROM jobs WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Job{}, fmt.Errorf("job %d: %w", id, store.ErrNotFound)
	}
	return j, err
}

// Get returns job id, or an error wrapping store.ErrNotFound.
func (s *Store) Get(ctx context.Context, id int64) (store.Job, error) {
	j, err := getJob(ctx, s.pool, id)
	if err != nil {
		return store.Job{}, fmt.Errorf("store: get: %w", err)
	}
	return j, nil
}

// ByDelivery returns the job delivery created or was answered with; or an
// error wrapping store.ErrNotFound.
func (s *Store) ByDelivery(ctx context.Context, delivery string) (store.Job, error) {
	j, err := store.ScanJob(s.pool.QueryRow(ctx, `SELECT `+store.JobColumns+` FROM jobs
		WHERE id = (SELECT job_id FROM deliveries WHERE delivery = $1)`, delivery))
	if errors.Is(err, pgx.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.Job{}, fmt.Errorf("store: delivery %s: %w", delivery, err)
	}
	return j, nil
}

// Counts returns how many jobs are in each state, every State present.
func (s *Store) Counts(ctx context.Context) (map[work.State]int, error) {
	counts := make(map[work.State]int, len(work.States))
	for _, st := range work.States {
		counts[st] = 0
	}
	rows, err := s.pool.Query(ctx, `SELECT state, count(*) FROM jobs GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("store: counts: %w", err)
	}
	var (
		st work.State
		n  int
	)
	_, err = pgx.ForEachRow(rows, []any{&st, &n}, func() error {
		counts[st] = n
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: counts: %w", err)
	}
	return counts, nil
}

// List returns up to limit jobs, newest first; all of them when limit is
// not positive. It is meant for tests and debugging.
func (s *Store) List(ctx context.Context, limit int) ([]store.Job, error) {
	var max *int // NULL: no limit
	if limit > 0 {
		max = &limit
	}
	rows, err := s.pool.Query(ctx, `SELECT `+store.JobColumns+` FROM jobs ORDER BY id DESC LIMIT $1`, max)
	if err != nil {
		return nil, fmt.Errorf("store: list: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Job, error) { return store.ScanJob(row) })
	if err != nil {
		return nil, fmt.Errorf("store: list: %w", err)
	}
	return jobs, nil
}

// The queries of PullRequestOf and PullRequestNumbered, as in the SQLite
// store: the pull request the latest job of issue ($1, $2, $3) opened or
// worked on; the last commit the ended jobs of that issue pushed to pull
// request $4; the issue of the latest job that opened or worked on pull
// request ($1, $2, $3).
const (
	pullRequestQuery = `SELECT pull_request FROM jobs
		WHERE lower(owner) = lower($1) AND lower(repo) = lower($2) AND issue = $3 AND pull_request <> 0
		ORDER BY id DESC LIMIT 1`
	headQuery = `SELECT head_sha FROM jobs
		WHERE lower(owner) = lower($1) AND lower(repo) = lower($2) AND issue = $3 AND pull_request = $4
			AND head_sha <> '' AND state IN ('done', 'failed', 'skipped')
		ORDER BY id DESC LIMIT 1`
	issueQuery = `SELECT issue FROM jobs
		WHERE lower(owner) = lower($1) AND lower(repo) = lower($2) AND pull_request = $3 AND pull_request <> 0
		ORDER BY id DESC LIMIT 1`
)

// PullRequestOf returns what the store knows of the pull request Capsule
// opened for issue issue of owner/repo (see store.Store.PullRequestOf).
// It reports false when no job of the issue has a pull request.
func (s *Store) PullRequestOf(ctx context.Context, owner, repo string, issue int) (store.PullRequest, bool, error) {
	pr := store.PullRequest{Issue: issue}
	err := s.pool.QueryRow(ctx, pullRequestQuery, owner, repo, issue).Scan(&pr.Number)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.PullRequest{}, false, nil
	}
	if err == nil {
		err = s.pool.QueryRow(ctx, headQuery, owner, repo, issue, pr.Number).Scan(&pr.HeadSHA)
		if errors.Is(err, pgx.ErrNoRows) {
			err = nil
		}
	}
	if err != nil {
		return store.PullRequest{}, false, fmt.Errorf("store: the pull request of %s/%s#%d: %w", owner, repo, issue, err)
	}
	return pr, true, nil
}

// PullRequestNumbered is PullRequestOf for the issue whose pull request
// is number: it reports false unless a job opened or worked on that pull
// request, and its issue's pull request is still that one.
func (s *Store) PullRequestNumbered(ctx context.Context, owner, repo string, number int) (store.PullRequest, bool, error) {
	var issue int
	err := s.pool.QueryRow(ctx, issueQuery, owner, repo, number).Scan(&issue)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.PullRequest{}, false, nil
	}
	if err != nil {
		return store.PullRequest{}, false, fmt.Errorf("store: pull request %s/%s#%d: %w", owner, repo, number, err)
	}
	pr, ok, err := s.PullRequestOf(ctx, owner, repo, issue)
	if err != nil || !ok || pr.Number != number {
		return store.PullRequest{}, false, err
	}
	return pr, true, nil
}
