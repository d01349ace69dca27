package repo

import (
	"cmp"
	"context"
	"fmt"
	"github.com/capsulehq/capsule/pipeline"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/budget"
	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/feedback"
	"github.com/capsulehq/capsule/pipeline/gate"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/pynames"
	"github.com/capsulehq/capsule/pipeline/pystrip"
	"github.com/capsulehq/capsule/pipeline/repocontext"
	"github.com/capsulehq/capsule/pipeline/response"
	"github.com/capsulehq/capsule/pipeline/specialcase"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/pipeline/untrusted"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/agent"
)

// Sandbox is a warm sandbox over the repository's tree; *sandbox.Session
// implements it.
type Sandbox interface {
	pipeline.Sandbox
	CutNetwork(ctx context.Context) error
}

// DefaultMaxFiles is how many files one answer may change when
// Plan.MaxFiles is zero.
const DefaultMaxFiles = 50

// readOnly reports whether the context shows the file at p as one the
// model may not change: protected, or test infrastructure.
func (plan Plan) readOnly(p string) bool {
	_, ok := protectedBy(plan.Protected, p)
	return ok || !plan.AllowTestInfrastructure && edits.IsTestInfrastructure(p)
}

// Outcome is the result of the loop on an issue.
type Outcome struct {
	Log *attemptlog.Log
	// Edits is the change of the passing attempt, or of the last attempt
	// that ran when none passed; Patch is it as a unified diff against the
	// original tree.
	Edits []edits.Edit
	Patch string
}

// Solved reports whether an attempt passed: proven or not (see Outcome).
func (o *Outcome) Solved() bool { return o.Log.Solved }

// Outcome tells a proven fix from a passing but unproven one and from
// none.
func (o *Outcome) Outcome() attemptlog.Outcome { return o.Log.Outcome }

// Solve runs the loop on a plan's issue: the programmer agent answers with
// whole files, which are checked and laid over the pristine tree in the
// sandbox before every test run. The error is non-nil only when the model
// or the sandbox failed (or ctx ended).
func Solve(ctx context.Context, model pipeline.Model, box Sandbox, plan Plan) (*Outcome, error) {
	if err := plan.Settings.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	log := &attemptlog.Log{TaskID: plan.ID, Model: plan.Settings.Model, AttemptIndex: -1, TestCommand: plan.TestCommand, TestReason: plan.TestReason, Devcontainer: plan.Devcontainer,
		Outcome: attemptlog.NotSolved}
	out := &Outcome{Log: log}
	defer func() { log.Duration = time.Since(start) }()

	model, plan.TestModel = meter(model, &plan, log)
	if log.Spend != nil {
		defer func() { log.Spend = plan.meter.Record() }()
	}

	rc, err := Context(plan)
	if err != nil {
		return out, fmt.Errorf("build the repository context: %w", err)
	}
	log.Context = contextRecord(rc, plan.ContextBudget)

	// The set-up and the baseline run before any model call: a job whose
	// tests cannot run stops here, having spent nothing.
	pf, ok, err := preflight(ctx, box, plan, log)
	if err != nil || !ok {
		return out, err
	}
	names := probeNames(ctx, box, log)
	if pf.repro, err = reproduce(ctx, model, box, plan, rc, pf, log); err != nil {
		stop, ok := budget.Stop(err)
		if !ok {
			return out, err
		}
		log.Reproduction.Stopped, log.Stopped = stop, stop
		return out, nil
	}
	if plan.Reproduce == ReproduceRequired && len(pf.targets) == 0 {
		why := cmp.Or(log.Reproduction.Skipped, log.Reproduction.Stopped)
		log.Stopped = fmt.Sprintf("reproduce: required, and no test shows the issue (%s); no attempt was made.", why)
		return out, nil
	}

	boundary := untrusted.Random()
	prompt := programmer.RepoTask{Title: plan.Title, Body: plan.Body, Context: rc.Text, Signatures: rc.Symbols, Boundary: boundary}.Render()
	conv := programmer.NewConversation(programmer.KindRepo, prompt, plan.Settings.History)
	asks, err := newAsker(plan, conv, boundary)
	if err != nil {
		return out, err
	}
	defer asks.close()
	var kept []edits.FileEdit // the parts of a refused answer that could be placed
	err = pipeline.Iterate(log, conv, plan.Settings, func(msgs []chat.Message) (attemptlog.Attempt, error) {
		a, accepted, err := repoAttempt(ctx, model, box, plan, pf, names, &kept, asks, msgs)
		if err == nil {
			err = pf.revise(ctx, box, plan, log, &a)
		}
		if err == nil && a.Run != nil {
			out.Edits, out.Patch = accepted, a.Patch
		}
		return a, err
	}, func(a attemptlog.Attempt) string { return requestSummary(a) + attemptSummary(a) })
	switch v := log.Proof(); {
	case !log.Solved:
	case v != nil && v.Proven() && len(log.SpecialCasing()) == 0 && log.Tampered() == nil:
		log.Outcome = attemptlog.Solved
	default:
		log.Outcome = attemptlog.Unproven
	}
	return out, err
}

// setup runs the set-up command once, committing what it leaves as the
// starting state of every test run, then cuts the network.
func setup(ctx context.Context, box Sandbox, plan Plan, log *attemptlog.Log) (bool, error) {
	cmd := []string{"sh", "-c", plan.Setup}
	res, err := box.Run(ctx, sandbox.Run{Cmd: cmd, Commit: true, Timeout: plan.Limits.Timeout})
	if err != nil {
		return false, fmt.Errorf("set-up: %w", err)
	}
	log.Setup = runRecord(cmd, plan.Settings.Image, res)
	if plan.SetupNetwork {
		if err := box.CutNetwork(ctx); err != nil {
			return false, fmt.Errorf("cut the network after set-up: %w", err)
		}
	}
	if !log.Setup.Passed {
		log.Environment = setupFailure(plan, log.Setup)
		log.Stopped = log.Environment.Text()
		return false, nil
	}
	return true, nil
}

// probeNames lists the top-level module names the sandbox's Python can
// import, which no new module of an answer may shadow (see package edits):
// once a job, after the set-up, which may install packages. When the probe
// cannot run (an image without python3), it falls back to a built-in list
// and says so in the log.
func probeNames(ctx context.Context, box Sandbox, log *attemptlog.Log) pynames.Set {
	res, err := box.Run(ctx, sandbox.Run{Cmd: pynames.Command, Timeout: probeTimeout})
	if err == nil && res.ExitCode != 0 {
		line, _, _ := strings.Cut(strings.TrimSpace(string(res.Stderr)), "\n")
		err = fmt.Errorf("exit status %d: %s", res.ExitCode, line)
	}
	if err == nil {
		names, version, perr := pynames.Parse(res.Stdout)
		if perr == nil {
			log.ModuleNames = fmt.Sprintf("%d, from the image's Python %s", len(names), version)
			return names
		}
		err = perr
	}
	slog.Warn("module names: the probe failed; using the built-in list", "err", err)
	log.ModuleNames = fmt.Sprintf("the built-in list of Python 3.11's standard library and the test runner's modules: the probe failed (%v)", err)
	return pynames.Fallback()
}

// probeTimeout bounds the module-name probe.
const probeTimeout = time.Minute

// repoAttempt makes one model call (more when the programmer answers with
// requests: see asker), checks the files it answered and runs the tests
// with them. names are the module names no new module may shadow.
func repoAttempt(ctx context.Context, model pipeline.Model, box Sandbox, plan Plan, pf *proof, names pynames.Set, kept *[]edits.FileEdit, asks *asker, msgs []chat.Message) (attemptlog.Attempt, []edits.Edit, error) {
	a, reply, ok, err := asks.ask(ctx, model, msgs)
	if err != nil || !ok {
		return a, nil, err
	}
	parsed, _ := response.Parse(reply.Content)
	if len(parsed.Files) == 0 {
		repoAnswer.NoCode(&a, reply.Truncated)
		return a, nil, nil
	}
	if limit := cmp.Or(plan.MaxFiles, DefaultMaxFiles); len(parsed.Files) > limit {
		a.Feedback, a.FeedbackKind = fmt.Sprintf("Nothing was tested: your answer gives %d files, and one answer may change at most %d. "+
			"Answer again with only the files the fix needs.", len(parsed.Files), limit), "too-many-files"
		return a, nil, nil
	}
	proposed, ok, err := placeAnswer(&a, plan.Dir, kept, parsed.Files)
	if err != nil || !ok {
		return a, nil, err
	}

	proposed, refused := pf.keepRepro(proposed)
	rules := edits.Rules{Protected: plan.Protected, AllowTestInfrastructure: plan.AllowTestInfrastructure, Importable: names}
	if pf.repro != nil {
		rules.Reserved = []string{pf.repro.Path}
	}
	accepted, more := edits.Check(plan.Dir, proposed, rules)
	refused = append(refused, more...)
	for _, r := range refused {
		a.Refused = append(a.Refused, r.Reason)
	}
	// An answer whose only refused edits are test infrastructure keeps its
	// other edits, which run, with the refusals said in the feedback: what
	// runs is then an answer the model could have sent as it is, checked
	// like any other, and the patch holds only it; a code fix sent with a
	// change to pytest's settings is not lost for it. Any other refusal
	// (a protected test, the reproducing test, a path out of bounds) says
	// the answer is off course, and nothing of it runs.
	var partly string
	switch {
	case len(refused) == 0:
	case len(accepted) > 0 && !slices.ContainsFunc(refused, func(r edits.Refusal) bool { return !r.Infrastructure }):
		partly = partialFeedback(refused)
	default:
		a.Feedback, a.FeedbackKind = refusalFeedback(refused), "refused"
		return a, nil, nil
	}
	// The change that runs, and that the patch carries, is without the
	// example calls.
	accepted, a.Cleaned = stripExampleCalls(plan.Dir, accepted)
	if !plan.withoutScan {
		a.SpecialCasing = specialCasing(plan.Dir, accepted, pf)
	}
	if pf.repro != nil {
		// The reproducing test runs with every attempt, and the change
		// (the patch, the pull request) carries it.
		accepted = append(accepted, *pf.repro)
	}
	for _, c := range edits.Summary(accepted, plan.Dir) {
		a.Changes = append(a.Changes, attemptlog.Change{Path: c.Path, Status: c.Status, Added: c.Added, Removed: c.Removed})
	}
	a.Patch, err = edits.Diff(plan.Dir, accepted)
	if err != nil {
		return a, nil, fmt.Errorf("diff the answer: %w", err)
	}

	files, deleted := overlay(accepted)
	tr, v, err := pf.check(ctx, box, plan, files, deleted)
	if err != nil {
		return a, nil, err
	}
	res := tr.res
	a.Run, a.Verdict = tr.record(plan.Settings.Image), v
	if v != nil {
		a.Run.Passed, a.Run.Reason = v.Passed, gateReason(*v, res.ExitCode, a.Run.Reason)
	}
	if a.Run.Passed {
		return a, accepted, nil
	}
	pipeline.RunFeedback(&a, plan.Settings.Feedback, feedback.Input{
		Stdout: string(res.Stdout), Stderr: pipeline.OOMNote(string(res.Stderr), res),
		ExitCode: res.ExitCode, TimedOut: res.TimedOut, Timeout: res.Timeout,
		Style: feedbackStyle(pf.plan.Runner), Workspace: agent.Workspace,
	})
	if v != nil {
		// The gate's verdict leads, unless the run was cut short by a
		// limit: that is what the programmer must fix first.
		if res.TimedOut || res.OOMKilled {
			a.Feedback += "\n\n" + v.Feedback()
		} else {
			a.Feedback = v.Feedback() + "\n" + a.Feedback
		}
		if len(v.Tampered) > 0 {
			a.FeedbackKind = "tampered"
		}
	}
	a.Feedback = partly + a.Feedback + specialCasingNote(a.SpecialCasing)
	return a, accepted, nil
}

// gateReason says in a few words why the gate refused a run, followed by
// the run's own reason, or notes the exit status of a run it passed
// although it failed (tests that already failed, flaky tests).
func gateReason(v gate.Verdict, exitCode int, runReason string) string {
	var why []string
	if v.Passed {
		if exitCode != 0 {
			return fmt.Sprintf("exit status %d, from tests that already failed or are flaky", exitCode)
		}
		return ""
	}
	if n := len(v.Tampered); n > 0 {
		why = append(why, fmt.Sprintf("tampering seen (%d %s)", n, map[bool]string{true: "finding", false: "findings"}[n == 1]))
	}
	failing := 0
	for _, t := range v.Targets {
		if !t.After.Passing() {
			failing++
		}
	}
	if failing > 0 {
		why = append(why, fmt.Sprintf("%d of %d target tests do not pass", failing, len(v.Targets)))
	}
	if n := len(v.Regressions); n > 0 {
		why = append(why, fmt.Sprintf("%d tests regressed", n))
	}
	if n := len(v.NewFailures); n > 0 {
		why = append(why, fmt.Sprintf("%d tests that did not run before fail", n))
	}
	if n := len(v.CollectErrors); n > 0 {
		why = append(why, fmt.Sprintf("%d files could not be collected", n))
	}
	if v.Untrusted != "" {
		why = append(why, "the test report cannot be trusted: "+v.Untrusted)
	} else if len(v.Missing) > 0 {
		why = append(why, fmt.Sprintf("%d tests did not run", len(v.Missing)))
	}
	if runReason != "" {
		why = append(why, runReason)
	}
	return strings.Join(why, "; ")
}

// stripExampleCalls removes the top-level example calls that an answer
// added to the Python modules of the repository in repo (never what the
// module had), leaving test files, conftest.py, setup.py and __main__.py
// as written, and notes what it removed.
func stripExampleCalls(repo string, changed []edits.Edit) ([]edits.Edit, []string) {
	var notes []string
	out := make([]edits.Edit, len(changed))
	for i, e := range changed {
		out[i] = e
		base := path.Base(e.Path)
		if path.Ext(base) != ".py" || e.Delete || strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") ||
			base == "conftest.py" || base == "setup.py" || base == "__main__.py" {
			continue
		}
		added, err := edits.AddedLines(repo, e)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: example calls kept: %v", e.Path, err))
			continue
		}
		stripped, removed := pystrip.StripAdded(e.Content, added)
		if len(removed) == 0 {
			continue
		}
		out[i].Content = stripped
		var spans []string
		for _, r := range removed {
			spans = append(spans, fmt.Sprintf("%d-%d", r[0], r[1]))
		}
		notes = append(notes, fmt.Sprintf("%s: removed top-level example calls at lines %s", e.Path, strings.Join(spans, ", ")))
	}
	return out, notes
}

// refusalFeedback tells the model which edits were refused and why.
func refusalFeedback(refused []edits.Refusal) string {
	var b strings.Builder
	b.WriteString("Nothing was tested: some of your edits were refused.\n")
	for _, r := range refused {
		b.WriteString("- " + r.Reason + "\n")
	}
	b.WriteString("Answer again with every file you change, leaving these alone.")
	return b.String()
}

// partialFeedback opens the feedback of an answer whose test
// infrastructure edits were refused and whose other edits ran.
func partialFeedback(refused []edits.Refusal) string {
	var b strings.Builder
	b.WriteString("Some of your edits were refused and left out; the others were tested without them.\n")
	for _, r := range refused {
		b.WriteString("- " + r.Reason + "\n")
	}
	return b.String() + "\n"
}

// specialCasing scans the lines the accepted edits add for references to
// the test runner and the test environment (see package specialcase).
func specialCasing(repo string, accepted []edits.Edit, pf *proof) []specialcase.Finding {
	var job specialcase.Job
	if pf.repro != nil {
		job.ReproPath = pf.repro.Path
	}
	for _, t := range pf.targets {
		job.TestNames = append(job.TestNames, t.ID.Name)
	}
	var out []specialcase.Finding
	for _, e := range accepted {
		if e.Delete {
			continue
		}
		old, _ := os.ReadFile(filepath.Join(repo, filepath.FromSlash(e.Path))) // nil for a new file
		out = append(out, specialcase.Scan(e.Path, string(old), e.Content, job)...)
	}
	return out
}

// specialCasingNote tells the model what in its change refers to the test
// environment, which keeps a passing fix from being proven.
func specialCasingNote(fs []specialcase.Finding) string {
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nYour change refers to the test runner or the test environment, which a fix must not do (a passing change that does is not accepted as proven):\n")
	for _, f := range fs {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	return strings.TrimRight(b.String(), "\n")
}

// overlay turns accepted edits into the files and deletions of a run.
func overlay(accepted []edits.Edit) (map[string][]byte, []string) {
	files := make(map[string][]byte, len(accepted))
	var deleted []string
	for _, e := range accepted {
		if e.Delete {
			deleted = append(deleted, e.Path)
			continue
		}
		files[e.Path] = []byte(e.Content)
	}
	return files, deleted
}

// runRecord renders a sandbox result for the attempt log.
func runRecord(cmd []string, image string, res sandbox.Result) *attemptlog.Run {
	r := &attemptlog.Run{
		Command: cmd, Image: image, ExitCode: res.ExitCode, Passed: res.Passed(),
		TimedOut: res.TimedOut, OOMKilled: res.OOMKilled, Reason: res.Reason(),
		Output: pipeline.JoinOutput(string(res.Stdout), string(res.Stderr)), Truncated: res.Truncated(), Duration: res.Duration,
	}
	if res.Truncated() {
		r.Reason = strings.TrimSpace(r.Reason + fmt.Sprintf("; output capped (%d bytes written)", res.StdoutBytes+res.StderrBytes))
	}
	return r
}

// feedbackStyle is how the error handler reads the output of the test
// runner the plan found (testreport.Plan.Runner).
func feedbackStyle(r testreport.Runner) feedback.Style {
	switch r {
	case testreport.PytestRunner:
		return feedback.Pytest
	case testreport.UnittestRunner:
		return feedback.Unittest
	}
	return feedback.Generic
}

// testCounts finds a test runner's summary counts, e.g. "2 failed, 6 passed".
var testCounts = regexp.MustCompile(`\b(\d+) (passed|failed|errors?)\b`)

// attemptSummary describes an attempt in a few words for progress lines.
func attemptSummary(a attemptlog.Attempt) string {
	switch {
	case a.Run == nil && a.FeedbackKind == "unmatched":
		return fmt.Sprintf("%d blocks not placed", len(a.Refused))
	case a.Run == nil && len(a.Refused) > 0:
		return fmt.Sprintf("%d edits refused", len(a.Refused))
	case a.Run == nil && a.FeedbackKind == "too-large":
		return "answer too long"
	case a.Run == nil && a.FeedbackKind == "too-many-files":
		return "too many files"
	case a.Run == nil:
		return "no code"
	}
	// The last count of each kind: pytest prints the errors of a
	// collection twice ("Interrupted: 1 error", then "1 error in 0.1s").
	var counts []string
	last := map[string]int{}
	for _, m := range testCounts.FindAllStringSubmatch(a.Run.Output, -1) {
		kind := strings.TrimSuffix(m[2], "s")
		if i, ok := last[kind]; ok {
			counts[i] = m[1] + " " + m[2]
			continue
		}
		last[kind] = len(counts)
		counts = append(counts, m[1]+" "+m[2])
	}
	verdict := "tests pass"
	switch v := a.Verdict; {
	case !a.Run.Passed:
		verdict = "tests fail: " + a.Run.Reason
	case v != nil && v.Proven():
		verdict = fmt.Sprintf("fixed: %d target tests pass, no regressions", len(v.Targets))
	case v != nil:
		verdict = "tests pass with no regressions, but no test shows the issue"
	}
	if len(counts) > 0 {
		verdict += " (" + strings.Join(counts, ", ") + ")"
	}
	return verdict
}

func protectedBy(protected func(string) (string, bool), path string) (string, bool) {
	if protected == nil {
		return "", false
	}
	return protected(path)
}

// contextRecord notes what the repository context held.
func contextRecord(rc repocontext.Context, budget int) *attemptlog.Context {
	c := &attemptlog.Context{Tokens: rc.Tokens, Budget: budget}
	if c.Budget == 0 {
		c.Budget = repocontext.DefaultBudget
	}
	for _, f := range rc.Included {
		c.Included = append(c.Included, f.String())
	}
	for _, f := range rc.Omitted {
		c.Omitted = append(c.Omitted, fmt.Sprintf("%s: %s", f.Path, f.Why))
	}
	return c
}

// meter wraps the plan's models in the job's budget meter (plan.meter),
// the test designer's as such. A job with budgets or prices gets an
// empty Spend in its log, which the meter's record replaces as the job
// ends; another's log has none.
func meter(model pipeline.Model, plan *Plan, log *attemptlog.Log) (pipeline.Model, pipeline.Model) {
	b := plan.Budget
	plan.meter = budget.NewMeter(b)
	if b.Limits != (budget.Limits{}) || len(b.Prices) > 0 || b.Day != nil {
		log.Spend = &attemptlog.Spend{}
	}
	designer := plan.TestModel
	if designer == nil {
		designer = model
	}
	return plan.meter.Wrap(model, budget.Programmer, plan.Settings.Model), plan.meter.Wrap(designer, budget.Designer, plan.Settings.Model)
}
