// Package pipeline is the two-agent self-debugging loop of PyCapsule: a
// programmer agent (an LLM, package programmer) writes code, an executor
// runs it against tests in the sandbox, and on failure the error handler's
// feedback sends the programmer agent into fix mode, up to a number of fix
// attempts. The package knows nothing about GitHub or HTTP.
package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/budget"
	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/sandbox"
)

// Model is the programmer agent's connection to a language model;
// *programmer.Client implements it.
type Model interface {
	Complete(ctx context.Context, msgs []chat.Message) (programmer.Reply, error)
}

// Sandbox runs one command from the pristine workspace with files laid
// over it; *sandbox.Session implements it.
type Sandbox interface {
	Run(ctx context.Context, r sandbox.Run) (sandbox.Result, error)
}

// FeedbackMode selects what the programmer agent sees of a failed run.
type FeedbackMode string

// The feedback modes: refined by the error handler, or the whole raw
// output (for the paper's ablation).
const (
	FeedbackRefined FeedbackMode = "refined"
	FeedbackRaw     FeedbackMode = "raw"
)

// ParseFeedbackMode reads a --feedback value.
func ParseFeedbackMode(s string) (FeedbackMode, error) {
	switch m := FeedbackMode(s); m {
	case FeedbackRefined, FeedbackRaw:
		return m, nil
	}
	return "", fmt.Errorf("unknown feedback mode %q (want refined or raw)", s)
}

// Defaults of the loop, as in the paper.
const (
	DefaultMaxAttempts = 5 // fix attempts after the first generation
	DefaultTestCPU     = harness.DefaultCPULimit
)

// Settings tune the loop.
type Settings struct {
	// MaxAttempts is the number of fix attempts after the first
	// generation: at most MaxAttempts+1 model calls.
	MaxAttempts int
	// History is how many earlier (code, feedback) pairs a fix call keeps.
	History  int
	Feedback FeedbackMode
	// TestCPU bounds the CPU time of one run of the tests (a task may
	// raise it: FunctionTask.CPULimit); the wall clock only backs it up.
	TestCPU time.Duration
	// Model and Image name the model and the sandbox image in the log.
	Model, Image string
	// Progress, when set, is told about each attempt as it ends.
	Progress func(Event)
	// RunNumber gives every test run of repo mode its number in the job
	// (repo.RunNumberEnv); off, the code under test is not told.
	RunNumber bool
}

// DefaultSettings returns the paper's settings.
func DefaultSettings() Settings {
	return Settings{
		MaxAttempts: DefaultMaxAttempts,
		History:     programmer.DefaultHistory,
		Feedback:    FeedbackRefined,
		TestCPU:     DefaultTestCPU,
	}
}

// Validate reports settings that make no sense.
func (s Settings) Validate() error {
	switch {
	case s.MaxAttempts < 0:
		return fmt.Errorf("max attempts must not be negative, got %d", s.MaxAttempts)
	case s.History < 0:
		return fmt.Errorf("history must not be negative, got %d", s.History)
	case s.TestCPU <= 0:
		return fmt.Errorf("test CPU-time limit must be positive, got %s", s.TestCPU)
	}
	_, err := ParseFeedbackMode(string(s.Feedback))
	return err
}

// Event reports one finished attempt.
type Event struct {
	TaskID  string
	Attempt int // index: 0 for the generation, k for the k-th fix
	Of      int // the last possible index
	Passed  bool
	Summary string // e.g. "assertion" or "no code"
	// Record is the attempt as logged: feedback, output, tokens.
	Record attemptlog.Attempt
}

// AttemptFunc makes one attempt with the messages of its call.
type AttemptFunc func(msgs []chat.Message) (attemptlog.Attempt, error)

// Iterate drives the loop shared by both task kinds: the generation call,
// then fix calls carrying the last attempt's feedback and code, until an
// attempt passes or the fix attempts run out. Each attempt is recorded in
// log and reported to s.Progress, described by summary.
func Iterate(log *attemptlog.Log, conv *programmer.Conversation, s Settings, try AttemptFunc, summary func(attemptlog.Attempt) string) error {
	msgs := conv.GenerationMessages()
	for k := 0; k <= s.MaxAttempts; k++ {
		mode := attemptlog.Generate
		if k > 0 {
			mode = attemptlog.Fix
			prev := &log.Attempts[k-1]
			msgs = conv.FixMessages(prev.Feedback, previousCode(prev))
		}
		a, err := try(msgs)
		if stop, ok := budget.Stop(err); ok {
			// A budget refused a call: the job ends here with what it has.
			log.Stopped = stop
			return nil
		}
		if err != nil {
			return err
		}
		a.Index, a.Mode = k, mode
		log.Attempts = append(log.Attempts, a)
		passed := a.Run != nil && a.Run.Passed
		if s.Progress != nil {
			s.Progress(Event{TaskID: log.TaskID, Attempt: k, Of: s.MaxAttempts, Passed: passed, Summary: summary(a), Record: a})
		}
		if passed {
			log.Solved, log.AttemptIndex = true, k
			return nil
		}
	}
	log.Stopped = fmt.Sprintf("No attempt passed within %d fix attempts.", s.MaxAttempts)
	return nil
}

// previousCode is what a fix call shows as the last attempt's answer: the
// code that ran, or the raw answer when it held no code.
func previousCode(a *attemptlog.Attempt) string {
	if a.Code != "" {
		return a.Code
	}
	return a.Answer
}
