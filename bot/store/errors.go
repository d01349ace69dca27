package store

import "errors"

// Errors the store returns, wrapped with detail; test for them with
// errors.Is.
var (
	// ErrNotFound means there is no such job or delivery.
	ErrNotFound = errors.New("not found")
	// ErrLeaseLost means the job is no longer running under the worker that
	// asked: its lease ran out and another worker claimed it, it finished,
	// or it was released or recovered.
	ErrLeaseLost = errors.New("lease lost")
	// ErrLocked means another process holds the store open.
	ErrLocked = errors.New("database is in use by another process")
	// ErrClosed means the store has been closed.
	ErrClosed = errors.New("store is closed")
	// ErrInvalid means an argument was rejected before the database was
	// touched: a job without a delivery ID, a non-terminal state given to
	// Finish, a lease that is not positive and the like.
	ErrInvalid = errors.New("invalid argument")
)
