package repo

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"time"

	"github.com/capsulehq/capsule/pipeline/budget"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/limits"
)

// Maxima are the operator's bounds on what a repository's configuration
// may ask for, and on the model's answers. A repository value above its
// maximum is cut to it, and the plan says so.
type Maxima struct {
	Attempts int           // max_attempts: fix attempts after the first generation
	Timeout  time.Duration // timeout: one test run
	History  int           // history: earlier attempts shown to the model
	Memory   int64         // memory: bytes of memory of the tests
	CPUs     float64       // cpus: cores of the tests
	Disk     int64         // disk: bytes the tests may write
	// AnswerFiles is the most files one answer may change. (The bytes of an
	// answer are bounded by the model client: programmer.Config.)
	AnswerFiles int
	// ReproduceTries is reproduce_tries: answers of the test designer in
	// one job.
	ReproduceTries int
	// Requests is the most requests of the programmer to see more of the
	// repository answered in one job; 0 allows none.
	Requests int
	// Budget is the most a job may spend on the model (zero: no limit);
	// a repository may ask for less (max_tokens_per_job,
	// max_cost_per_job).
	Budget budget.Limits
}

// DefaultMaxima are the bounds when the operator sets none: twice the
// default attempts, a generous time and enough memory and cores for real
// suites (4 cores, or all of a smaller host: Docker refuses more cores
// than the host has), without letting one repository take a host. The
// disk is a tmpfs, host memory too: its maximum adds to memory's.
func DefaultMaxima() Maxima {
	return Maxima{
		Attempts:    10,
		Timeout:     30 * time.Minute,
		History:     5,
		Memory:      4 << 30,
		CPUs:        min(4, float64(runtime.NumCPU())),
		Disk:        4 << 30,
		AnswerFiles: DefaultMaxFiles,

		ReproduceTries: 5,
		Requests:       DefaultMaxRequests,
	}
}

// Validate reports maxima that allow nothing or make no sense.
func (m Maxima) Validate() error {
	switch {
	case m.Attempts < 0:
		return fmt.Errorf("the maximum of attempts must not be negative, got %d", m.Attempts)
	case m.Timeout <= 0:
		return fmt.Errorf("the maximum timeout must be positive, got %s", m.Timeout)
	case m.History < 0:
		return fmt.Errorf("the maximum history must not be negative, got %d", m.History)
	case !limits.Memory.Allows(m.Memory):
		return fmt.Errorf("the maximum memory %s is below Docker's minimum of %s", limits.FormatBytes(m.Memory), limits.Memory)
	case !(m.CPUs > 0):
		return fmt.Errorf("the maximum of cpus must be positive, got %g", m.CPUs)
	case !limits.Disk.Allows(m.Disk):
		return fmt.Errorf("the maximum disk %s is below the sandbox's minimum of %s", limits.FormatBytes(m.Disk), limits.Disk)
	case m.AnswerFiles < 1:
		return errors.New("the maximum of files per answer must be at least 1")
	case m.ReproduceTries < 1:
		return fmt.Errorf("the maximum of the test designer's tries must be at least 1, got %d", m.ReproduceTries)
	case m.Requests < 0:
		return fmt.Errorf("the maximum of requests must not be negative, got %d (0 turns them off)", m.Requests)
	}
	return nil
}

// Cap returns cfg with every limit resolved (a value the repository left
// unset takes Capsule's default) and cut to the maxima, and a note for
// each value cut, such as "max_attempts 1000000 in .github/capsule.yml
// capped to 10 by the operator".
func (m Maxima) Cap(cfg repoconfig.Config) (repoconfig.Config, []string) {
	def := repoconfig.Default()
	cfg.Memory = cmp.Or(cfg.Memory, sandbox.DefaultMemory)
	cfg.CPUs = cmp.Or(cfg.CPUs, sandbox.DefaultCPUs)
	cfg.Disk = cmp.Or(cfg.Disk, sandbox.DefaultDisk)
	c := capper{source: cmp.Or(cfg.Source, "the configuration")}
	capTo(&c, "max_attempts", &cfg.MaxAttempts, def.MaxAttempts, m.Attempts, strconv.Itoa)
	capTo(&c, "timeout", &cfg.Timeout, def.Timeout, m.Timeout, time.Duration.String)
	capTo(&c, "history", &cfg.History, def.History, m.History, strconv.Itoa)
	capTo(&c, "memory", &cfg.Memory, sandbox.DefaultMemory, m.Memory, limits.FormatBytes)
	capTo(&c, "cpus", &cfg.CPUs, sandbox.DefaultCPUs, m.CPUs, func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) })
	capTo(&c, "disk", &cfg.Disk, sandbox.DefaultDisk, m.Disk, limits.FormatBytes)
	capTo(&c, "reproduce_tries", &cfg.ReproduceTries, def.ReproduceTries, m.ReproduceTries, strconv.Itoa)
	return cfg, c.notes
}

// capper collects the notes of Cap.
type capper struct {
	source string
	notes  []string
}

// capTo cuts *v to max and notes it; def is the value a repository that
// does not set key gets.
func capTo[T cmp.Ordered](c *capper, key string, v *T, def, max T, show func(T) string) {
	if *v <= max {
		return
	}
	where := "in " + c.source
	if *v == def {
		where = "(Capsule's default)"
	}
	c.notes = append(c.notes, fmt.Sprintf("%s %s %s capped to %s by the operator", key, show(*v), where, show(max)))
	*v = max
}
