package main

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/store/postgres"
)

// databaseEnv names the PostgreSQL database of a shared queue.
const databaseEnv = "CAPSULE_DATABASE_URL"

// connectTimeout bounds how long serve and doctor wait for PostgreSQL to
// answer at start.
const connectTimeout = 30 * time.Second

// jobStore is the queue serve runs on, which it closes on the way out.
type jobStore interface {
	store.Queue
	Close() error
}

// registerDatabase registers --database, defaulting to $CAPSULE_DATABASE_URL.
func registerDatabase(fs *flag.FlagSet, database *string) {
	fs.StringVar(database, "database", os.Getenv(databaseEnv),
		"PostgreSQL URL (postgres://...) of a job queue several replicas share; empty: SQLite in --data-dir, for one server ($"+databaseEnv+"; prefer the environment to a flag, which ps shows)")
}

// openJobStore opens the queue: PostgreSQL when database is set, else
// the SQLite file in dataDir, which it creates if need be.
func openJobStore(ctx context.Context, database, dataDir string) (jobStore, error) {
	if database == "" {
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, fmt.Errorf("%w: data directory: %w", errUsage, err)
		}
		st, err := store.Open(sqlitePath(dataDir))
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	if err := checkDatabaseURL(database); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	st, err := postgres.Open(ctx, database)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// sqlitePath is the SQLite queue's file in dataDir.
func sqlitePath(dataDir string) string { return filepath.Join(dataDir, "capsule.db") }

// checkDatabaseURL refuses a --database that is not a postgres:// URL,
// without repeating it: it may hold a password.
func checkDatabaseURL(database string) error {
	u, err := url.Parse(database)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return fmt.Errorf("--database ($%s) must be a postgres:// URL", databaseEnv)
	}
	return nil
}

// databaseCheck says which queue serve would run on and, for PostgreSQL,
// whether the database answers and its schema suits this build.
func databaseCheck(ctx context.Context) check {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	var ss serveSettings
	ss.register(fs)
	if ss.database == "" {
		return check{name: "database", skip: true,
			info: "SQLite in " + sqlitePath(ss.dataDir) + ", for one server (set " + databaseEnv + " for PostgreSQL, shared by replicas)"}
	}
	const fix = "check " + databaseEnv + " (postgres://user:password@host:port/database) and that the server lets this host in"
	if err := checkDatabaseURL(ss.database); err != nil {
		return check{name: "database", info: err.Error(), fix: fix}
	}
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	v, err := postgres.Ping(ctx, ss.database)
	if err != nil {
		return check{name: "database", info: err.Error(), fix: fix}
	}
	if v == 0 {
		return check{name: "database", ok: true, info: "PostgreSQL answers; serve creates the schema at its first start"}
	}
	return check{name: "database", ok: true, info: fmt.Sprintf("PostgreSQL answers (schema version %d)", v)}
}
