package store

import (
	"strconv"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

// MaxClaims is how many times a job may be claimed. A job that has been
// claimed MaxClaims times and comes round again was abandoned by a server
// that stopped each time it ran it, so Claim fails it instead of risking
// another crash.
const MaxClaims = 3

// Job is one unit of work: an issue to take to a pull request, as the
// delivery that created it asked (its Delivery is unique).
type Job struct {
	ID int64
	work.Request
	State  work.State
	Reason string // why it failed or was skipped, or a one-line result for done
	// Busy is set when another delivery for the issue arrived while the
	// job was active (Enqueue answered it Busy): the job's status comment
	// says so.
	Busy bool
	// Claims counts the claims that count towards MaxClaims: how many times
	// a worker claimed the job, less the claims it gave back with Release.
	Claims        int
	Worker        string    // the worker that holds the lease, or last held it
	LeaseUntil    time.Time // when the lease runs out; zero unless Running
	StatusComment int64     // id of the status comment once known (0 = unknown)
	PullRequest   int       // number of the pull request once opened (0 = none)
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// NotBefore, when set, is when a queued job may be claimed again: a
	// job put back with Defer waits until then.
	NotBefore time.Time
}

// Outcome says what Enqueue did with a job.
type Outcome int

// The outcomes of Enqueue.
const (
	// Created means a new job was queued.
	Created Outcome = iota
	// Duplicate means the delivery ID was seen before and nothing changed.
	// The returned job is the one the delivery created or, for a delivery
	// that was answered Busy, the job that was active then.
	Duplicate
	// Busy means the issue already has an active (queued or running) job,
	// which is the one returned. The delivery ID is recorded so that a
	// redelivery of it answers Duplicate.
	Busy
)

// String returns "created", "duplicate" or "busy".
func (o Outcome) String() string {
	switch o {
	case Created:
		return "created"
	case Duplicate:
		return "duplicate"
	case Busy:
		return "busy"
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}
