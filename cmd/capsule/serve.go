package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/capsulehq/capsule/bot/ghapp"
	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/server"
	"github.com/capsulehq/capsule/bot/webhook"
	"github.com/capsulehq/capsule/internal/logx"
	"github.com/capsulehq/capsule/internal/version"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/sandbox/image"
)

// serveSettings are serve's flags, each defaulting to its environment
// variable.
type serveSettings struct {
	appID          int64
	privateKey     string
	privateKeyFile string
	secret         string
	listen         string
	dataDir        string
	database       string
	apiURL         string
	workers        int
	minPermission  string
	grace          time.Duration
	maxBody        int64
	maxInFlight    int64
	modelWait      time.Duration
	githubWait     time.Duration
	storeGrace     time.Duration
	image          string
	limits         operatorLimits
	setup          setupSettings
	testModel      *string // the test designer's model name
}

func (s *serveSettings) register(fs *flag.FlagSet) {
	id, _ := strconv.ParseInt(os.Getenv("GITHUB_APP_ID"), 10, 64)
	workers, _ := strconv.Atoi(os.Getenv("CAPSULE_WORKERS"))
	fs.Int64Var(&s.appID, "app-id", id, "the GitHub App's id ($GITHUB_APP_ID)")
	s.testModel = registerTestModel(fs)
	fs.StringVar(&s.privateKey, "private-key", os.Getenv("GITHUB_APP_PRIVATE_KEY"), "the App's private key, PEM ($GITHUB_APP_PRIVATE_KEY; prefer the environment or a file to a flag)")
	fs.StringVar(&s.privateKeyFile, "private-key-file", os.Getenv("GITHUB_APP_PRIVATE_KEY_FILE"), "file holding the App's private key ($GITHUB_APP_PRIVATE_KEY_FILE)")
	fs.StringVar(&s.secret, "webhook-secret", os.Getenv("GITHUB_WEBHOOK_SECRET"), "the webhook secret; required ($GITHUB_WEBHOOK_SECRET)")
	fs.StringVar(&s.listen, "listen", envOr("CAPSULE_LISTEN", ":8080"), "address to serve on ($CAPSULE_LISTEN)")
	fs.StringVar(&s.dataDir, "data-dir", envOr("CAPSULE_DATA_DIR", defaultDataDir()), "directory for the SQLite job queue, when there is no --database ($CAPSULE_DATA_DIR)")
	registerDatabase(fs, &s.database)
	fs.StringVar(&s.apiURL, "api-url", envOr("GITHUB_API_URL", ghapp.DefaultBaseURL), "GitHub's API; for GitHub Enterprise Server https://HOST/api/v3 ($GITHUB_API_URL)")
	fs.IntVar(&s.workers, "workers", max(workers, 0), "jobs run at once; 0 means "+strconv.Itoa(server.DefaultWorkers)+" ($CAPSULE_WORKERS)")
	fs.StringVar(&s.minPermission, "min-permission", envOr("CAPSULE_MIN_PERMISSION", "write"), "least permission a sender needs: read, triage, write, maintain or admin ($CAPSULE_MIN_PERMISSION)")
	fs.DurationVar(&s.grace, "grace", server.DefaultGrace, "on SIGTERM, how long running jobs may finish before they are put back in the queue")
	fs.Int64Var(&s.maxBody, "max-body", 25<<20, "largest webhook body accepted, in bytes")
	fs.Int64Var(&s.maxInFlight, "max-in-flight", webhook.DefaultMaxInFlightBytes, "webhook body bytes held at once across all deliveries; past it deliveries are answered 503 with Retry-After")
	fs.DurationVar(&s.modelWait, "model-wait", server.DefaultModelWait, "how long a job waits for a model endpoint that does not answer before it fails")
	fs.DurationVar(&s.githubWait, "github-wait", server.DefaultGitHubWait, "how long a job waits for a GitHub that does not answer (network, 5xx, a rate limit past its reset) before it fails")
	fs.DurationVar(&s.storeGrace, "store-grace", server.DefaultStoreGrace, "how long the job store may fail (database gone, disk full) before the server exits for its supervisor to restart it")
	fs.StringVar(&s.image, "image", "", "sandbox image for repositories that name none (default "+image.Default()+")")
}

// key returns the App's private key from the flag, the environment or
// the file.
func (s *serveSettings) key() ([]byte, error) {
	switch {
	case s.privateKey != "" && s.privateKeyFile != "":
		return nil, fmt.Errorf("%w: give the private key or its file, not both", errUsage)
	case s.privateKey != "":
		return []byte(s.privateKey), nil
	case s.privateKeyFile != "":
		data, err := os.ReadFile(s.privateKeyFile)
		if err != nil {
			return nil, fmt.Errorf("%w: read the private key: %w", errUsage, err)
		}
		return data, nil
	}
	return nil, fmt.Errorf("%w: the App's private key is missing: set GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE", errUsage)
}

func runServe(ctx context.Context, env *environment, args []string) int {
	fs := newFlagSet("serve", "Usage: capsule serve [flags]\n\nRuns the GitHub App: takes webhook deliveries at POST /webhook, queues\nthe labelled issues durably and takes each to a pull request. Also serves\n/healthz, /readyz and /metrics. SIGTERM stops taking jobs, lets running\nones finish within --grace and puts the rest back in the queue.")
	var mf modelFlags
	mf.register(fs)
	var ss serveSettings
	ss.register(fs)
	if err := ss.limits.register(fs); err != nil {
		return fail(env, err)
	}
	if err := ss.setup.register(fs, "by default DATA-DIR/setup-cache"); err != nil {
		return fail(env, err)
	}
	if code := parseFlags(fs, env, args); code >= 0 {
		return code
	}
	if ss.setup.cacheDir == "" {
		ss.setup.cacheDir = filepath.Join(ss.dataDir, "setup-cache")
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(env.stderr, "capsule serve: takes no arguments")
		return exitUsage
	}
	// Every line the server writes is JSON: its own, and its parts' (the
	// engine's through env.log, the model client's through its config).
	log := slog.New(logx.JSON(env.stderr, nil))
	env.log = log
	srv, cleanup, err := newServer(ctx, env, log, &mf, &ss)
	if err != nil {
		return failServe(env, log, err)
	}
	defer cleanup()

	ln, err := net.Listen("tcp", ss.listen)
	if err != nil {
		return failServe(env, log, fmt.Errorf("%w: listen on %s: %w", errUsage, ss.listen, err))
	}
	httpServer := srv.HTTPServer()
	served := make(chan error, 1)
	go func() { served <- httpServer.Serve(ln) }()
	log.Info("serving", "addr", ln.Addr().String(), "version", version.Version)

	workers := make(chan error, 1)
	go func() { workers <- srv.Run(ctx) }()
	var (
		runErr error
		ran    bool // the workers have stopped: the store failed for good
	)
	select {
	case err := <-served:
		return failServe(env, log, fmt.Errorf("serve: %w", err))
	case runErr = <-workers:
		ran = true
	case <-ctx.Done():
	}
	log.Info("shutting down: no new jobs; running jobs finish or go back to the queue")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := httpServer.Shutdown(shutdownCtx); err != nil {
		log.Warn("close connections", "err", err)
	}
	if !ran {
		runErr = <-workers
	}
	if runErr != nil {
		return failServe(env, log, runErr)
	}
	log.Info("stopped")
	return exitOK
}

// newServer checks the settings and assembles the App.
func newServer(ctx context.Context, env *environment, log *slog.Logger, mf *modelFlags, ss *serveSettings) (*server.Server, func(), error) {
	if ss.secret == "" {
		return nil, nil, fmt.Errorf("%w: GITHUB_WEBHOOK_SECRET is not set: refusing to take unsigned webhooks", errUsage)
	}
	if !job.ValidPermission(ss.minPermission) {
		return nil, nil, fmt.Errorf("%w: --min-permission %q: want read, triage, write, maintain or admin", errUsage, ss.minPermission)
	}
	key, err := ss.key()
	if err != nil {
		return nil, nil, err
	}
	apps, err := ghapp.New(ghapp.Config{AppID: ss.appID, PrivateKey: key, BaseURL: ss.apiURL, Retry: ghapp.DefaultRetryPolicy(), Logger: log})
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	if err := signIn(ctx, log, apps); err != nil {
		return nil, nil, err
	}
	if err := ss.limits.check(); err != nil {
		return nil, nil, err
	}
	prices, err := ss.limits.prices()
	if err != nil {
		return nil, nil, err
	}
	mf.cfg.MaxAnswerBytes = ss.limits.answerBytes
	mf.cfg.Logger = log
	// The endpoint is not called here: a model that is down is no reason
	// to drop deliveries. The server checks it and jobs wait for it.
	client, err := mf.build()
	if err != nil {
		return nil, nil, err
	}
	testModel, err := testDesigner(client, *ss.testModel)
	if err != nil {
		return nil, nil, err
	}
	probe, err := mf.probe()
	if err != nil {
		return nil, nil, err
	}
	st, err := openJobStore(ctx, ss.database, ss.dataDir)
	if err != nil {
		return nil, nil, err
	}
	ref := cmp.Or(ss.image, image.Default())
	eng, err := openEngine(ctx, env, ref)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	cleanup := func() { eng.Close(); st.Close() }
	overrides := repo.NoOverrides()
	overrides.Image = ss.image
	solver := &repo.Sandboxed{Engine: eng, Model: client, ModelName: client.Config().Model, TestModel: testModel,
		Overrides: overrides, Maxima: ss.limits.max, Prices: prices}
	if err := ss.setup.equip(solver, log); err != nil {
		cleanup()
		return nil, nil, err
	}
	srv, err := server.New(server.Config{
		Store: st, Clients: apps, Secret: []byte(ss.secret), MaxBodyBytes: ss.maxBody, MaxInFlightBytes: ss.maxInFlight,
		Workers: ss.workers, Grace: ss.grace, Logger: log,
		Ready: func(ctx context.Context) error { return eng.Ping(ctx) }, Sandboxes: eng,
		Model: probe, ModelWait: ss.modelWait, StoreGrace: ss.storeGrace, DayBudget: ss.limits.day,
		GitHub: func(ctx context.Context) error { _, err := apps.SignIn(ctx); return err }, GitHubWait: ss.githubWait,
		Runner: &job.Runner{
			Solver:        solver,
			MinPermission: ss.minPermission, MaxCIRounds: ss.limits.runnerCIRounds(), Version: version.Version, Logger: log,
		},
	})
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	return srv, cleanup, nil
}

// failServe logs why serve stops, as one JSON line like every other of
// the server's, and returns the exit code that fits it (see fail).
func failServe(env *environment, log *slog.Logger, err error) int {
	log.Error("capsule serve stops", "err", strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
	quiet := *env
	quiet.stderr = io.Discard
	return fail(&quiet, err)
}

// signInTimeout bounds serve's sign-in as the App at the start.
const signInTimeout = 30 * time.Second

// signIn signs in as the App once (a JWT against GET /app, which needs no
// installation), so that credentials GitHub refuses stop the start with a
// usage error saying so, while a GitHub that does not answer is only
// logged: deliveries need no GitHub, and the server's checks see it come
// back.
func signIn(ctx context.Context, log *slog.Logger, apps *ghapp.Apps) error {
	ctx, cancel := context.WithTimeout(ctx, signInTimeout)
	defer cancel()
	app, err := apps.SignIn(ctx)
	switch {
	case errors.Is(err, ghapp.ErrCredentials):
		return fmt.Errorf("%w: %w: check --app-id (GITHUB_APP_ID) and the private key (GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE)", errUsage, err)
	case err != nil:
		log.Warn("GitHub does not answer the App at the start: serving anyway; jobs wait for it", "err", err)
	default:
		log.Info("signed in as the GitHub App", "app", app.GetSlug(), "id", app.GetID())
	}
	return nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// defaultDataDir is the user's state directory.
func defaultDataDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "capsule")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		return filepath.Join(home, ".local", "state", "capsule")
	}
	return "capsule-data"
}
