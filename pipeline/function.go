package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/feedback"
	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/response"
	"github.com/capsulehq/capsule/pipeline/signature"
	"github.com/capsulehq/capsule/sandbox"
)

// FunctionTask is a function-level problem (HumanEval, MBPP).
type FunctionTask struct {
	ID string
	// Prompt is the problem text shown to the model.
	Prompt string
	// Signature is the function's signature; when empty it is derived from
	// the first call of EntryPoint in Tests.
	Signature  string
	EntryPoint string
	// Tests are the tests the loop debugs against: plain asserts, or a
	// HumanEval check(candidate) that is called with EntryPoint.
	Tests string
	// CPULimit, when positive, replaces Settings.TestCPU for this task:
	// a benchmark sizes it from the reference solution's CPU time.
	CPULimit time.Duration
}

// cpuLimit returns the CPU-time limit of the task's test runs.
func (t FunctionTask) cpuLimit(s Settings) time.Duration {
	if t.CPULimit > 0 {
		return t.CPULimit
	}
	return s.TestCPU
}

// SolveFunction runs the loop on one function-level task. The returned log
// holds every attempt; the error is non-nil only when the model or the
// sandbox failed (or ctx ended), in which case the log holds the attempts
// made so far.
func SolveFunction(ctx context.Context, model Model, box Sandbox, task FunctionTask, s Settings) (*attemptlog.Log, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	log := &attemptlog.Log{TaskID: task.ID, Model: s.Model, AttemptIndex: -1}
	defer func() { log.Duration = time.Since(start) }()

	sig := task.Signature
	if sig == "" && task.EntryPoint != "" {
		if derived, err := signature.FromTest(task.Tests, task.EntryPoint); err == nil {
			sig = derived.String()
		}
	}
	prompt := programmer.FunctionTask{Problem: task.Prompt, Signature: sig}.Render()
	conv := programmer.NewConversation(programmer.KindFunction, prompt, s.History)

	err := Iterate(log, conv, s, func(msgs []chat.Message) (attemptlog.Attempt, error) {
		return attempt(ctx, model, box, task, s, msgs)
	}, func(a attemptlog.Attempt) string { return nonEmpty(a.FeedbackKind, "pass") })
	return log, err
}

// attempt makes one model call and runs the code it answered.
func attempt(ctx context.Context, model Model, box Sandbox, task FunctionTask, s Settings, msgs []chat.Message) (attemptlog.Attempt, error) {
	a, reply, ok, err := functionAnswer.Ask(ctx, model, msgs)
	if err != nil || !ok {
		return a, err
	}
	parsed, err := response.ParseFunction(reply.Content, task.EntryPoint)
	if err != nil || parsed.Code == "" {
		functionAnswer.NoCode(&a, reply.Truncated)
		return a, nil
	}
	outcome, err := RunTests(ctx, box, parsed.Code, task.Tests, task.EntryPoint, task.cpuLimit(s))
	if err != nil {
		return a, err
	}
	a.Code = harness.StripRemoved(parsed.Code, outcome.Harness.Removed)
	a.Removed = outcome.Harness.Removed
	a.Run = outcome.Log(s.Image)
	if a.Run.Passed {
		return a, nil
	}
	RunFeedback(&a, s.Feedback, outcome.FeedbackInput(task.EntryPoint))
	return a, nil
}

// Outcome is one run of the harness in the sandbox.
type Outcome struct {
	Command []string
	Program harness.Program
	Sandbox sandbox.Result
	Harness harness.Result
}

// Passed reports whether every test passed.
func (o Outcome) Passed() bool {
	return o.Harness.Passed && !o.Sandbox.TimedOut && !o.Sandbox.OOMKilled
}

// RunTests runs code against tests in the sandbox through the case-testing
// harness, with example calls removed, the tests' CPU time bounded by
// cpuLimit and the wall clock by the harness's backstop.
func RunTests(ctx context.Context, box Sandbox, code, tests, entryPoint string, cpuLimit time.Duration) (Outcome, error) {
	prog := harness.Program{Solution: code, Tests: tests, EntryPoint: entryPoint, CPULimit: cpuLimit}
	if err := prog.Validate(); err != nil {
		return Outcome{}, err
	}
	cmd := prog.Command()
	// The sandbox's own limit backs the harness's up, a little later, so
	// the harness can report the timeout itself.
	// The tests are forked from the sandbox's warm interpreter, which has
	// the script loaded; cmd is the same run, for the log and for a
	// sandbox that cannot keep one.
	warm := &sandbox.Warm{Script: harness.Script(), Args: prog.Args(), CPULimit: prog.CPU()}
	res, err := box.Run(ctx, sandbox.Run{Cmd: cmd, Env: prog.Env(), Files: prog.Files(), Timeout: prog.HardWallLimit() + 5*time.Second, Warm: warm})
	if err != nil {
		return Outcome{}, fmt.Errorf("run tests: %w", err)
	}
	hr := harness.ParseOutput(res.ExitCode, string(res.Stdout), string(res.Stderr))
	if res.TimedOut {
		hr.TimedOut, hr.Passed = true, false
	}
	return Outcome{Command: cmd, Program: prog, Sandbox: res, Harness: hr}, nil
}

// Log renders the outcome for the attempt log.
func (o Outcome) Log(image string) *attemptlog.Run {
	r := &attemptlog.Run{
		Command:   o.Command,
		Image:     image,
		ExitCode:  o.Sandbox.ExitCode,
		Passed:    o.Passed(),
		TimedOut:  o.Harness.TimedOut,
		OOMKilled: o.Sandbox.OOMKilled,
		Output:    JoinOutput(o.Harness.Stdout, o.Harness.Stderr),
		Truncated: o.Sandbox.Truncated(),
		Duration:  o.Sandbox.Duration,
	}
	if !r.Passed {
		r.Reason = o.Sandbox.Reason()
		switch {
		case o.Harness.CPULimited:
			r.Reason = fmt.Sprintf("used more than %s of CPU time", o.Program.CPU())
		case o.Harness.TimedOut:
			r.Reason = "timed out"
		}
		if r.Reason == "" {
			r.Reason = "tests failed"
		}
	}
	return r
}

// FeedbackInput is what the error handler needs of the outcome.
func (o Outcome) FeedbackInput(entryPoint string) feedback.Input {
	limit := o.Program.WallLimit()
	if o.Harness.CPULimited {
		limit = o.Program.CPU()
	}
	return feedback.Input{
		Stdout:     o.Harness.Stdout,
		Stderr:     OOMNote(o.Harness.Stderr, o.Sandbox),
		ExitCode:   o.Sandbox.ExitCode,
		TimedOut:   o.Harness.TimedOut,
		CPULimited: o.Harness.CPULimited,
		Timeout:    limit,
		EntryPoint: entryPoint,
		Style:      feedback.Function,
	}
}

// JoinOutput is a run's standard output followed by its standard error,
// as the attempt log shows them.
func JoinOutput(stdout, stderr string) string {
	switch {
	case stdout == "":
		return stderr
	case stderr == "":
		return stdout
	}
	return strings.TrimRight(stdout, "\n") + "\n" + stderr
}

func nonEmpty(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// IsInfrastructure reports whether err came from the model endpoint or the
// sandbox rather than from the task.
func IsInfrastructure(err error) bool {
	return errors.Is(err, sandbox.ErrEngineUnreachable) || errors.Is(err, sandbox.ErrAgent) ||
		programmer.Classify(err) != programmer.NotEndpoint
}
