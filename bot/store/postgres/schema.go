package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations bring the schema from version i to version i+1, recorded in
// schema_migrations. Append to this list, never edit an entry that has
// shipped.
var migrations = []string{
	// 1: the queue as the SQLite store's schema 5 has it.
	//
	// Times are Unix nanoseconds, UTC, as in the SQLite store; 0 stands
	// for the zero time. Owner and repo compare case-insensitively, as
	// GitHub names do: every index and query on them goes through lower().
	// jobs_active_issue finds an issue's active job and makes sure there
	// is at most one; jobs_round makes the deliveries of one round one
	// job; jobs_claimable holds only active jobs, in claim (FIFO) order.
	// waiting holds the rounds that arrived while their issue had an
	// active job, one per round, until it ends.
	`
CREATE TABLE jobs (
	id             bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	delivery       text    NOT NULL,
	event          text    NOT NULL,
	trigger        text    NOT NULL,
	installation   bigint  NOT NULL,
	owner          text    NOT NULL,
	repo           text    NOT NULL,
	issue          integer NOT NULL,
	sender         text    NOT NULL,
	label          text    NOT NULL,
	state          text    NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'skipped')),
	reason         text    NOT NULL DEFAULT '',
	busy           boolean NOT NULL DEFAULT false,
	claims         integer NOT NULL DEFAULT 0,
	worker         text    NOT NULL DEFAULT '',
	lease_until    bigint  NOT NULL DEFAULT 0,
	not_before     bigint  NOT NULL DEFAULT 0,
	status_comment bigint  NOT NULL DEFAULT 0,
	pull_request   integer NOT NULL DEFAULT 0,
	round          text    NOT NULL DEFAULT '',
	head_sha       text    NOT NULL DEFAULT '',
	created_at     bigint  NOT NULL,
	updated_at     bigint  NOT NULL
);

CREATE UNIQUE INDEX jobs_active_issue ON jobs (lower(owner), lower(repo), issue)
	WHERE state IN ('queued', 'running');

CREATE INDEX jobs_claimable ON jobs (id)
	WHERE state IN ('queued', 'running');

CREATE UNIQUE INDEX jobs_round ON jobs (lower(owner), lower(repo), pull_request, round)
	WHERE round <> '';

CREATE INDEX jobs_issue ON jobs (lower(owner), lower(repo), issue);

CREATE INDEX jobs_pull_request ON jobs (lower(owner), lower(repo), pull_request)
	WHERE pull_request <> 0;

CREATE TABLE deliveries (
	delivery text   PRIMARY KEY,
	job_id   bigint NOT NULL REFERENCES jobs (id)
);

CREATE TABLE waiting (
	id           bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	delivery     text    NOT NULL UNIQUE,
	event        text    NOT NULL,
	trigger      text    NOT NULL,
	installation bigint  NOT NULL,
	owner        text    NOT NULL,
	repo         text    NOT NULL,
	issue        integer NOT NULL,
	sender       text    NOT NULL,
	pull_request integer NOT NULL,
	round        text    NOT NULL,
	head_sha     text    NOT NULL,
	created_at   bigint  NOT NULL
);

CREATE UNIQUE INDEX waiting_round ON waiting (lower(owner), lower(repo), pull_request, round);

CREATE INDEX waiting_issue ON waiting (lower(owner), lower(repo), issue);
`,
	// 2: label triggers wait too, as in the SQLite store's schema 6: a
	// label added while its issue has an active job of another label
	// waits in waiting (label, '' for a round), one per issue and label
	// compared case-insensitively, and is queued in its turn.
	// waiting_round now holds rounds only.
	`
ALTER TABLE waiting ADD COLUMN label text NOT NULL DEFAULT '';

DROP INDEX waiting_round;

CREATE UNIQUE INDEX waiting_round ON waiting (lower(owner), lower(repo), pull_request, round)
	WHERE round <> '';

CREATE UNIQUE INDEX waiting_label ON waiting (lower(owner), lower(repo), issue, lower(label))
	WHERE label <> '';
`,
	// 3: what each installation's jobs spent on the model per day, as in
	// the SQLite store's schema 7.
	`
CREATE TABLE spend (
	installation bigint NOT NULL,
	day          text   NOT NULL,
	tokens       bigint NOT NULL,
	micros       bigint NOT NULL,
	PRIMARY KEY (installation, day)
);
`,
}

// SchemaVersion is the schema version this build migrates a database to.
func SchemaVersion() int { return len(migrations) }

// migrationLock is the key of the transaction-level advisory lock under
// which a process reads the schema's version and migrates it, so that
// replicas starting at once take turns: the first migrates, the others
// then find the schema current. (It spells "capsule" in ASCII.)
const migrationLock int64 = 0x63617073756c65

// migrating, when set (by tests), is called with the version found,
// inside the lock, before any migration runs.
var migrating func(found int)

// migrate brings the database up to len(migrations), all in one
// transaction under migrationLock, and refuses a database written by a
// newer build.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLock); err != nil {
			return fmt.Errorf("taking the migration lock: %w", err)
		}
		_, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer     PRIMARY KEY,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`)
		if err != nil {
			return err
		}
		var v int
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&v); err != nil {
			return fmt.Errorf("reading the schema version: %w", err)
		}
		if migrating != nil {
			migrating(v)
		}
		if v > len(migrations) {
			return fmt.Errorf("schema version %d is newer than this build understands (%d)", v, len(migrations))
		}
		for ; v < len(migrations); v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrating the schema to version %d: %w", v+1, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version) VALUES ($1)", v+1); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migrating: %w", err)
	}
	return nil
}
