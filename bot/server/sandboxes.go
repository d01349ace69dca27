package server

import (
	"context"
	"errors"
	"time"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/sandbox"
)

// Sandboxes is the engine that runs the jobs' sandboxes (*sandbox.Engine),
// whose containers the server removes once their job no longer runs under
// the lease of the replica that started them.
type Sandboxes interface {
	RemoveLeftovers(ctx context.Context, keep sandbox.Keep) (int, error)
}

// withJob labels the sandboxes the job starts in ctx with the job and this
// replica, for sweepSandboxes.
func (s *Server) withJob(ctx context.Context, j store.Job) context.Context {
	return sandbox.WithJob(ctx, sandbox.Job{Replica: s.cfg.WorkerID, ID: j.ID, Delivery: j.Delivery, Queued: j.CreatedAt})
}

// sweepSandboxes removes the leftover sandboxes once the previous run's
// jobs are back in the queue, then every Lease until ctx ends: those of a
// job that ended, or that another replica took up after the lease of the
// one that started it ran out (it died, here or on another host sharing
// the engine), and those of a process of this host that ended.
func (s *Server) sweepSandboxes(ctx context.Context) {
	if s.cfg.Sandboxes == nil {
		return
	}
	t := time.NewTicker(s.cfg.Lease)
	defer t.Stop()
	for {
		n, err := s.cfg.Sandboxes.RemoveLeftovers(ctx, s.keepSandbox)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			s.log.Warn("remove the sandboxes of jobs no longer running", "err", err)
		case n > 0:
			s.log.Info("removed the sandboxes of jobs no longer running", "containers", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// keepSandbox reports whether the sandbox of j is still wanted: whether
// the job runs under the lease of the replica that started it. A job the
// queue does not hold, or holds with another delivery or time of
// queueing, is another queue's whose sandboxes share the engine (as the
// tests' do, with their counted delivery ids): it is kept.
func (s *Server) keepSandbox(ctx context.Context, j sandbox.Job) (bool, error) {
	got, err := s.cfg.Store.Get(ctx, j.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return true, nil
	case err != nil:
		return false, err
	case got.Delivery != j.Delivery || !got.CreatedAt.Equal(j.Queued):
		return true, nil
	}
	return got.State == work.Running && got.Worker == j.Replica, nil
}
