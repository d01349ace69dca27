package server

import (
	"github.com/capsulehq/capsule/bot/store"
)

// waker is a store.Queue whose jobs may be queued by other processes: it says
// when, so that idle workers claim at once rather than at their next
// poll. The PostgreSQL store is one (LISTEN/NOTIFY).
type waker interface {
	Wakeups() <-chan struct{}
}

// storeWakeups is the store's wake-ups, or nil (never) when only this
// process queues its jobs.
func storeWakeups(st store.Queue) <-chan struct{} {
	if w, ok := st.(waker); ok {
		return w.Wakeups()
	}
	return nil
}
