// Package store is Capsule's durable job queue: the webhook handler
// enqueues a job for each delivery it admits, workers claim jobs under a
// lease, run them and finish them.
//
// The queue lives in one SQLite file in WAL mode with synchronous=FULL, so a
// job whose Enqueue has returned survives kill -9 and power loss, and the
// webhook may acknowledge the delivery. One process at a time may open the
// file; Open takes an advisory lock next to it to make sure.
//
// Every write goes through a single connection, so writers never contend
// inside SQLite; reads use a small pool of their own and, WAL being what it
// is, never wait for a writer. Concurrent Enqueue calls share transactions
// (group commit), so that the webhook's acknowledgements wait for one
// fsync, not for a queue of them.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// readConns is the size of the read pool. Reads are short (a job by key,
// counts per state), and are few next to the writes.
const readConns = 4

// busyTimeout is how long a connection waits on a lock held by another
// connection before giving up with SQLITE_BUSY: 5s. The write pool has one
// connection and the lock file keeps other processes out, so waits are rare
// and short: a reader meeting a checkpoint, for instance.
const busyTimeout = "busy_timeout(5000)"

// Store is a durable job queue in a SQLite file. Its methods are safe for
// concurrent use.
type Store struct {
	path string
	lock *os.File
	// opened is the database file as Open found it, which Check compares
	// the file at path with.
	opened os.FileInfo
	w      *sql.DB // one connection: every write, in transactions
	r      *sql.DB // reads outside transactions
	now    func() time.Time

	calls    chan *enqueueCall // to commitLoop; unbuffered
	closing  chan struct{}     // closed by Close
	loopDone chan struct{}     // closed by commitLoop as it returns

	closeOnce sync.Once
	closeErr  error
}

// Open opens the store in the SQLite file at path, creating the file and its
// schema if need be. The directory must exist.
//
// Open locks path+".lock" for as long as the store is open; when another
// process (or another Open in this one) holds it, Open fails with an error
// wrapping ErrLocked.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("store: open: empty path: %w", ErrInvalid)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	lockPath := abs + ".lock"
	lock, err := lockFile(lockPath)
	if errors.Is(err, ErrLocked) {
		return nil, fmt.Errorf("store: open %s: %w: %s is locked; is another server using this data directory?", abs, err, lockPath)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: creating the lock file: %w", abs, err)
	}
	s := &Store{
		path:     abs,
		lock:     lock,
		now:      time.Now,
		calls:    make(chan *enqueueCall),
		closing:  make(chan struct{}),
		loopDone: make(chan struct{}),
	}
	if err := s.open(context.Background()); err != nil {
		s.closeAll()
		return nil, fmt.Errorf("store: open %s: %w", abs, explain(err))
	}
	go s.commitLoop()
	return s, nil
}

// open connects both pools, checks the settings durability depends on and
// migrates the schema.
func (s *Store) open(ctx context.Context) error {
	// Write transactions take the write lock as they begin, and commits
	// reach the disk before they return.
	w, err := sql.Open("sqlite", dsn(s.path, url.Values{
		"_pragma": {busyTimeout, "foreign_keys(1)", "journal_mode(WAL)", "synchronous(FULL)"},
		"_txlock": {"immediate"},
	}))
	if err != nil {
		return err
	}
	s.w = w
	// One connection, kept for the life of the store: SQLite has one
	// writer at a time anyway, and this way it is never kept waiting by
	// another connection, nor prepares its own schema twice.
	w.SetMaxOpenConns(1)

	var mode string
	if err := w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("journal_mode is %q, not WAL (does the file system support it?)", mode)
	}
	var syncMode int
	if err := w.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&syncMode); err != nil {
		return err
	}
	if syncMode != 2 {
		return fmt.Errorf("synchronous is %d, not FULL (2)", syncMode)
	}
	if err := migrate(ctx, w); err != nil {
		return err
	}

	r, err := sql.Open("sqlite", dsn(s.path, url.Values{
		"_pragma": {busyTimeout, "query_only(1)"},
	}))
	if err != nil {
		return err
	}
	s.r = r
	r.SetMaxOpenConns(readConns)
	r.SetMaxIdleConns(readConns)
	if err := s.Ping(ctx); err != nil {
		return err
	}
	s.opened, err = os.Stat(s.path)
	return err
}

// dsn is the driver's name for the database at path with the given
// parameters: a file: URI, so that any path works.
func dsn(path string, params url.Values) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: params.Encode()}
	return u.String()
}

// explain says in words what SQLite's "file is not a database" means.
func explain(err error) error {
	var serr *sqlite.Error
	if errors.As(err, &serr) && serr.Code()&0xff == sqlite3.SQLITE_NOTADB {
		return fmt.Errorf("not a SQLite database: %w", err)
	}
	return err
}

// Close closes the database and releases the lock. Calls after the first
// return the first's result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		<-s.loopDone
		s.closeErr = s.closeAll()
	})
	return s.closeErr
}

// closeAll closes whatever open managed to open, the lock last.
func (s *Store) closeAll() error {
	var errs []error
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	errs = append(errs, s.lock.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("store: close %s: %w", s.path, err)
	}
	return nil
}

// Ping checks that the database can be read, for a readiness probe.
func (s *Store) Ping(ctx context.Context) error {
	var n int
	if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		return fmt.Errorf("store: ping %s: %w", s.path, err)
	}
	return nil
}

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// Check reports whether the store can still serve its workers: the
// database answers, and the file at its path is still the one Open
// opened (same device and inode) and still starts with SQLite's header.
// SQLite goes on reading and writing a database file that was deleted,
// replaced or truncated under it, without an error, so Ping alone cannot
// tell; what it writes then is lost at the next start.
func (s *Store) Check(ctx context.Context) error {
	if err := s.Ping(ctx); err != nil {
		return err
	}
	now, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("store: the database file is gone: %w", err)
	}
	if !os.SameFile(now, s.opened) {
		return fmt.Errorf("store: %s was replaced by another file since it was opened", s.path)
	}
	f, err := os.Open(s.path)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != sqliteHeader {
		return fmt.Errorf("store: %s was truncated or overwritten (%d bytes, no SQLite header)", s.path, now.Size())
	}
	return nil
}

// write runs fn in a write transaction and commits it if fn succeeds.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// clock returns the current time in UTC.
func (s *Store) clock() time.Time { return s.now().UTC() }
