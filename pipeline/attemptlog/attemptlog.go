// Package attemptlog records every attempt of the self-debugging loop on
// one problem: what the programmer agent was sent and answered, the code
// that ran, how the run ended and the feedback it earned. A Log renders as
// JSON (for machines and resumable benchmarks) and as Markdown (for people:
// the pull request body carries it).
package attemptlog

import (
	"fmt"
	"time"

	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/gate"
	"github.com/capsulehq/capsule/pipeline/specialcase"
)

// Mode is the programmer agent's mode for one attempt.
type Mode string

// The two modes of the programmer agent.
const (
	Generate Mode = "generate"
	Fix      Mode = "fix"
)

// Log is the record of the loop on one problem.
type Log struct {
	TaskID string `json:"task_id"`
	Model  string `json:"model"`
	// Solved reports whether the last run passed the tests the loop
	// debugged against.
	Solved bool `json:"solved"`
	// AttemptIndex is 0 when the first generation passed and k when the
	// k-th fix passed; -1 when no attempt passed.
	AttemptIndex int       `json:"attempt_index"`
	Attempts     []Attempt `json:"attempts"`
	// Stopped says why the loop ended when it did not pass, e.g. the
	// attempts ran out.
	Stopped  string        `json:"stopped,omitempty"`
	Duration time.Duration `json:"duration_ns"`

	// Repository mode only.
	TestCommand string `json:"test_command,omitempty"`
	TestReason  string `json:"test_reason,omitempty"` // how the command was chosen
	// ModuleNames says where the module names that no new module of an
	// answer may shadow came from.
	ModuleNames string `json:"module_names,omitempty"`
	Setup       *Run   `json:"setup,omitempty"`
	// Devcontainer, when set, says what the job took from the
	// repository's devcontainer.json and what it did not.
	Devcontainer *Devcontainer `json:"devcontainer,omitempty"`
	Context      *Context      `json:"context,omitempty"`
	// Baseline is the run of the tests on the untouched tree, which the
	// gate compares every attempt with.
	Baseline *Baseline `json:"baseline,omitempty"`
	// Reproduction is the test designer's work: the test it wrote to show
	// the issue, or why there is none.
	Reproduction *Reproduction `json:"reproduction,omitempty"`
	// Outcome tells a proven fix from a passing but unproven one; empty
	// in function mode.
	Outcome Outcome `json:"outcome,omitempty"`
	// Spend is what the model calls cost and the budgets they ran under;
	// nil when the job was not metered (package budget).
	Spend *Spend `json:"spend,omitempty"`
	// Environment, when set, says why the tests cannot run at all in the
	// sandbox: the job stopped there, before any model call.
	Environment *Environment `json:"environment,omitempty"`
}

// Usage is a count of tokens the endpoint reported.
type Usage struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

// Spend is what a job's model calls spent, by role, and the budgets
// that bounded them.
type Spend struct {
	Programmer Usage `json:"programmer"`
	Designer   Usage `json:"designer"`
	// Cost is the calls' cost in US dollars, when Priced: every model
	// the job called had a price.
	Cost   float64 `json:"cost_usd,omitempty"`
	Priced bool    `json:"priced,omitempty"`
	// MaxTokens and MaxCost are the job's budgets; zero is none.
	MaxTokens int     `json:"max_tokens,omitempty"`
	MaxCost   float64 `json:"max_cost_usd,omitempty"`
	// StoppedBy names the budget that stopped the job, if one did.
	StoppedBy string `json:"stopped_by,omitempty"`
}

// Tokens is the prompt and completion tokens of both roles.
func (s *Spend) Tokens() Usage {
	return Usage{Prompt: s.Programmer.Prompt + s.Designer.Prompt, Completion: s.Programmer.Completion + s.Designer.Completion}
}

// Outcome is how a repository-mode job ended.
type Outcome string

// The three outcomes of a repository-mode job.
const (
	// Solved: a test reproduced the issue, it passes now, and no test that
	// passed before fails.
	Solved Outcome = "solved"
	// Unproven: the tests pass with no regressions, but no test showed
	// the issue, so nothing shows that it is fixed; or the change refers
	// to the test environment (Attempt.SpecialCasing).
	Unproven Outcome = "unproven"
	// NotSolved: no attempt passed.
	NotSolved Outcome = "not-solved"
)

// Reproduction records the test designer's work on a job.
type Reproduction struct {
	// Mode is the job's reproduce setting: auto, required or off.
	Mode string `json:"mode"`
	// Skipped says why no reproducing test was asked for.
	Skipped string `json:"skipped,omitempty"`
	// File is the reproducing test's path; Content the accepted file.
	File string `json:"file,omitempty"`
	// Placed says why the file goes where it does.
	Placed   string `json:"placed,omitempty"`
	Accepted bool   `json:"accepted"`
	Content  string `json:"content,omitempty"`
	// Tries are the designer's answers, each run on the untouched tree.
	Tries []DesignTry `json:"tries,omitempty"`
	// Stopped says why none was accepted.
	Stopped string `json:"stopped,omitempty"`
}

// DesignTry is one answer of the test designer.
type DesignTry struct {
	Answer string `json:"answer"`
	// Revision marks an answer asked for after the programmer's attempts
	// kept failing the accepted test alone.
	Revision bool `json:"revision,omitempty"`
	// Run is the test file's run on the untouched tree; nil when the
	// answer had no file to run.
	Run *Run `json:"run,omitempty"`
	// Problem says why the test was refused; empty when accepted.
	Problem          string        `json:"problem,omitempty"`
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	ModelDuration    time.Duration `json:"model_duration_ns"`
}

// Baseline records the tests on the untouched tree.
type Baseline struct {
	// Plan says how per-test results are collected.
	Plan string `json:"plan"`
	// Runs are the baseline's runs: a second one reruns the first when it
	// had failing tests.
	Runs []*Run `json:"runs"`
	// Fallback says why there are no per-test results to compare with:
	// only the exit status then counts.
	Fallback string `json:"fallback,omitempty"`
	// Tests counts the tests the baseline ran; Failing lists those that
	// already fail (targets among them), Flaky those whose outcome changed
	// between its runs.
	Tests   int      `json:"tests"`
	Failing []string `json:"failing,omitempty"`
	Flaky   []string `json:"flaky,omitempty"`
	// Targets are the tests that must pass, and TargetsFrom says where
	// they come from.
	Targets     []string `json:"targets,omitempty"`
	TargetsFrom string   `json:"targets_from,omitempty"`
	// Timeout says how long each later run of the tests may take, and
	// why.
	Timeout string `json:"timeout,omitempty"`

	// Outcomes counts the first run's tests by outcome ("passed",
	// "failed", "error", ...), with "collection error" for the files it
	// could not collect.
	Outcomes map[string]int `json:"outcomes,omitempty"`
}

// Context records what the repository context given to the model held.
type Context struct {
	Tokens   int      `json:"tokens"`
	Budget   int      `json:"budget"`
	Included []string `json:"included"` // "path (why)"
	Omitted  []string `json:"omitted"`  // "path: why"
}

// Change is one file an attempt changed.
type Change struct {
	Path    string `json:"path"`
	Status  string `json:"status"` // added, modified, deleted
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// Attempt is one model call and the run of its code.
type Attempt struct {
	Index    int            `json:"index"`
	Mode     Mode           `json:"mode"`
	Messages []chat.Message `json:"messages"`
	Answer   string         `json:"answer"`
	// Code is the code that ran, after example-call removal.
	Code string `json:"code"`
	// Removed lists the line ranges of the answer's code that were removed
	// as top-level example calls.
	Removed [][2]int `json:"removed,omitempty"`
	// Changes, Refused and Patch describe a repository-mode answer: the
	// files it changed, the edits refused (with the reason given to the
	// model) and the change as a unified diff.
	Changes []Change `json:"changes,omitempty"`
	Refused []string `json:"refused,omitempty"`
	Patch   string   `json:"patch,omitempty"`
	// Cleaned notes example calls removed from changed modules.
	Cleaned []string `json:"cleaned,omitempty"`
	// SpecialCasing are the lines the answer added that refer to the test
	// runner's internals or the test environment: a passing attempt with
	// any is at most unproven.
	SpecialCasing []specialcase.Finding `json:"special_casing,omitempty"`
	// Run is how the test run ended; nil when the answer had no code and
	// nothing ran.
	Run          *Run   `json:"run,omitempty"`
	Feedback     string `json:"feedback,omitempty"`
	FeedbackKind string `json:"feedback_kind,omitempty"`
	// Verdict is the gate's decision on the run, when the baseline gave
	// per-test results.
	Verdict *gate.Verdict `json:"verdict,omitempty"`

	// Requests are the answers of this attempt that asked to see more of
	// the repository instead of changing it, in order, each with what
	// the model got back; Answer is the answer that came after them.
	Requests []Request `json:"requests,omitempty"`

	// PromptTokens, CompletionTokens and ModelDuration add up the
	// attempt's model calls, its requests' included.
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	ModelDuration    time.Duration `json:"model_duration_ns"`
}

// Request is an answer of the programmer agent that asked to see more of
// the repository instead of changing it, and what it got back.
type Request struct {
	// Text is the model's answer holding the request.
	Text string `json:"text"`
	// Items are the items read, as the request syntax writes them, e.g.
	// "file calc/stats.py 40-90".
	Items []string `json:"items,omitempty"`
	// Number is the request's number among the job's answered requests;
	// 0 for a refused one.
	Number int `json:"number,omitempty"`
	// Refused says why the request was refused as a whole, which used up
	// nothing; empty when it was answered.
	Refused string `json:"refused,omitempty"`
	// Notes say what the request asked for that was not shown, and why.
	Notes []string `json:"notes,omitempty"`
	// Reply is the message the model got back: the repository's text
	// inside the boundary, or the note refusing the request.
	Reply string `json:"reply"`
	// Tokens estimates the repository's text in Reply, as the context
	// counts tokens.
	Tokens int `json:"tokens,omitempty"`
	// PromptTokens, CompletionTokens and ModelDuration are the request's
	// own model call; the attempt's totals include them.
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	ModelDuration    time.Duration `json:"model_duration_ns"`
}

// Run is one test run in the sandbox.
type Run struct {
	Command   []string      `json:"command"`
	Image     string        `json:"image"`
	ExitCode  int           `json:"exit_code"`
	Passed    bool          `json:"passed"`
	TimedOut  bool          `json:"timed_out,omitempty"`
	OOMKilled bool          `json:"oom_killed,omitempty"`
	Reason    string        `json:"reason,omitempty"`
	Output    string        `json:"output"` // stdout then stderr, capped
	Truncated bool          `json:"truncated,omitempty"`
	Duration  time.Duration `json:"duration_ns"`
	// Also is the run's second invocation, when the command left out
	// tests that had to run: its command and why. Output, ExitCode and
	// Duration then cover both.
	Also string `json:"also,omitempty"`
}

// ModelCalls is the number of calls made to the model: one per attempt
// and per request it made, and one per answer of the test designer.
func (l *Log) ModelCalls() int { return len(l.Attempts) + l.RequestCalls() + l.DesignCalls() }

// RequestCalls is the number of the programmer's answers that were
// requests, answered or refused.
func (l *Log) RequestCalls() int {
	n := 0
	for _, a := range l.Attempts {
		n += len(a.Requests)
	}
	return n
}

// DesignCalls is the number of calls made to the test designer.
func (l *Log) DesignCalls() int {
	if l.Reproduction == nil {
		return 0
	}
	return len(l.Reproduction.Tries)
}

// Tokens sums the usage the server reported over all attempts and the
// test designer's calls.
func (l *Log) Tokens() (prompt, completion int) {
	for _, a := range l.Attempts {
		prompt += a.PromptTokens
		completion += a.CompletionTokens
	}
	p, c := l.DesignTokens()
	return prompt + p, completion + c
}

// DesignTokens sums the usage of the test designer's calls.
func (l *Log) DesignTokens() (prompt, completion int) {
	if l.Reproduction == nil {
		return 0, 0
	}
	for _, t := range l.Reproduction.Tries {
		prompt += t.PromptTokens
		completion += t.CompletionTokens
	}
	return prompt, completion
}

// Proof is the verdict that decided the job: the passing attempt's, or
// the last one's; nil when no attempt had one.
func (l *Log) Proof() *gate.Verdict {
	if l.Solved && l.AttemptIndex >= 0 && l.AttemptIndex < len(l.Attempts) {
		return l.Attempts[l.AttemptIndex].Verdict
	}
	for i := len(l.Attempts) - 1; i >= 0; i-- {
		if v := l.Attempts[i].Verdict; v != nil {
			return v
		}
	}
	return nil
}

// SpecialCasing are the findings of the passing attempt, which keep the
// job from being proven; nil when none passed.
func (l *Log) SpecialCasing() []specialcase.Finding {
	if l.Solved && l.AttemptIndex >= 0 && l.AttemptIndex < len(l.Attempts) {
		return l.Attempts[l.AttemptIndex].SpecialCasing
	}
	return nil
}

// Tampered returns the first attempt whose run the gate found tampered
// with (package gate's Verdict.Tampered), or nil: a job with one is at
// most unproven, whichever attempt passed.
func (l *Log) Tampered() *Attempt {
	for i, a := range l.Attempts {
		if a.Verdict != nil && len(a.Verdict.Tampered) > 0 {
			return &l.Attempts[i]
		}
	}
	return nil
}

// UnprovenBecause says why a passing job is unproven, completing "the
// tests pass, but ...".
func (l *Log) UnprovenBecause() string {
	switch {
	case len(l.SpecialCasing()) > 0:
		return "the change refers to the test runner or the test environment (special-casing), so they cannot show that the issue is fixed"
	case l.Tampered() != nil:
		return fmt.Sprintf("attempt %d reached into the test runner (tampering), so no later run can show that the issue is fixed", l.Tampered().Index)
	}
	return "no test showed the issue"
}

// Final returns the last attempt that produced code, or nil.
func (l *Log) Final() *Attempt {
	for i := len(l.Attempts) - 1; i >= 0; i-- {
		if l.Attempts[i].Run != nil {
			return &l.Attempts[i]
		}
	}
	return nil
}

// Feedback lists the feedback of every attempt, in order.
func (l *Log) Feedback() []string {
	out := make([]string, 0, len(l.Attempts))
	for _, a := range l.Attempts {
		out = append(out, a.Feedback)
	}
	return out
}
