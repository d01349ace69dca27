// Package server is the GitHub App: it takes webhook deliveries into the
// durable queue and runs the queued jobs with a pool of workers.
package server

import (
	"cmp"
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

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/metrics"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/webhook"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/budget"
)

// Defaults of Config.
const (
	DefaultWorkers = 2
	DefaultLease   = 2 * time.Minute
	DefaultGrace   = 30 * time.Second
	// DefaultModelWait is how long a job waits for a model endpoint that
	// does not answer before it fails.
	DefaultModelWait = 6 * time.Hour
	// DefaultGitHubWait is how long a job waits for GitHub when it cannot
	// reach it before it fails with GitHub's error.
	DefaultGitHubWait = 6 * time.Hour
	// DefaultStoreGrace is how long the store may fail to serve the
	// workers before the server exits.
	DefaultStoreGrace = time.Minute
	// DefaultCheckEvery is how often the store and the model endpoint are
	// checked.
	DefaultCheckEvery = 5 * time.Second
	// DefaultAnnouncers is how many status comments of queued jobs are
	// written at once.
	DefaultAnnouncers = 4
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
	Store   store.Queue
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
	Ready func(ctx context.Context) error
	// Sandboxes, when set, is the engine whose containers of jobs no
	// longer running under their replica's lease are removed, after the
	// start and every Lease (see sweepSandboxes).
	Sandboxes Sandboxes
	// Model, when set, reports whether the model endpoint answers; it is
	// called every CheckEvery. While it fails, /readyz says so (and stays
	// 200: deliveries are still taken), workers take no jobs, and jobs
	// wait for it up to ModelWait, spending none of their claims.
	Model func(ctx context.Context) error
	// ModelWait is how long a job waits for the model endpoint before it
	// fails with the endpoint's error; DefaultModelWait when 0.
	ModelWait time.Duration
	// GitHub, when set, checks that GitHub answers the App (a JWT
	// against GET /app): at the start, then every CheckEvery while GitHub
	// is known to fail. While it fails, /readyz says so (and stays 200:
	// deliveries need no GitHub), workers take no jobs, and jobs wait for
	// it up to GitHubWait, spending none of their claims. A job that
	// cannot reach GitHub mid-run goes back to the queue the same way,
	// keeping its loop's outcome for its next run in this process.
	GitHub func(ctx context.Context) error
	// GitHubWait is how long a job waits for GitHub before it fails with
	// GitHub's error; DefaultGitHubWait when 0.
	GitHubWait time.Duration
	// StoreGrace is how long the store may fail to serve the workers
	// (Store.Check or the claims failing, or the abandoned jobs not put
	// back) before Run
	// returns an error, for the process to exit and be restarted;
	// DefaultStoreGrace when 0.
	StoreGrace time.Duration
	// CheckEvery is how often the store and the model endpoint are
	// checked; DefaultCheckEvery when 0.
	CheckEvery time.Duration
	// Announcers is how many status comments of queued jobs are written
	// at once; DefaultAnnouncers when 0.
	Announcers int
	Logger     *slog.Logger
	// WorkerID names this process in leases; empty means host/pid.
	WorkerID string
	// DayBudget is each installation's budget for a day (UTC), kept in
	// the store (which must be a store.Spending); zero is none.
	DayBudget budget.Limits
}

// Server is a running App.
type Server struct {
	cfg     Config
	log     *slog.Logger
	metrics *metrics.Metrics
	webhook http.Handler
	wake    chan struct{}
	// storeWake is the store's wake-ups: jobs queued by other replicas.
	storeWake <-chan struct{}

	running   atomic.Int32 // jobs being run
	recovered atomic.Bool  // Run has put back the previous run's jobs
	health    *health
	outbox    *outbox
	// announcing holds a lock per job while its queued status is written,
	// so that a worker taking the job up waits for it.
	announcing sync.Map // job id -> *sync.Mutex
	// kept holds what jobs that stopped to wait for GitHub had made, for
	// their next run (see job.Hooks.Keep).
	kept sync.Map // job id -> *job.Kept
}

// New checks cfg and builds the server.
func New(cfg Config) (*Server, error) {
	if _, ok := cfg.Store.(store.Spending); !ok && cfg.DayBudget != (budget.Limits{}) {
		return nil, fmt.Errorf("server: a budget for the day needs a store that keeps the spend; %T does not", cfg.Store)
	}
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
	cfg.ModelWait = cmp.Or(max(cfg.ModelWait, 0), DefaultModelWait)
	cfg.GitHubWait = cmp.Or(max(cfg.GitHubWait, 0), DefaultGitHubWait)
	cfg.StoreGrace = cmp.Or(max(cfg.StoreGrace, 0), DefaultStoreGrace)
	cfg.CheckEvery = cmp.Or(max(cfg.CheckEvery, 0), DefaultCheckEvery)
	cfg.Announcers = cmp.Or(max(cfg.Announcers, 0), DefaultAnnouncers)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.WorkerID == "" {
		host, _ := os.Hostname()
		cfg.WorkerID = fmt.Sprintf("%s/%d/%d", host, os.Getpid(), time.Now().UnixNano())
	}
	s := &Server{cfg: cfg, log: cfg.Logger, wake: make(chan struct{}, 1), storeWake: storeWakeups(cfg.Store), health: newHealth(), outbox: newOutbox()}
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

// ready answers 200 when the store serves the workers and the engine
// answers, else 503 naming what fails. A model endpoint or a GitHub that
// does not answer is said in the body but keeps the answer 200:
// deliveries are still taken (a replica out of the load balancer would
// lose those GitHub does not redeliver), and their jobs wait.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	var problems []string
	if since, err := s.health.store(); err != nil {
		problems = append(problems, fmt.Sprintf("store: failing since %s: %v", since.UTC().Format(time.RFC3339), err))
	} else if err := s.cfg.Store.Ping(ctx); err != nil {
		problems = append(problems, "store: "+err.Error())
	}
	if s.cfg.Ready != nil {
		if err := s.cfg.Ready(ctx); err != nil {
			problems = append(problems, "engine: "+err.Error())
		}
	}
	var waits []string
	if since, _, err := s.health.modelState(); err != nil {
		waits = append(waits, unreachable("model", since, s.cfg.ModelWait, err))
	}
	if since, _, err := s.health.githubState(); err != nil {
		waits = append(waits, unreachable("github", since, s.cfg.GitHubWait, err))
	}
	if len(problems) > 0 {
		http.Error(w, strings.Join(append(problems, waits...), "\n"), http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ready")
	for _, line := range waits {
		fmt.Fprintln(w, line)
	}
}

// unreachable is /readyz's line for a part jobs wait for.
func unreachable(part string, since time.Time, wait time.Duration, err error) string {
	return fmt.Sprintf("%s: unreachable since %s (jobs wait for it, up to %s): %v",
		part, since.UTC().Format(time.RFC3339), wait, err)
}

// Accept stores a request as a job; it is the webhook's sink. It refuses
// the request while the store cannot serve the workers, so that the
// delivery is answered 503 and can be redelivered rather than stored
// where no worker will find it. A round is taken only on the pull
// request the store says Capsule opened (see admitRound); other rounds
// are answered with an *webhook.Ignored error.
func (s *Server) Accept(ctx context.Context, r work.Request) error {
	if _, err := s.health.store(); err != nil {
		return fmt.Errorf("the store cannot serve: %w", err)
	}
	if r.Trigger.Round() {
		var err error
		if r, err = s.admitRound(ctx, r); err != nil {
			return err
		}
	}
	j, outcome, err := s.cfg.Store.Enqueue(ctx, r)
	if err != nil {
		return fmt.Errorf("store the job: %w", err)
	}
	log := s.log.With("delivery", r.Delivery, "repo", r.Owner+"/"+r.Repo, "issue", r.Issue, "job", j.ID)
	if r.Round != "" {
		log = log.With("pull_request", r.PullRequest, "round", r.Round)
	}
	switch outcome {
	case store.Created:
		log.Info("job queued", "trigger", r.Trigger)
		s.signal()
		_, _, githubErr := s.health.githubState()
		switch _, _, modelErr := s.health.modelState(); {
		case githubErr != nil:
			// Nothing can be said on GitHub while it does not answer.
		case modelErr != nil:
			s.outbox.add(func(ctx context.Context) { s.announce(ctx, j, job.ModelWaiting) })
		case int(s.running.Load()) >= s.cfg.Workers:
			s.outbox.add(func(ctx context.Context) { s.announce(ctx, j, "") }) // every worker is busy
		}
	case store.Duplicate:
		log.Info("delivery or round seen before; nothing queued")
	case store.Busy:
		log.Info("issue already has an active job", "state", j.State)
		s.noteBusy(j)
	case store.Waiting:
		log.Info("the delivery waits for the issue's active job, and is queued when it ends", "trigger", r.Trigger, "label", r.Label, "state", j.State)
	}
	return nil
}

// noteBusy says in a running job's status comment, now, that another
// trigger arrived for its issue; the store has marked the job Busy, so its
// later status comments say it too.
func (s *Server) noteBusy(j store.Job) {
	if j.State != work.Running {
		return
	}
	s.outbox.add(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		gh, err := s.repository(j)
		if err == nil {
			err = job.NoteBusy(ctx, gh, j.Request)
		}
		if err != nil {
			s.log.Warn("note the second trigger in the status comment", "job", j.ID, "err", err)
		}
	})
}

// announce writes a waiting job's status comment, saying what it waits
// for besides its turn, unless a worker took the job up meanwhile.
func (s *Server) announce(ctx context.Context, j store.Job, waiting string) {
	lock := s.jobLock(j.ID)
	lock.Lock()
	defer lock.Unlock()
	defer s.announcing.Delete(j.ID) // before the unlock: a run waiting holds the lock already
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if now, err := s.cfg.Store.Get(ctx, j.ID); err != nil || now.State != work.Queued {
		return
	}
	gh, err := s.repository(j)
	if err == nil {
		err = s.cfg.Runner.Announce(ctx, gh, j.Request, waiting)
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

// repository is the job's repository through its installation's client.
func (s *Server) repository(j store.Job) (*job.Repository, error) {
	gh, err := s.cfg.Clients.Installation(j.Installation)
	if err != nil {
		return nil, err
	}
	return job.NewRepository(gh, j.Owner, j.Repo), nil
}
