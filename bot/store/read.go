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
	j, err := ScanJob(s.r.QueryRowContext(ctx, `SELECT `+JobColumns+` FROM jobs
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
	rows, err := s.r.QueryContext(ctx, `SELECT `+JobColumns+` FROM jobs ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list: %w", err)
	}
	defer rows.Close()
	var jobs []Job
	for rows.Next() {
		j, err := ScanJob(rows)
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

// The queries of PullRequestOf and PullRequestNumbered. pullRequestQuery
// finds the pull request the latest job of issue (?, ?, ?) opened or
// worked on; headQuery the last commit the ended jobs of issue (?, ?, ?)
// pushed to pull request ?; issueQuery the issue of the latest job that
// opened or worked on pull request (?, ?, ?), its pull_request term
// matching jobs_pull_request's WHERE clause.
const (
	pullRequestQuery = `SELECT pull_request FROM jobs
		WHERE owner = ? AND repo = ? AND issue = ? AND pull_request != 0
		ORDER BY id DESC LIMIT 1`
	headQuery = `SELECT head_sha FROM jobs
		WHERE owner = ? AND repo = ? AND issue = ? AND pull_request = ? AND head_sha != ''
			AND state IN ('done', 'failed', 'skipped')
		ORDER BY id DESC LIMIT 1`
	issueQuery = `SELECT issue FROM jobs
		WHERE owner = ? AND repo = ? AND pull_request = ? AND pull_request != 0
		ORDER BY id DESC LIMIT 1`
)

// PullRequestOf returns what the store knows of the pull request Capsule
// opened for issue issue of owner/repo: the latest one a job of the issue
// opened or worked on, with the last commit the issue's ended jobs pushed
// to it. It reports false when no job of the issue has a pull request.
func (s *Store) PullRequestOf(ctx context.Context, owner, repo string, issue int) (PullRequest, bool, error) {
	pr := PullRequest{Issue: issue}
	err := s.r.QueryRowContext(ctx, pullRequestQuery, owner, repo, issue).Scan(&pr.Number)
	if errors.Is(err, sql.ErrNoRows) {
		return PullRequest{}, false, nil
	}
	if err == nil {
		err = s.r.QueryRowContext(ctx, headQuery, owner, repo, issue, pr.Number).Scan(&pr.HeadSHA)
		if errors.Is(err, sql.ErrNoRows) {
			err = nil
		}
	}
	if err != nil {
		return PullRequest{}, false, fmt.Errorf("store: the pull request of %s/%s#%d: %w", owner, repo, issue, err)
	}
	return pr, true, nil
}

// PullRequestNumbered is PullRequestOf for the issue whose pull request
// is number: it reports false unless a job opened or worked on that pull
// request, and its issue's pull request is still that one.
func (s *Store) PullRequestNumbered(ctx context.Context, owner, repo string, number int) (PullRequest, bool, error) {
	var issue int
	err := s.r.QueryRowContext(ctx, issueQuery, owner, repo, number).Scan(&issue)
	if errors.Is(err, sql.ErrNoRows) {
		return PullRequest{}, false, nil
	}
	if err != nil {
		return PullRequest{}, false, fmt.Errorf("store: pull request %s/%s#%d: %w", owner, repo, number, err)
	}
	pr, ok, err := s.PullRequestOf(ctx, owner, repo, issue)
	if err != nil || !ok || pr.Number != number {
		return PullRequest{}, false, err
	}
	return pr, true, nil
}
