// Package server is the GitHub App: it takes webhook deliveries into the
// durable queue and runs the queued jobs with a pool of workers.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/metrics"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/webhook"
)

// Defaults of Config.
const (
	DefaultWorkers = 2
	DefaultLease   = 2 * time.Minute
	DefaultGrace   = 30 * time.Second
	// pollEvery is how often an idle worker looks for jobs it was not
	// woken for (abandoned leases).
	pollEvery = 5 * time.Second
)

// Clients gives GitHub clients per installation; *ghapp.Apps is one.
type Clients interface {
	Installation(id int64) (*github.Client, error)
	Forget(id int64)
}

// Config assembles a server.
type Config struct {
	Store   *store.Store
	Clients Clients
	Runner  *job.Runner
	// Secret is the webhook secret; required.
	Secret       []byte
	MaxBodyBytes int64
	// MaxInFlightBytes bounds the webhook body bytes held at once (see
	// webhook.Options); 0 means webhook.DefaultMaxInFlightBytes.
	MaxInFlightBytes int64
	Workers          int           // jobs run at once; DefaultWorkers when 0
	Lease            time.Duration // DefaultLease when 0
	// Grace is how long a shutdown waits for running jobs before it
	// stops them and puts them back in the queue.
	Grace time.Duration
	// Ready reports whether the engine answers, for /readyz.
	Ready  func(ctx context.Context) error
	Logger *slog.Logger
	// WorkerID names this process in leases; empty means host/pid.
	WorkerID string
}

// Server is a running App.
type Server struct {
	cfg     Config
	log     *slog.Logger
	metrics *metrics.Metrics
	webhook http.Handler
	wake    chan struct{}

	mu   sync.Mutex
	busy map[string]bool // issues that got a trigger while their job was active

	running atomic.Int32 // jobs being run
	// announcing holds a lock per job while its queued status is written,
	// so that a worker taking the job up waits for it.
	announcing sync.Map // job id -> *sync.Mutex
}

// New checks cfg and builds the server.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil || cfg.Clients == nil || cfg.Runner == nil {
		return nil, errors.New("server: a store, clients and a runner are required")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.WorkerID == "" {
		host, _ := os.Hostname()
		cfg.WorkerID = fmt.Sprintf("%s/%d/%d", host, os.Getpid(), time.Now().UnixNano())
	}
	s := &Server{cfg: cfg, log: cfg.Logger, wake: make(chan struct{}, 1), busy: map[string]bool{}}
	s.metrics = metrics.New(s.jobCounts, cfg.Logger)
	h, err := webhook.NewHandler(webhook.Options{
		Secret: cfg.Secret, MaxBodyBytes: cfg.MaxBodyBytes, MaxInFlightBytes: cfg.MaxInFlightBytes, Sink: s,
		OnInstallation: s.installation, Logger: cfg.Logger, Observe: s.metrics.Delivery,
	})
	if err != nil {
		return nil, err
	}
	s.webhook = h
	return s, nil
}

// Handler serves POST /webhook, /healthz, /readyz and /metrics.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/webhook", s.timed(s.webhook))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", s.ready)
	mux.Handle("GET /metrics", s.metrics.Handler())
	return mux
}

// HTTPServer returns an http.Server for Handler with the limits a server
// facing the Internet needs: slow or idle connections are closed, headers
// are bounded.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// jobCounts counts the stored jobs by state, for capsule_jobs.
func (s *Server) jobCounts(ctx context.Context) (map[string]int, error) {
	counts, err := s.cfg.Store.Counts(ctx)
	out := make(map[string]int, len(counts))
	for state, n := range counts {
		out[string(state)] = n
	}
	return out, err
}

// timed records how long each delivery took to answer.
func (s *Server) timed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h.ServeHTTP(w, r)
		s.metrics.Acknowledged(time.Since(start))
	})
}

// ready answers 200 when the store and the engine answer.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	var problems []string
	if err := s.cfg.Store.Ping(ctx); err != nil {
		problems = append(problems, "store: "+err.Error())
	}
	if s.cfg.Ready != nil {
		if err := s.cfg.Ready(ctx); err != nil {
			problems = append(problems, "engine: "+err.Error())
		}
	}
	if len(problems) > 0 {
		http.Error(w, strings.Join(problems, "\n"), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ready")
}

// Accept stores a request as a job; it is the webhook's sink.
func (s *Server) Accept(ctx context.Context, r webhook.Request) error {
	j, outcome, err := s.cfg.Store.Enqueue(ctx, store.Job{
		Delivery: r.Delivery, Event: r.Event, Trigger: string(r.Trigger), Installation: r.Installation,
		Owner: r.Owner, Repo: r.Repo, Issue: r.Issue, Sender: r.Sender, Label: r.Label,
	})
	if err != nil {
		return fmt.Errorf("store the job: %w", err)
	}
	log := s.log.With("delivery", r.Delivery, "repo", r.Owner+"/"+r.Repo, "issue", r.Issue, "job", j.ID)
	switch outcome {
	case store.Created:
		log.Info("job queued", "trigger", r.Trigger)
		s.signal()
		if int(s.running.Load()) >= s.cfg.Workers {
			go s.announce(j) // every worker is busy: say the job waits
		}
	case store.Duplicate:
		log.Info("delivery seen before; nothing queued")
	case store.Busy:
		log.Info("issue already has an active job", "state", j.State)
		s.markBusy(j)
	}
	return nil
}

// markBusy notes a trigger for an issue whose job is active: the running
// job's status comment will say so, and the comment says it now.
func (s *Server) markBusy(j store.Job) {
	s.mu.Lock()
	s.busy[issueKey(j)] = true
	s.mu.Unlock()
	if j.State != store.Running {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		gh, err := s.cfg.Clients.Installation(j.Installation)
		if err == nil {
			err = job.NoteBusy(ctx, gh, targetOf(j))
		}
		if err != nil {
			s.log.Warn("note the second trigger in the status comment", "job", j.ID, "err", err)
		}
	}()
}

func (s *Server) isBusy(j store.Job) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy[issueKey(j)]
}

func (s *Server) clearBusy(j store.Job) {
	s.mu.Lock()
	delete(s.busy, issueKey(j))
	s.mu.Unlock()
}

func issueKey(j store.Job) string {
	return strings.ToLower(fmt.Sprintf("%s/%s#%d", j.Owner, j.Repo, j.Issue))
}

// announce writes a waiting job's status comment, unless a worker took
// the job up meanwhile.
func (s *Server) announce(j store.Job) {
	lock := s.jobLock(j.ID)
	lock.Lock()
	defer lock.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if now, err := s.cfg.Store.Get(ctx, j.ID); err != nil || now.State != store.Queued {
		return
	}
	gh, err := s.cfg.Clients.Installation(j.Installation)
	if err == nil {
		err = s.cfg.Runner.Announce(ctx, gh, targetOf(j))
	}
	if err != nil {
		s.log.Warn("announce the queued job", "job", j.ID, "err", err)
	}
}

// jobLock returns the lock that orders announce and the job's run.
func (s *Server) jobLock(id int64) *sync.Mutex {
	l, _ := s.announcing.LoadOrStore(id, &sync.Mutex{})
	return l.(*sync.Mutex)
}

// installation drops the cached tokens of installations that went away.
func (s *Server) installation(e webhook.InstallationEvent) {
	s.log.Info("installation event", "delivery", e.Delivery, "event", e.Event, "action", e.Action,
		"installation", e.Installation, "account", e.Account, "added", e.ReposAdded, "removed", e.ReposRemoved)
	switch e.Action {
	case "deleted", "suspend":
		s.cfg.Clients.Forget(e.Installation)
	}
}

// signal wakes an idle worker.
func (s *Server) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func targetOf(j store.Job) job.Target {
	return job.Target{Owner: j.Owner, Repo: j.Repo, Issue: j.Issue, Sender: j.Sender, Trigger: job.Trigger(j.Trigger), Label: j.Label, Delivery: j.Delivery}
}
