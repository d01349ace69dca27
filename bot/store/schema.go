package store

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations bring the schema from version i to version i+1; the version is
// kept in PRAGMA user_version. Append to this list, never edit an entry
// that has shipped.
var migrations = []string{
	// 1: jobs and the deliveries that created them or were answered Busy.
	//
	// Times are Unix nanoseconds, UTC; 0 stands for the zero time. Owner and
	// repo compare case-insensitively, as GitHub names do (they are ASCII,
	// which is what NOCASE folds). The unique partial index both finds an
	// issue's active job and guarantees there is at most one; the claim
	// index holds only active jobs, in claim (FIFO) order.
	`
CREATE TABLE jobs (
	id             INTEGER PRIMARY KEY,
	delivery       TEXT    NOT NULL,
	event          TEXT    NOT NULL,
	trigger        TEXT    NOT NULL,
	installation   INTEGER NOT NULL,
	owner          TEXT    NOT NULL COLLATE NOCASE,
	repo           TEXT    NOT NULL COLLATE NOCASE,
	issue          INTEGER NOT NULL,
	sender         TEXT    NOT NULL,
	label          TEXT    NOT NULL,
	state          TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'skipped')),
	reason         TEXT    NOT NULL DEFAULT '',
	claims         INTEGER NOT NULL DEFAULT 0,
	worker         TEXT    NOT NULL DEFAULT '',
	lease_until    INTEGER NOT NULL DEFAULT 0,
	status_comment INTEGER NOT NULL DEFAULT 0,
	pull_request   INTEGER NOT NULL DEFAULT 0,
	created_at     INTEGER NOT NULL,
	updated_at     INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX jobs_active_issue ON jobs (owner, repo, issue)
	WHERE state IN ('queued', 'running');

CREATE INDEX jobs_claimable ON jobs (id)
	WHERE state IN ('queued', 'running');

CREATE TABLE deliveries (
	delivery TEXT    PRIMARY KEY,
	job_id   INTEGER NOT NULL REFERENCES jobs (id)
) STRICT, WITHOUT ROWID;
`,
	// 2: a time before which a queued job is not claimed (a job waiting
	// for the model endpoint); 0, for every job of version 1, is none.
	`ALTER TABLE jobs ADD COLUMN not_before INTEGER NOT NULL DEFAULT 0;`,
	// 3: whether another delivery for the issue arrived while the job was
	// active; 0, for every job of version 2, is no.
	`ALTER TABLE jobs ADD COLUMN busy INTEGER NOT NULL DEFAULT 0 CHECK (busy IN (0, 1));`,
	// 4: rounds on Capsule's pull requests, and the commits jobs pushed.
	//
	// round is a round's key within its pull request (pull_request), ''
	// for work on an issue; the unique partial index makes the deliveries
	// of one round one job, whenever they come. head_sha is the head
	// commit a round's delivery saw while the job is active, and once it
	// ended the commit the job left the branch at ('' when it pushed
	// nothing). The other two indexes find an issue's and a pull
	// request's jobs.
	`
ALTER TABLE jobs ADD COLUMN round TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN head_sha TEXT NOT NULL DEFAULT '';

CREATE UNIQUE INDEX jobs_round ON jobs (owner, repo, pull_request, round)
	WHERE round != '';

CREATE INDEX jobs_issue ON jobs (owner, repo, issue);

CREATE INDEX jobs_pull_request ON jobs (owner, repo, pull_request)
	WHERE pull_request != 0;
`,
	// 5: rounds that arrived while their issue had an active job wait
	// here, one per round, until it ends; the oldest of an issue is then
	// queued as its job.
	`
CREATE TABLE waiting (
	id           INTEGER PRIMARY KEY,
	delivery     TEXT    NOT NULL UNIQUE,
	event        TEXT    NOT NULL,
	trigger      TEXT    NOT NULL,
	installation INTEGER NOT NULL,
	owner        TEXT    NOT NULL COLLATE NOCASE,
	repo         TEXT    NOT NULL COLLATE NOCASE,
	issue        INTEGER NOT NULL,
	sender       TEXT    NOT NULL,
	pull_request INTEGER NOT NULL,
	round        TEXT    NOT NULL,
	head_sha     TEXT    NOT NULL,
	created_at   INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX waiting_round ON waiting (owner, repo, pull_request, round);

CREATE INDEX waiting_issue ON waiting (owner, repo, issue);
`,
	// 6: label triggers wait too. A label added while its issue has an
	// active job of another label is kept in waiting (label, '' for a
	// round), one per issue and label, compared case-insensitively as
	// GitHub compares label names, and queued as the job in its
	// turn; so a label trigger is never folded into another label's job.
	// waiting_round now holds rounds only: label triggers have no round.
	`
ALTER TABLE waiting ADD COLUMN label TEXT NOT NULL DEFAULT '';

DROP INDEX waiting_round;

CREATE UNIQUE INDEX waiting_round ON waiting (owner, repo, pull_request, round)
	WHERE round != '';

CREATE UNIQUE INDEX waiting_label ON waiting (owner, repo, issue, lower(label))
	WHERE label != '';
`,
	// 7: what each installation's jobs spent on the model per day (a UTC
	// date, 2026-11-27): tokens and micro-dollars, against the
	// installation's budget for the day.
	`
CREATE TABLE spend (
	installation INTEGER NOT NULL,
	day          TEXT    NOT NULL,
	tokens       INTEGER NOT NULL,
	micros       INTEGER NOT NULL,
	PRIMARY KEY (installation, day)
) STRICT, WITHOUT ROWID;
`,
}

// schemaVersion is the version this build writes and understands.
var schemaVersion = len(migrations)

// migrate brings the database up to schemaVersion, one transaction per
// migration, and refuses a database written by a newer build.
func migrate(ctx context.Context, db *sql.DB) error {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("reading schema version: %w", err)
	}
	if v > schemaVersion {
		return fmt.Errorf("schema version %d is newer than this build understands (%d)", v, schemaVersion)
	}
	for ; v < schemaVersion; v++ {
		if err := apply(ctx, db, v+1, migrations[v]); err != nil {
			return fmt.Errorf("migrating schema to version %d: %w", v+1, err)
		}
	}
	return nil
}

// apply runs one migration and records its version in the same
// transaction.
func apply(ctx context.Context, db *sql.DB, version int, ddl string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, ddl); err != nil {
		return err
	}
	// PRAGMA takes no bound parameters; version is an int we made.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version)); err != nil {
		return err
	}
	return tx.Commit()
}
