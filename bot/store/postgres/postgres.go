// Package postgres is Capsule's job queue in PostgreSQL, for several
// servers (replicas) sharing one queue. It keeps every promise of the
// SQLite store (bot/store), whose types and errors it shares, across
// processes and hosts:
//
//   - Enqueue commits before it returns, so the delivery may be
//     acknowledged; the same delivery id never queues twice, and an issue
//     (with the rounds on its pull request) has at most one active job.
//     Unique constraints enforce both; a transaction that loses a race on
//     one is run again and finds the winner's row.
//   - Claim takes the oldest claimable job with FOR UPDATE SKIP LOCKED, so
//     replicas claiming at once take different jobs and never wait for
//     each other.
//   - A job queued by one replica wakes the idle workers of all of them
//     through LISTEN/NOTIFY (Wakeups); a dead replica sends nothing, so
//     workers still poll for leases that ran out.
//   - The schema is migrated at Open, in versions recorded in
//     schema_migrations, under a transaction-level advisory lock, so that
//     replicas starting at once migrate it once.
//
// Times (leases, not-before times) are taken from the replica's clock,
// as the SQLite store does: replicas' clocks must agree to well within a
// lease (NTP does).
//
// It speaks pgx's own interface through pgxpool rather than database/sql:
// LISTEN needs one connection held for WaitForNotification, which
// database/sql has no way to express, and pgx's interface spares a
// conversion layer on every query. The pool's size and timeouts come from
// the URL (pool_max_conns, connect_timeout); the listener holds one more
// connection.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/capsulehq/capsule/bot/store"
)

// channel is the LISTEN/NOTIFY channel on which a transaction that queued
// a job wakes idle workers.
const channel = "capsule_jobs"

// retries is how many times a transaction that lost a race on a unique
// constraint, or was chosen as a deadlock's victim, is run again. Each run
// sees the rows that beat it, so one more run is almost always enough.
const retries = 5

// Store is a durable job queue in a PostgreSQL database. Its methods are
// safe for concurrent use, and any number of processes may open the same
// database.
type Store struct {
	pool *pgxpool.Pool
	now  func() time.Time

	wake       chan struct{} // Wakeups; buffered, one pending wake-up
	stopListen context.CancelFunc
	listenDone chan struct{}

	closed    atomic.Bool
	closeOnce sync.Once
}

// Open connects to the database dsn names (a postgres:// URL or a
// key=value string, as libpq takes), migrates its schema and starts
// listening for queued jobs. It fails when the database does not answer:
// a server should not start on a queue it cannot reach.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store: postgres: %w", redact(err))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: postgres: %w", err)
	}
	s := &Store{pool: pool, now: time.Now, wake: make(chan struct{}, 1), listenDone: make(chan struct{})}
	if err := s.open(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres: open %s: %w", where(cfg.ConnConfig), err)
	}
	return s, nil
}

// open checks the database answers, migrates it and starts the listener,
// whose first LISTEN is in place when open returns.
func (s *Store) open(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return err
	}
	if err := migrate(ctx, s.pool); err != nil {
		return err
	}
	conn, err := s.listenConn(ctx)
	if err != nil {
		return err
	}
	lctx, stop := context.WithCancel(context.Background())
	s.stopListen = stop
	go s.listen(lctx, conn)
	return nil
}

// redact is a parse error without the URL, which it quotes and whose
// password pgx redacts only on a best-effort basis: it says no more than
// why.
func redact(err error) error {
	var perr *pgconn.ParseConfigError
	if !errors.As(err, &perr) {
		return err
	}
	if perr.Unwrap() != nil {
		return fmt.Errorf("the database URL does not parse: %w", perr.Unwrap())
	}
	return errors.New("the database URL does not parse")
}

// Ping connects to the database dsn names and checks that it answers and
// that its schema is one this build can run on, without changing it: for
// `capsule doctor`. It returns the schema's version (0 before the first
// start).
func Ping(ctx context.Context, dsn string) (version int, err error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return 0, fmt.Errorf("store: postgres: %w", redact(err))
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return 0, fmt.Errorf("store: postgres: %w", err)
	}
	defer conn.Close(ctx)
	var migrated bool
	err = conn.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&migrated)
	if err == nil && migrated {
		err = conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&version)
	}
	if err != nil {
		return 0, fmt.Errorf("store: postgres: %s: reading the schema version: %w", where(cfg), err)
	}
	if version > len(migrations) {
		return version, fmt.Errorf("store: postgres: %s: schema version %d is newer than this build understands (%d)", where(cfg), version, len(migrations))
	}
	return version, nil
}

// where names the database of cfg for messages: host, port and database,
// never the password.
func where(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("database %s on %s:%d", cfg.Database, cfg.Host, cfg.Port)
}

// Close stops the listener and closes the connections. Calls after the
// first do nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.stopListen()
		<-s.listenDone
		s.pool.Close()
	})
	return nil
}

// Ping checks that the database answers, for a readiness probe.
func (s *Store) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return fmt.Errorf("store: postgres: ping: %w", store.ErrClosed)
	}
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("store: postgres: ping: %w", err)
	}
	return nil
}

// Check reports whether the store can serve its workers: whether the
// database answers. (The SQLite store checks its file too; here the
// server owns the files.)
func (s *Store) Check(ctx context.Context) error { return s.Ping(ctx) }

// Wakeups delivers a value when another transaction, in this process or
// another, may have queued a job: an idle worker should try to claim. It
// also fires after the listener reconnects, as notifications may have
// been missed meanwhile. Wake-ups coalesce: one is pending at most.
func (s *Store) Wakeups() <-chan struct{} { return s.wake }

// listenConn opens a connection of its own, outside the pool, and listens
// on channel with it.
func (s *Store) listenConn(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("LISTEN: %w", err)
	}
	return conn, nil
}

// listen turns notifications on conn into wake-ups until ctx ends,
// connecting again (and waking the workers, for what it missed) when the
// connection fails.
func (s *Store) listen(ctx context.Context, conn *pgx.Conn) {
	defer close(s.listenDone)
	for {
		for conn != nil {
			if _, err := conn.WaitForNotification(ctx); err != nil {
				conn.Close(context.Background())
				conn = nil
				break
			}
			s.signal()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		var err error
		if conn, err = s.listenConn(ctx); err == nil {
			s.signal()
		}
	}
}

// signal leaves a wake-up pending unless one is already.
func (s *Store) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// tx runs fn in a transaction and commits it, running it again when it
// lost a race on a unique constraint or to a deadlock.
func (s *Store) tx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	for attempt := 1; ; attempt++ {
		err := pgx.BeginFunc(ctx, s.pool, fn)
		if err == nil || attempt == retries || !retryable(err) || ctx.Err() != nil {
			return err
		}
	}
}

// retryable reports whether err is a conflict that running the
// transaction again resolves: a unique violation (another transaction
// inserted the same delivery, round or active job first), a
// serialization failure or a deadlock.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "23505", "40001", "40P01":
		return true
	}
	return false
}

// notify wakes the idle workers of every replica once tx commits.
func notify(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", channel)
	return err
}

// clock returns the current time in UTC.
func (s *Store) clock() time.Time { return s.now().UTC() }

// The PostgreSQL store keeps the queue's contract.
var _ store.Queue = (*Store)(nil)
