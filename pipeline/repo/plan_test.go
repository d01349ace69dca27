package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
)

// planView is what a test checks of a Plan.
type planView struct {
	MaxAttempts, History int
	Feedback             pipeline.FeedbackMode
	Image, ImageReason   string
	TestCommand, Reason  string
	Reproduce            Reproduce
	Timeout, MaxTimeout  time.Duration
	Memory, Disk         int64
	CPUs                 float64
	Network              bool
	MaxFiles             int
	MaxRequests          int
	Capped               []string
}

func view(p Plan) planView {
	return planView{
		MaxAttempts: p.Settings.MaxAttempts, History: p.Settings.History, Feedback: p.Settings.Feedback,
		Image: p.Image, ImageReason: p.ImageReason, TestCommand: p.TestCommand, Reason: p.TestReason, Reproduce: p.Reproduce,
		Timeout: p.Limits.Timeout, MaxTimeout: p.MaxTestTimeout, Memory: p.Limits.Memory, Disk: p.Limits.Disk, CPUs: p.Limits.CPUs,
		Network: p.Limits.Network, MaxFiles: p.MaxFiles, MaxRequests: p.MaxRequests, Capped: p.Capped,
	}
}

func TestNewPlan(t *testing.T) {
	// pytestRepo is a tree detection finds pytest in.
	pytestRepo := t.TempDir()
	if err := os.WriteFile(filepath.Join(pytestRepo, "test_x.py"), []byte("def test_x():\n    pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	detected, reason, err := repoconfig.Default().TestCommand(pytestRepo)
	if err != nil {
		t.Fatal(err)
	}
	// cargoRepo is a tree detection finds cargo test in, which runs in
	// Capsule's Rust image.
	cargoRepo := t.TempDir()
	if err := os.WriteFile(filepath.Join(cargoRepo, "Cargo.toml"), []byte("[package]\nname = \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cargoDetected, cargoReason, err := repoconfig.Default().TestCommand(cargoRepo)
	if err != nil {
		t.Fatal(err)
	}
	// defaults is the plan of a repository without a configuration, under
	// testMaxima.
	defaults := planView{
		MaxAttempts: 5, History: 1, Feedback: pipeline.FeedbackRefined, Image: image.Default(), ImageReason: "Capsule's default image",
		TestCommand: "pytest", Reason: "from .github/capsule.yml", Reproduce: ReproduceAuto,
		Timeout: 5 * time.Minute, MaxTimeout: time.Hour, Memory: sandbox.DefaultMemory, Disk: sandbox.DefaultDisk, CPUs: sandbox.DefaultCPUs,
		MaxFiles: 20,
	}
	tests := []struct {
		name   string
		dir    string
		config func(*repoconfig.Config)
		o      func(*Overrides)
		max    *Maxima // nil: testMaxima
		want   func(*planView)
		err    string
	}{
		{name: "the configuration's values", want: func(*planView) {}},
		{
			name: "every value over its maximum is capped",
			config: func(c *repoconfig.Config) {
				c.MaxAttempts, c.Timeout, c.History, c.Memory, c.CPUs, c.Disk = 1_000_000, 10000*time.Hour, 50, 64<<30, 64, 64<<30
			},
			want: func(v *planView) {
				v.MaxAttempts, v.Timeout, v.History, v.Memory, v.CPUs, v.Disk = 10, time.Hour, 3, 2<<30, 2, 2<<30
				v.Capped = []string{
					"max_attempts 1000000 in .github/capsule.yml capped to 10 by the operator",
					"timeout 10000h0m0s in .github/capsule.yml capped to 1h0m0s by the operator",
					"history 50 in .github/capsule.yml capped to 3 by the operator",
					"memory 64 GiB in .github/capsule.yml capped to 2 GiB by the operator",
					"cpus 64 in .github/capsule.yml capped to 2 by the operator",
					"disk 64 GiB in .github/capsule.yml capped to 2 GiB by the operator",
				}
			},
		},
		{
			name: "the operator's overrides win and are not capped",
			config: func(c *repoconfig.Config) {
				c.MaxAttempts, c.Image, c.Reproduce = 1_000_000, "python:3.12", "off"
			},
			o: func(o *Overrides) {
				o.MaxAttempts, o.History, o.Memory, o.CPUs, o.Disk = 20, 0, 3<<30, 3, 3<<30
				o.TestCommand, o.Image, o.Feedback, o.Reproduce = "make test", "mine:1", pipeline.FeedbackRaw, "required"
			},
			want: func(v *planView) {
				v.MaxAttempts, v.History, v.Memory, v.CPUs, v.Disk = 20, 0, 3<<30, 3, 3<<30
				v.TestCommand, v.Reason, v.Image, v.Feedback, v.Reproduce = "make test", "from --test-cmd", "mine:1", pipeline.FeedbackRaw, ReproduceRequired
				v.ImageReason = "from the operator's override"
				v.Capped = []string{"max_attempts 1000000 in .github/capsule.yml capped to 10 by the operator"}
			},
		},
		{
			name:   "the configuration's image and reproduce",
			config: func(c *repoconfig.Config) { c.Image, c.Reproduce = "python:3.12", "off" },
			want: func(v *planView) {
				v.Image, v.ImageReason, v.Reproduce = "python:3.12", "from .github/capsule.yml", ReproduceOff
			},
		},
		{
			name:   "a configured npm test runs in the Node image",
			config: func(c *repoconfig.Config) { c.Test = "npm test" },
			want: func(v *planView) {
				v.TestCommand, v.Image = "npm test", image.Node.Ref()
				v.ImageReason = "Capsule's node image: the tests run npm (build it with `capsule sandbox image --name node`)"
			},
		},
		{
			name:   "a configured image wins over the test command's",
			config: func(c *repoconfig.Config) { c.Test, c.Image = "npm test", "node:18" },
			want: func(v *planView) {
				v.TestCommand, v.Image, v.ImageReason = "npm test", "node:18", "from .github/capsule.yml"
			},
		},
		{
			name:   "a detected cargo test runs in the Rust image",
			dir:    cargoRepo,
			config: func(c *repoconfig.Config) { c.Test = "" },
			want: func(v *planView) {
				v.TestCommand, v.Reason, v.Image = cargoDetected, cargoReason, image.Rust.Ref()
				v.ImageReason = "Capsule's rust image: the tests run cargo (build it with `capsule sandbox image --name rust`)"
			},
		},
		{
			name:   "network only for a set-up",
			config: func(c *repoconfig.Config) { c.Network, c.Setup = true, "pip install -e ." },
			want:   func(v *planView) { v.Network = true },
		},
		{
			name:   "network without a set-up",
			config: func(c *repoconfig.Config) { c.Network = true },
			want:   func(*planView) {},
		},
		{
			name:   "a detected test command",
			dir:    pytestRepo,
			config: func(c *repoconfig.Config) { c.Test = "" },
			want:   func(v *planView) { v.TestCommand, v.Reason = detected, reason },
		},
		{
			name: "the zero Maxima are the defaults",
			max:  &Maxima{},
			config: func(c *repoconfig.Config) {
				c.MaxAttempts = 1_000_000
			},
			want: func(v *planView) {
				v.MaxAttempts, v.MaxFiles, v.MaxTimeout, v.MaxRequests = DefaultMaxima().Attempts, DefaultMaxima().AnswerFiles, DefaultMaxima().Timeout, DefaultMaxRequests
				v.Capped = []string{"max_attempts 1000000 in .github/capsule.yml capped to 10 by the operator"}
			},
		},
		{name: "no test command", config: func(c *repoconfig.Config) { c.Test = "" }, err: "no test command detected"},
		{name: "a bad reproduce", o: func(o *Overrides) { o.Reproduce = "sometimes" }, err: "reproduce must be auto, required or off"},
		{name: "limits the sandbox refuses", o: func(o *Overrides) { o.Memory = 1 << 20 }, err: "below Docker's minimum"},
		{
			name: "the operator's requests",
			max:  &Maxima{Attempts: 10, Timeout: time.Hour, History: 3, Memory: 2 << 30, CPUs: 2, Disk: 2 << 30, AnswerFiles: 20, ReproduceTries: 5, Requests: 2},
			want: func(v *planView) { v.MaxRequests = 2 },
		},
		{name: "maxima that allow nothing", max: &Maxima{Attempts: -1}, err: "must not be negative"},
		{name: "negative requests", max: &Maxima{Attempts: 10, Timeout: time.Hour, History: 3, Memory: 2 << 30, CPUs: 2, Disk: 2 << 30, AnswerFiles: 20, ReproduceTries: 5, Requests: -1}, err: "requests must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := repoconfig.Default()
			cfg.Source, cfg.Test = repoconfig.Path, "pytest"
			if tt.config != nil {
				tt.config(&cfg)
			}
			o := NoOverrides()
			if tt.o != nil {
				tt.o(&o)
			}
			m := testMaxima
			if tt.max != nil {
				m = *tt.max
			}
			dir := tt.dir
			if dir == "" {
				dir = t.TempDir()
			}
			plan, err := NewPlan(Task{ID: "issue-1", Dir: dir, Config: cfg}, o, m)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := defaults
			tt.want(&want)
			if got := view(plan); !reflect.DeepEqual(got, want) {
				t.Errorf("plan =\n%+v\nwant\n%+v", got, want)
			}
			if plan.ID != "issue-1" || plan.Dir != dir || plan.Settings.Image != plan.Image {
				t.Errorf("task %q in %q, settings' image %q; want issue-1 in %q and %q", plan.ID, plan.Dir, plan.Settings.Image, dir, plan.Image)
			}
		})
	}
}

// TestSolveConfigError: a task the configuration makes impossible fails
// as a configuration error before any sandbox is asked for.
func TestSolveConfigError(t *testing.T) {
	cfg := repoconfig.Default()
	x := &Sandboxed{Overrides: NoOverrides()} // no engine: reaching it would panic
	_, err := x.Solve(context.Background(), Task{ID: "issue-1", Dir: t.TempDir(), Config: cfg})
	if !errors.Is(err, ErrConfig) {
		t.Fatalf("err = %v, want ErrConfig", err)
	}
}

// TestGoWarmUp: a go test suite without a set-up gets one that fills the
// build cache; a configured set-up and other runners are left as they are.
func TestGoWarmUp(t *testing.T) {
	for _, tc := range []struct {
		name, test, setup, want string
	}{
		{"go test", "go test ./...", "", GoWarmUp},
		{"go test with flags", "go test -race ./pkg/...", "", GoWarmUp},
		{"a set-up of its own", "go test ./...", "go mod download", "go mod download"},
		{"pytest", "python3 -m pytest -q", "", ""},
		{"a Makefile that runs go test", "make test", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := repoconfig.Default()
			cfg.Test, cfg.Setup = tc.test, tc.setup
			plan, err := NewPlan(Task{Dir: t.TempDir(), Config: cfg}, Overrides{}, Maxima{})
			if err != nil {
				t.Fatal(err)
			}
			if plan.Setup != tc.want {
				t.Errorf("set-up %q, want %q", plan.Setup, tc.want)
			}
		})
	}
}
