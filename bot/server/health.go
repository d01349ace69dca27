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
// store, which must serve them, and the model endpoint and GitHub, which
// jobs wait for when they are down.
type health struct {
	mu      sync.Mutex
	checked failure // the store's checks, or putting back the previous run's jobs
	claims  failure // the workers' claims (writes: a full disk fails them)
	model   awaited // the endpoint's checks, or a job that could not reach it
	github  awaited // the App's checks (GET /app), or a job that could not reach GitHub
}

// awaited is a part that jobs wait for while it fails: its failure, and a
// channel closed when it comes back.
type awaited struct {
	failure
	back chan struct{}
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

func newHealth() *health {
	return &health{model: awaited{back: make(chan struct{})}, github: awaited{back: make(chan struct{})}}
}

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

// setAwaited records the state of part p (&h.model or &h.github) and
// reports whether it changed. When the part comes back, the channel
// awaitedState returned is closed.
func (h *health) setAwaited(p *awaited, err error, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	changed := p.set(err, now)
	if changed && err == nil {
		close(p.back)
		p.back = make(chan struct{})
	}
	return changed
}

// awaitedState returns since when part p fails, a channel closed when it
// comes back, and how it fails; a nil error when it answers.
func (h *health) awaitedState(p *awaited) (time.Time, <-chan struct{}, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return p.since, p.back, p.err
}

// setModel records the model endpoint's state (see setAwaited).
func (h *health) setModel(err error, now time.Time) bool { return h.setAwaited(&h.model, err, now) }

// modelState is awaitedState of the model endpoint.
func (h *health) modelState() (time.Time, <-chan struct{}, error) { return h.awaitedState(&h.model) }

// setGitHub records GitHub's state (see setAwaited).
func (h *health) setGitHub(err error, now time.Time) bool { return h.setAwaited(&h.github, err, now) }

// githubState is awaitedState of GitHub.
func (h *health) githubState() (time.Time, <-chan struct{}, error) { return h.awaitedState(&h.github) }

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
	s.watch(ctx, s.cfg.Model, func() bool { return true }, s.modelState)
}

// modelState records the model endpoint's state, from a check or from a
// job that could not reach it.
func (s *Server) modelState(err error) {
	s.metrics.ModelReachable(err == nil)
	s.logChange(s.health.setModel(err, time.Now()), err, "the model endpoint", s.cfg.ModelWait)
}

// watchGitHub checks GitHub by signing in as the App (Config.GitHub)
// once at the start, then every CheckEvery while GitHub is known to fail
// (by a check, or by a job that could not reach it), until ctx ends. A
// GitHub that answers is not asked again: its checks would spend the
// App's rate limit for nothing.
func (s *Server) watchGitHub(ctx context.Context) {
	first := true
	s.watch(ctx, s.cfg.GitHub, func() bool {
		_, _, down := s.health.githubState()
		due := first || down != nil
		first = false
		return due
	}, s.githubState)
}

// githubState records GitHub's state, from a check or from a job that
// could not reach it.
func (s *Server) githubState(err error) {
	s.metrics.GitHubReachable(err == nil)
	s.logChange(s.health.setGitHub(err, time.Now()), err, "GitHub", s.cfg.GitHubWait)
}

// watch runs check, when set, every CheckEvery when due says so, until ctx
// ends, and records each result.
func (s *Server) watch(ctx context.Context, check func(context.Context) error, due func() bool, record func(error)) {
	if check == nil {
		return
	}
	t := time.NewTicker(s.cfg.CheckEvery)
	defer t.Stop()
	for {
		if due() {
			c, cancel := context.WithTimeout(ctx, max(s.cfg.CheckEvery, checkTimeout))
			err := check(c)
			cancel()
			if ctx.Err() != nil {
				return
			}
			record(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// logChange logs that part, which jobs wait for up to wait, changed
// between answering and not (err), and wakes a worker when it is back.
func (s *Server) logChange(changed bool, err error, part string, wait time.Duration) {
	switch {
	case !changed:
	case err != nil:
		s.log.Warn(part+" does not answer: jobs wait for it", "err", err, "wait", wait)
	default:
		s.log.Info(part + " answers again")
		s.signal()
	}
}
