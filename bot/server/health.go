package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// errStoreFailed is wrapped by the error Run returns when the store has
// not served for StoreGrace.
var errStoreFailed = errors.New("the store cannot serve the workers")

// health is what the server knows of the parts its workers need: the
// store, which must serve them, and the model endpoint, which jobs wait
// for when it is down.
type health struct {
	mu         sync.Mutex
	storeErr   error     // nil when the store serves
	storeSince time.Time // when storeErr began
	modelErr   error     // nil when the endpoint answers (or is not checked yet)
	modelSince time.Time // when modelErr began
	modelBack  chan struct{}
}

func newHealth() *health { return &health{modelBack: make(chan struct{})} }

// setStore records the store's state and reports whether it changed.
func (h *health) setStore(err error, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed := (err == nil) != (h.storeErr == nil)
	if err != nil && h.storeErr == nil {
		h.storeSince = now
	}
	h.storeErr = err
	return changed
}

// store returns since when the store fails, and how; a nil error when it
// serves.
func (h *health) store() (time.Time, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.storeSince, h.storeErr
}

// setModel records the model endpoint's state and reports whether it
// changed. When the endpoint comes back, the channel model returned is
// closed.
func (h *health) setModel(err error, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed := (err == nil) != (h.modelErr == nil)
	switch {
	case err != nil && h.modelErr == nil:
		h.modelSince = now
	case err == nil && h.modelErr != nil:
		close(h.modelBack)
		h.modelBack = make(chan struct{})
	}
	h.modelErr = err
	return changed
}

// model returns since when the endpoint fails, a channel closed when it
// comes back, and how it fails; a nil error when it answers.
func (h *health) model() (time.Time, <-chan struct{}, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.modelSince, h.modelBack, h.modelErr
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
	ctx, cancel := context.WithTimeout(ctx, s.cfg.CheckEvery)
	defer cancel()
	err := s.cfg.Store.Check(ctx)
	if ctx.Err() != nil && err != nil {
		return // shutting down
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
		check, cancel := context.WithTimeout(ctx, max(s.cfg.CheckEvery, 10*time.Second))
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
