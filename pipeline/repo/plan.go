// Package repo is repository mode: it resolves a task's plan from the
// repository's configuration, the operator's maxima and overrides, and runs
// the loop (package pipeline) on it in a sandbox session: the repository
// context, the set-up, the baseline and the test designer's reproducing
// test (the proof), then the programmer's answers, placed, checked and
// tested against the gate. The command line (capsule solve), the Action
// and the App all solve through it; it knows nothing about GitHub.
package repo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/budget"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/pipeline/setupcache"
	"github.com/capsulehq/capsule/pipeline/setupsecret"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
)

// Task is an issue to solve in a fetched tree: the input of a Plan.
type Task struct {
	ID          string // names the task in the log, e.g. "issue-12"
	Dir         string // the tree on the host; the loop never writes it
	Config      repoconfig.Config
	Title, Body string
	// Progress hears of each attempt as it ends; nil hears nothing.
	Progress func(pipeline.Event)
	// Logger hears what the plan changed of the configuration; nil means
	// slog.Default().
	Logger *slog.Logger
	// Day, when set, is the installation's budget for the day.
	Day budget.Day
	// Repository names the repository (owner/name, or local:DIR) in the
	// set-up cache's key, so that one tenant's set-up never serves
	// another's; it also chooses the operator's set-up secrets for it.
	Repository string
	// Installation is the App's installation the repository belongs to
	// (0 for none), also in the key.
	Installation int64
	// TrustedInput reads a set-up input file as it is at the default
	// branch's base commit (ok false when it is not there): the set-up
	// has its secrets only when every input file of Dir equals it there.
	// Nil means Dir is that commit's tree; only a set-up of such a tree
	// is kept (package setupcache), since another may hold answers.
	TrustedInput func(ctx context.Context, path string) (data []byte, ok bool, err error)
}

// Overrides are the operator's settings that win over the repository's
// configuration, and are not capped; negative counts, zero sizes and empty
// strings leave the configuration's.
type Overrides struct {
	TestCommand   string
	Image         string
	MaxAttempts   int
	History       int
	Feedback      pipeline.FeedbackMode
	ContextBudget int
	Memory        int64   // bytes of memory of the tests
	CPUs          float64 // cores of the tests
	Disk          int64   // bytes the tests may write
	// Reproduce replaces the configuration's reproduce when set.
	Reproduce string
}

// NoOverrides leaves every setting to the repository's configuration.
func NoOverrides() Overrides { return Overrides{MaxAttempts: -1, History: -1} }

// Sandboxed solves in the Docker sandbox with a model: Solve plans and
// runs a task (the App, the Action), Run runs a plan its caller has made
// and shown (capsule solve).
type Sandboxed struct {
	Engine    *sandbox.Engine
	Model     pipeline.Model
	ModelName string
	// TestModel is the test designer's model, the operator's choice; nil
	// means Model.
	TestModel pipeline.Model
	Overrides Overrides
	Maxima    Maxima
	// Prices, when set, price the model calls (see package budget).
	Prices budget.Prices
	// SetupCache, when set, keeps set-ups for later jobs (package
	// setupcache); Secrets holds the operator's set-up secrets.
	SetupCache *setupcache.Cache
	Secrets    *setupsecret.Source
}

// equip gives the plan what x holds for the set-up: the cache and the
// secrets the repository's configuration names.
func (x *Sandboxed) equip(plan *Plan) {
	plan.SetupCache = x.SetupCache
	if len(plan.SetupSecretNames) > 0 {
		plan.SetupSecrets, plan.SecretsMissing = x.Secrets.For(plan.Repository, plan.SetupSecretNames)
	}
}

// Plan is a task with its settings resolved from the configuration, the
// operator's maxima and the overrides: what the loop will run.
type Plan struct {
	Task
	// TestCommand is run by sh in the workspace root; TestReason says how
	// it was chosen.
	TestCommand, TestReason string
	// ReportGlobs are the report files (JUnit XML, Jest JSON) the test
	// command writes (the configuration's reports:, else the files its
	// --outputFile names or its runner's usual places), and ReportsReason
	// says why; read when a run has no pytest session.
	ReportGlobs   []string
	ReportsReason string
	// Setup, when set, runs once before the tests, with the network when
	// SetupNetwork is set; the tests never have it.
	Setup        string
	SetupNetwork bool
	// SetupInputs are the configuration's setup_inputs: globs of the files
	// the set-up reads besides the lockfiles and manifests.
	SetupInputs []string
	// SetupSecretNames are the configuration's setup_secrets;
	// SetupSecrets their values the operator gave (Sandboxed.Secrets),
	// which only the set-up sees, and SecretsMissing the names without
	// one.
	SetupSecretNames []string
	SetupSecrets     setupsecret.Set
	SecretsMissing   []string
	// SetupCache, when set, keeps the set-up's result and restores it
	// for the next job of the same key instead of running the set-up.
	SetupCache *setupcache.Cache
	// MaxTestTimeout, the operator's maximum, bounds the baseline and
	// every run; zero means Limits.Timeout, the repository's timeout,
	// which bounds the set-up and is the least time of one run of the
	// tests after the baseline (see attemptTimeout).
	MaxTestTimeout time.Duration
	// Protected reports the pattern that protects an existing file from
	// edits; nil protects nothing.
	Protected func(path string) (pattern string, ok bool)
	// AllowTestInfrastructure lets answers change the test infrastructure
	// (conftest.py, pytest's settings and the like; see package edits).
	AllowTestInfrastructure bool
	// MaxFiles is the most files one answer may change; zero means
	// DefaultMaxFiles.
	MaxFiles int
	// MaxRequests is the most requests to see more of the repository
	// answered in the job (see ask.go); zero allows none.
	MaxRequests int
	// ContextBudget is the token budget of the repository context; zero
	// means repocontext.DefaultBudget.
	ContextBudget int
	// Reproduce says whether the test designer first writes a test that
	// shows the issue; "" is ReproduceAuto. ReproduceTries bounds its
	// answers; zero means DefaultReproduceTries.
	Reproduce      Reproduce
	ReproduceTries int
	// TestModel is the test designer's model, chosen by the operator; nil
	// means the programmer's.
	TestModel pipeline.Model
	// Budget is what the job's model calls may spend: the repository's
	// budgets cut to the operator's maxima, the prices and the
	// installation's budget for the day.
	Budget budget.Job
	// meter counts the job's model calls (see meter).
	meter *budget.Meter

	Settings pipeline.Settings
	// Image is the sandbox image; ImageReason says how it was chosen.
	Image, ImageReason string
	Limits             sandbox.Limits
	// Capped notes each value of the configuration cut to the operator's
	// maximum.
	Capped []string
	// Devcontainer says what the plan took from the repository's
	// devcontainer.json, if it has one; Env are the environment
	// variables it sets for the set-up and every test run.
	Devcontainer *attemptlog.Devcontainer
	Env          []string

	// withoutScan and withoutTripwire turn one defence of the proof off,
	// so that Capsule's own tests show each of the others holding alone
	// (export_test.go); nothing else sets them.
	withoutScan, withoutTripwire bool
}

// NewPlan resolves a task's settings: the repository's configuration,
// capped by the maxima (the zero Maxima means DefaultMaxima), then the
// overrides. Limits the sandbox would refuse are an error here.
func NewPlan(t Task, o Overrides, m Maxima) (Plan, error) {
	if m == (Maxima{}) {
		m = DefaultMaxima()
	}
	if err := m.Validate(); err != nil {
		return Plan{}, err
	}
	cfg, capped := m.Cap(t.Config)
	devc, env, err := devcontainer(&cfg, t.Dir, o.Image)
	if err != nil {
		return Plan{}, err
	}
	spend, more := budget.Limits{Tokens: cfg.MaxTokensPerJob, Cost: cfg.MaxCostPerJob}.Cap(m.Budget)
	capped = append(capped, more...)
	plan := Plan{
		Task:  t,
		Setup: cfg.Setup, SetupNetwork: cfg.Network, MaxTestTimeout: m.Timeout,
		SetupInputs: cfg.SetupInputs, SetupSecretNames: cfg.SetupSecrets,
		ContextBudget: o.ContextBudget,
		Protected:     protectDevcontainer(func(p string) (string, bool) { return repoconfig.Protected(p, cfg.Protected) }, devc),
		MaxFiles:      m.AnswerFiles,
		MaxRequests:   m.Requests,

		AllowTestInfrastructure: cfg.AllowTestInfrastructureChanges,
		ReproduceTries:          cfg.ReproduceTries,
		Capped:                  capped,
		Budget:                  budget.Job{Limits: spend, Day: t.Day},
		Devcontainer:            devc,
		Env:                     env,
	}
	if plan.Reproduce, err = ParseReproduce(cmp.Or(o.Reproduce, cfg.Reproduce)); err != nil {
		return Plan{}, err
	}
	plan.TestCommand, plan.TestReason = o.TestCommand, "from --test-cmd"
	if plan.TestCommand == "" {
		if plan.TestCommand, plan.TestReason, err = cfg.TestCommand(t.Dir); err != nil {
			return Plan{}, err
		}
	}
	if plan.Setup == "" && runsGoTest(plan.TestCommand) {
		plan.Setup = GoWarmUp
	}
	plan.ReportGlobs, plan.ReportsReason = cfg.ReportGlobs(plan.TestCommand)
	s := pipeline.DefaultSettings()
	s.MaxAttempts, s.History = pick(o.MaxAttempts, cfg.MaxAttempts), pick(o.History, cfg.History)
	if o.Feedback != "" {
		s.Feedback = o.Feedback
	}
	s.Progress = t.Progress
	limits := sandbox.DefaultLimits()
	limits.Timeout = cfg.Timeout
	limits.Network = cfg.Network && cfg.Setup != ""
	limits.Memory = cmp.Or(o.Memory, cfg.Memory)
	limits.CPUs = cmp.Or(o.CPUs, cfg.CPUs)
	limits.Disk = cmp.Or(o.Disk, cfg.Disk)
	if err := limits.Validate(); err != nil {
		return Plan{}, err
	}
	plan.Image, plan.ImageReason = chooseImage(o.Image, cfg, plan.TestCommand)
	if devc != nil && devc.Used && o.Image == "" && devc.Sandbox == plan.Image {
		plan.ImageReason = "Capsule's image for the one " + devc.File + " names"
	}
	s.Image = plan.Image
	plan.Settings, plan.Limits = s, limits
	return plan, nil
}

// Solve plans the task with x's overrides and maxima, logs what the
// maxima cut, and runs the plan. An error of the plan wraps ErrConfig.
func (x *Sandboxed) Solve(ctx context.Context, t Task) (*Outcome, error) {
	plan, err := NewPlan(t, x.Overrides, x.Maxima)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	log := cmp.Or(t.Logger, slog.Default())
	for _, note := range plan.Capped {
		log.Warn("repository setting capped", "note", note)
	}
	if plan.Devcontainer != nil {
		for _, line := range plan.Devcontainer.Lines() {
			log.Info("devcontainer", "file", plan.Devcontainer.File, "note", line)
		}
	}
	return x.Run(ctx, plan)
}

// Run runs a plan in a new sandbox session with x's models: it makes sure
// the image is there (pulling any image but Capsule's own), starts the
// session on the task's tree (without .git) and runs the loop.
func (x *Sandboxed) Run(ctx context.Context, plan Plan) (*Outcome, error) {
	box, err := x.session(ctx, plan)
	if err != nil {
		return nil, err
	}
	defer box.Close()
	plan.Settings.Model = x.ModelName
	plan.TestModel = x.TestModel
	plan.Budget.Prices = x.Prices
	x.equip(&plan)
	return Solve(ctx, x.Model, box, plan)
}

// session starts a sandbox session on the plan's tree (without .git),
// making sure its image is there first (pulling any image but Capsule's
// own, which must have been built).
func (x *Sandboxed) session(ctx context.Context, plan Plan) (*sandbox.Session, error) {
	if err := image.Ensure(ctx, x.Engine, plan.Image); err != nil {
		return nil, err
	}
	return x.Engine.NewSession(ctx, sandbox.Spec{Image: plan.Image, Workspace: plan.Dir, Exclude: []string{".git"}, Env: plan.Env, Limits: plan.Limits, Helpers: testreport.HelperFiles()})
}

// chooseImage picks the sandbox image: the override, else the
// repository's image:, else Capsule's image for the toolchain the test
// command runs (see repoconfig.ImageFor), else the default image; and
// says why.
func chooseImage(override string, cfg repoconfig.Config, command string) (ref, reason string) {
	switch {
	case override != "":
		return override, "from the operator's override"
	case cfg.Image != "":
		return cfg.Image, "from " + cmp.Or(cfg.Source, "the configuration")
	}
	key, program := repoconfig.ImageFor(command)
	if r, ok := image.Lookup(key); ok && key != "" {
		return r.Ref(), fmt.Sprintf("Capsule's %s image: the tests run %s (build it with `%s`)", r.Key, program, r.BuildCommand())
	}
	return image.Default(), "Capsule's default image"
}

// ErrConfig marks a task the repository's configuration makes impossible,
// such as no test command found.
var ErrConfig = errors.New("configuration")

func pick(v, fallback int) int {
	if v >= 0 {
		return v
	}
	return fallback
}

// GoWarmUp is the set-up of a repository whose tests run under go test
// and that names none: it copies the Go image's compiled standard library
// into the job's build cache and compiles every package's tests once, so
// that the cache the set-up leaves in the workspace serves every later
// run (Go ships no compiled standard library, and a cold cache compiles
// it again in each run). It never fails: a package that does not build
// may be the issue.
const GoWarmUp = "# Capsule: fill the Go build cache once, for every run\n" +
	"if [ -d " + image.GoStdCache + " ]; then mkdir -p \"$GOCACHE\" && cp -R " + image.GoStdCache + "/. \"$GOCACHE\"/; fi\n" +
	"go test -count=1 -run '^$' ./... >/dev/null 2>&1 || true"

// runsGoTest reports whether a test command is a go test invocation.
func runsGoTest(command string) bool {
	f := strings.Fields(command)
	return len(f) >= 2 && f[0] == "go" && f[1] == "test"
}
