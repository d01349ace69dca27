package repoconfig

import "time"

// Where the configuration lives, relative to the repository root. Both names
// are accepted; a repository may have only one of them.
const (
	Path    = ".github/capsule.yml"
	AltPath = ".github/capsule.yaml"
)

// MaxSize is the largest configuration file accepted, in bytes.
const MaxSize = 64 << 10

// What the bot does with an issue when no attempt passes the tests.
const (
	OnFailureDraft   = "draft"   // open a draft pull request
	OnFailureComment = "comment" // only comment on the issue
)

// Whether a job first has the test designer write a test that shows the
// issue.
const (
	ReproduceAuto     = "auto"     // when the issue names no failing test; go on without one
	ReproduceRequired = "required" // a job with no such test ends not solved
	ReproduceOff      = "off"      // never
)

// Config is a repository's Capsule configuration.
type Config struct {
	Label string // the label that triggers Capsule on an issue
	Test  string // the test command; "" means detect it
	// Reports are globs of the JUnit XML files the test command writes,
	// relative to the repository root, read after each run for per-test
	// results; nil means the usual places of its runner (UsualReports).
	Reports     []string
	Setup       string        // run before the tests; "" means none
	Network     bool          // whether Setup may use the network (tests never may)
	Image       string        // sandbox image; "" means Capsule's default image
	Timeout     time.Duration // limit on one test run
	MaxAttempts int           // fix attempts after the first generation
	History     int           // earlier attempts shown to the model
	Protected   []string      // globs of paths the model may not modify
	OnFailure   string        // OnFailureDraft or OnFailureComment
	Reproduce   string        // ReproduceAuto, ReproduceRequired or ReproduceOff
	// ReproduceTries bounds the test designer's answers for one job.
	ReproduceTries int
	Memory         int64   // bytes of memory for the tests; 0 means Capsule's default
	CPUs           float64 // cores for the tests; 0 means Capsule's default
	Disk           int64   // bytes the tests may write; 0 means Capsule's default
	// AllowTestInfrastructureChanges lets the model change the test
	// infrastructure (conftest.py, pytest's settings, sitecustomize.py,
	// .pth files), which is protected by default whatever Protected says.
	AllowTestInfrastructureChanges bool
	// IgnoreDevcontainer, set by devcontainer: false, keeps the
	// repository's devcontainer.json from setting the image and the
	// set-up when neither Image nor Setup does.
	IgnoreDevcontainer bool
	// CIRounds is the most rounds Capsule makes on one of its pull
	// requests to fix the checks that fail on it; 0 turns them off.
	CIRounds int
	// MaxTokensPerJob and MaxCostPerJob (US dollars) are the job's
	// budgets for the model, never more than the operator's maxima; 0
	// asks for none beyond them.
	MaxTokensPerJob int
	MaxCostPerJob   float64
	Source          string // the file the configuration came from; "" for defaults
}

// Default returns the configuration used when a repository has none.
func Default() Config {
	return Config{
		Label:       "capsule",
		Timeout:     5 * time.Minute,
		MaxAttempts: 5,
		History:     1,
		Protected:   []string{"tests/**", "test/**", "**/test_*.py", "**/*_test.py", ".github/**"},
		OnFailure:   OnFailureDraft,
		Reproduce:   ReproduceAuto,

		ReproduceTries: 3,
		CIRounds:       2,
	}
}
