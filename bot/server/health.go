package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// checkTimeout is the least time a check of the store or of the model
// endpoint is given to answer: a check's deadline is what the part may
// take to answer, not how often it is checked, which tests make small.
const checkTimeout = 10 * time.Second

// errStoreFailed is wrapped by the error Run returns when the store has
// not served for StoreGrace.
var errStoreFailed = errors.New("the store cannot serve the workers")

// health is what the server knows of the parts its workers need: the
// store, which must serve them, and the model endpoint, which jobs wait
// for when it is down.
type health struct {
	mu        sync.Mutex
	checked   failure // the store's checks, or putting back the previous run's jobs
	claims    failure // the workers' claims (writes: a full disk fails them)
	model     failure // the endpoint's checks, or a job that could not reach it
	modelBack chan struct{}
}

// failure is a part's last failure and since when it lasts; a nil err
// when the part works.
type failure struct {
	err   error
	since time.Time
}

// set records err and reports whether the part changed between working
// and failing.
func (f *failure) set(err error, now time.Time) bool {
	changed := (err == nil) != (f.err == nil)
	if err != nil && f.err == nil {
		f.since = now
	}
	f.err = err
	return changed
}

func newHealth() *health { return &health{modelBack: make(chan struct{})} }

// setStore records the result of a check of the store and reports
// whether it changed.
func (h *health) setStore(err error, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.checked.set(err, now)
}

// setClaims records the result of a worker's claim and reports whether it
// changed.
func (h *health) setClaims(err error, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.claims.set(err, now)
}

// store returns since when the store fails to serve the workers, and how
// (its checks first, then the claims); a nil error when it serves.
func (h *health) store() (time.Time, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.checked.err != nil {
		return h.checked.since, h.checked.err
	}
	return h.claims.since, h.claims.err
}

// storeChecked returns the failure of the store's checks alone: while it
// lasts, workers do not try to claim.
func (h *health) storeChecked() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.checked.err
}

// setModel records the model endpoint's state and reports whether it
// changed. When the endpoint comes back, the channel model returned is
// closed.
func (h *health) setModel(err error, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed := h.model.set(err, now)
	if changed && err == nil {
		close(h.modelBack)
		h.modelBack = make(chan struct{})
	}
	return changed
}

// model returns since when the endpoint fails, a channel closed when it
// comes back, and how it fails; a nil error when it answers.
func (h *health) modelState() (time.Time, <-chan struct{}, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.model.since, h.modelBack, h.model.err
}

// watchStore checks the store every CheckEvery until ctx ends. A store
// that has failed for StoreGrace ends the server: fail is called with the
// reason, so that Run returns it and a supervisor restarts the process.
func (s *Server) watchStore(ctx context.Context, fail func(error)) {
	t := time.NewTicker(s.cfg.CheckEvery)
	defer t.Stop()
	for {
		if s.recovered.Load() {
			s.checkStore(ctx)
		}
		if since, err := s.health.store(); err != nil && time.Since(since) >= s.cfg.StoreGrace {
			fail(fmt.Errorf("%w for %s: %w", errStoreFailed, s.cfg.StoreGrace, err))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Server) checkStore(ctx context.Context) {
	check, cancel := context.WithTimeout(ctx, max(s.cfg.CheckEvery, checkTimeout))
	defer cancel()
	err := s.cfg.Store.Check(check)
	if ctx.Err() != nil && err != nil {
		return // shutting down; a check that timed out is a failure
	}
	if s.health.setStore(err, time.Now()) {
		if err != nil {
			s.log.Error("the store cannot serve the workers: not ready; the server exits if it lasts", "err", err, "grace", s.cfg.StoreGrace)
		} else {
			s.log.Info("the store serves again")
		}
	}
}

// watchModel checks the model endpoint every CheckEvery until ctx ends,
// apart from the store: an endpoint that lets requests hang must not
// delay the store's checks.
func (s *Server) watchModel(ctx context.Context) {
	if s.cfg.Model == nil {
		return
	}
	t := time.NewTicker(s.cfg.CheckEvery)
	defer t.Stop()
	for {
		check, cancel := context.WithTimeout(ctx, max(s.cfg.CheckEvery, checkTimeout))
		err := s.cfg.Model(check)
		cancel()
		if ctx.Err() != nil {
			return
		}
		s.modelState(err)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// modelState records the model endpoint's state, from a check or from a
// job that could not reach it.
func (s *Server) modelState(err error) {
	s.metrics.ModelReachable(err == nil)
	if !s.health.setModel(err, time.Now()) {
		return
	}
	if err != nil {
		s.log.Warn("the model endpoint does not answer: jobs wait for it", "err", err, "wait", s.cfg.ModelWait)
		return
	}
	s.log.Info("the model endpoint answers again")
	s.signal()
}
