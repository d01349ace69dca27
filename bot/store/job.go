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

// Job is one unit of work: an issue to take to a pull request, or a round
// on that pull request, as the delivery that created it asked (its
// Delivery is unique).
//
// The Request's PullRequest is the number of the pull request the job
// works on (a round) or opened (0 until then), and its HeadSHA the head
// commit a round's delivery saw while the job is active, and the commit
// the job left the branch at once it ended (empty when it pushed
// nothing).
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
	StatusComment int64     // id of the issue's status comment once known (0 = unknown)
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// NotBefore, when set, is when a queued job may be claimed again: a
	// job put back with Defer waits until then.
	NotBefore time.Time
}

// End is how a job ended, as Finish records it.
type End struct {
	State  work.State // Done, Failed or Skipped
	Reason string     // why it failed or was skipped, or a one-line result for done
	// StatusComment and PullRequest are the ids of the issue's status
	// comment and of the pull request the job opened or worked on; 0
	// leaves what the store holds.
	StatusComment int64
	PullRequest   int
	// HeadSHA is the commit the job left its pull request's branch at;
	// empty when it pushed nothing.
	HeadSHA string
}

// PullRequest is what the store knows of the pull request Capsule opened
// for an issue: what the latest of the issue's jobs that opened or
// worked on one recorded.
type PullRequest struct {
	Issue  int
	Number int
	// HeadSHA is the last commit the issue's jobs pushed to the pull
	// request's branch; empty when none recorded one.
	HeadSHA string
}

// Outcome says what Enqueue did with a job.
type Outcome int

// The outcomes of Enqueue.
const (
	// Created means a new job was queued.
	Created Outcome = iota
	// Duplicate means the delivery ID was seen before, or the delivery
	// asks for a round its pull request already has (active or ended),
	// and nothing changed but the delivery recorded. The returned job is
	// the one the delivery created, the round's, or, for a delivery that
	// was answered Busy, the job that was active then.
	Duplicate
	// Busy means the issue already has an active (queued or running) job,
	// which is the one returned. The delivery ID is recorded so that a
	// redelivery of it answers Duplicate.
	Busy
	// Waiting means the delivery asks for a round, or for work on its
	// issue by another label than the active job's, while its issue has
	// an active job, which is the one returned: the request waits for it
	// and is queued when it ends. The delivery ID is recorded as for Busy.
	Waiting
)

// String returns "created", "duplicate", "busy" or "waiting".
func (o Outcome) String() string {
	switch o {
	case Created:
		return "created"
	case Duplicate:
		return "duplicate"
	case Busy:
		return "busy"
	case Waiting:
		return "waiting"
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// Claimed makes j the job worker holds from now under a lease of the
// given length: Running, one claim more, no longer deferred. Both stores
// write it back as their claim's update.
func (j *Job) Claimed(worker string, now time.Time, lease time.Duration) {
	j.State = work.Running
	j.Worker = worker
	j.LeaseUntil = now.Add(lease)
	j.Claims++
	j.UpdatedAt = now
	j.NotBefore = time.Time{}
}
