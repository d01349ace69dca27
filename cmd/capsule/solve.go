package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
	"github.com/capsulehq/capsule/sandbox/limits"
)

// exitUnproven is solve's exit code when the tests pass with no
// regressions but no test showed the issue: nothing proves the fix.
const exitUnproven = 4

// Files written into solve's --out directory.
const (
	patchFile        = "patch.diff"
	attemptsJSONFile = "attempts.json"
	attemptsMDFile   = "attempts.md"
)

// solveFlags are the settings of capsule solve.
type solveFlags struct {
	model            modelFlags
	repo, issue, out string
	apply            bool
	testModel        *string
	overrides        repo.Overrides
}

// register adds solve's flags to fs.
func (f *solveFlags) register(fs *flag.FlagSet) {
	f.model.register(fs)
	f.overrides = repo.NoOverrides()
	f.overrides.Feedback = pipeline.FeedbackRefined
	o := &f.overrides
	fs.StringVar(&f.repo, "repo", "", "the repository's directory (required)")
	fs.StringVar(&f.issue, "issue", "", "the issue in Markdown, a `FILE` or - for standard input; its first \"# \" heading is the title (required)")
	fs.StringVar(&f.out, "out", "", "directory for patch.diff, attempts.json and attempts.md")
	fs.BoolVar(&f.apply, "apply", false, "write the final files into the repository when the tests pass")
	fs.StringVar(&o.TestCommand, "test-cmd", "", "test command (overrides .github/capsule.yml and detection)")
	fs.StringVar(&o.Image, "image", "", "sandbox image (overrides .github/capsule.yml; default "+image.Default()+")")
	fs.IntVar(&o.MaxAttempts, "max-attempts", -1, "fix attempts after the first generation (default: the repository's config, else 5)")
	fs.IntVar(&o.History, "history", -1, "earlier (code, feedback) pairs kept in fix calls (default: the repository's config, else 1)")
	fs.Var((*feedbackFlag)(&o.Feedback), "feedback", "feedback to the model, a `MODE`: refined or raw")
	fs.IntVar(&o.ContextBudget, "context-budget", 0, "token budget of the repository context (default 24000)")
	fs.StringVar(&o.Reproduce, "reproduce", "", "auto, required or off: whether the test designer first writes a test that shows the issue (overrides .github/capsule.yml; default auto)")
	f.testModel = registerTestModel(fs)
	fs.Var((*byteSize)(&o.Memory), "memory", "memory of the tests, a `SIZE` such as 2g (overrides .github/capsule.yml; default "+limits.FormatBytes(sandbox.DefaultMemory)+")")
	fs.Float64Var(&o.CPUs, "cpus", 0, "CPU cores of the tests (overrides .github/capsule.yml; default 1)")
	fs.Var((*byteSize)(&o.Disk), "disk", "bytes the tests may write, a `SIZE` such as 2g (overrides .github/capsule.yml; default "+limits.FormatBytes(sandbox.DefaultDisk)+")")
}

func runSolve(ctx context.Context, env *environment, args []string) int {
	fs := newFlagSet("solve", "Usage: capsule solve --repo DIR --issue FILE|- [--out DIR] [--apply] [flags]\n\nRuns the self-debugging loop on an issue against the repository's own\ntests in the sandbox. Exits 0 when solved (a test showed the issue and\npasses now, with no regressions), 4 when the tests pass but no test showed\nthe issue (unproven), 1 when no attempt passed, 2 on a usage or\nconfiguration error, 3 when the engine or the model cannot be reached.")
	var f solveFlags
	f.register(fs)
	if code := parseFlags(fs, env, args); code >= 0 {
		return code
	}
	if f.repo == "" || f.issue == "" || fs.NArg() > 0 {
		fmt.Fprintln(env.stderr, "capsule solve: need --repo DIR and --issue FILE (or -), and no other arguments")
		return exitUsage
	}
	outcome, err := f.solve(ctx, env)
	if err != nil {
		return fail(env, err)
	}
	code := solveVerdict(env, outcome.Log)
	if code == exitFailure {
		return code
	}
	if err := f.deliver(env, outcome); err != nil {
		return fail(env, err)
	}
	return code
}

// solve plans the issue (the operator's maxima from the environment, the
// flags' overrides), runs the plan in the sandbox with the model, and
// writes the --out files of what it made, even when the run failed.
func (f *solveFlags) solve(ctx context.Context, env *environment) (*repo.Outcome, error) {
	var limits operatorLimits
	if err := limits.fromEnv(); err != nil {
		return nil, err
	}
	local, err := localTask(f.repo, f.issue)
	if err != nil {
		return nil, err
	}
	local.Progress = func(e pipeline.Event) {
		fmt.Fprintf(env.stderr, "attempt %d of %d: %s\n", e.Attempt, e.Of, e.Summary)
	}
	plan, err := repo.NewPlan(local, f.overrides, limits.max)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	for _, note := range plan.Capped {
		fmt.Fprintf(env.stderr, "capsule solve: %s\n", note)
	}
	if d := plan.Devcontainer; d != nil {
		for _, l := range d.Lines() {
			fmt.Fprintf(env.stderr, "capsule solve: devcontainer: %s\n", l)
		}
	}
	f.model.cfg.MaxAnswerBytes = limits.answerBytes
	client, err := f.model.client(ctx)
	if err != nil {
		return nil, err
	}
	testModel, err := testDesigner(client, *f.testModel)
	if err != nil {
		return nil, err
	}
	eng, err := openEngine(ctx, env, plan.Image)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	prices, err := limits.prices()
	if err != nil {
		return nil, err
	}
	x := repo.Sandboxed{Engine: eng, Model: client, ModelName: client.Config().Model, TestModel: testModel, Prices: prices}
	fmt.Fprintf(env.stderr, "capsule solve: %q with %s; tests: %s (%s); image: %s (%s)\n", local.Title, x.ModelName, plan.TestCommand, plan.TestReason, plan.Image, plan.ImageReason)
	outcome, err := x.Run(ctx, plan)
	if outcome != nil && f.out != "" {
		err = cmp.Or(err, writeSolveOutput(f.out, outcome))
	}
	return outcome, err
}

// solveVerdict says how the run ended and returns solve's exit code.
func solveVerdict(env *environment, log *attemptlog.Log) int {
	switch {
	case !log.Solved:
		fmt.Fprintf(env.stderr, "capsule solve: not solved: %s\n", log.Stopped)
		return exitFailure
	case log.Outcome == attemptlog.Solved:
		fmt.Fprintf(env.stderr, "capsule solve: solved at attempt %d (%d model calls): the tests that show the issue pass, no regressions\n", log.AttemptIndex, log.ModelCalls())
		return exitOK
	}
	fmt.Fprintf(env.stderr, "capsule solve: unproven: the tests pass at attempt %d (%d model calls) with no regressions, but %s\n", log.AttemptIndex, log.ModelCalls(), log.UnprovenBecause())
	return exitUnproven
}

// deliver hands over a change whose tests pass: written into the
// repository with --apply, and the patch on standard output without --out.
func (f *solveFlags) deliver(env *environment, o *repo.Outcome) error {
	if f.apply {
		if err := edits.Apply(f.repo, o.Edits); err != nil {
			return fmt.Errorf("apply the change: %w", err)
		}
		fmt.Fprintf(env.stderr, "capsule solve: change applied to %s\n", f.repo)
	}
	if f.out == "" {
		fmt.Fprint(env.stdout, o.Patch)
	}
	return nil
}

// feedbackFlag is a --feedback flag: refined or raw.
type feedbackFlag pipeline.FeedbackMode

func (m *feedbackFlag) String() string { return string(*m) }

func (m *feedbackFlag) Set(s string) error {
	v, err := pipeline.ParseFeedbackMode(s)
	if err != nil {
		return err
	}
	*m = feedbackFlag(v)
	return nil
}

// writeSolveOutput writes the patch and the attempt log.
func writeSolveOutput(dir string, o *repo.Outcome) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	data, err := json.MarshalIndent(o.Log, "", "  ")
	if err != nil {
		return err
	}
	var md strings.Builder
	if err := o.Log.WriteMarkdown(&md); err != nil {
		return err
	}
	for name, content := range map[string][]byte{
		patchFile:        []byte(o.Patch),
		attemptsJSONFile: append(data, '\n'),
		attemptsMDFile:   []byte(md.String()),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// localTask reads the issue file (or standard input for "-") and the
// repository's .github/capsule.yml for a job on a local repository; every
// error is a usage error.
func localTask(dir, issuePath string) (repo.Task, error) {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return repo.Task{}, fmt.Errorf("%w: repository %s is not a directory", errUsage, dir)
	}
	title, body, err := readIssue(issuePath, os.Stdin)
	if err != nil {
		return repo.Task{}, fmt.Errorf("%w: %w", errUsage, err)
	}
	cfg, err := repoconfig.Load(dir)
	if err != nil {
		return repo.Task{}, fmt.Errorf("%w: %w", errUsage, err)
	}
	return repo.Task{ID: "issue", Dir: dir, Config: cfg, Title: title, Body: body}, nil
}

// readIssue reads an issue in Markdown: the first `# ` heading is the
// title, the rest the body. Without a heading the first line is the title.
func readIssue(path string, stdin io.Reader) (title, body string, err error) {
	var data []byte
	if path == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return "", "", fmt.Errorf("read the issue: %w", err)
	}
	text := strings.TrimSpace(strings.ReplaceAll(string(data), "\r\n", "\n"))
	if text == "" {
		return "", "", errors.New("the issue is empty")
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if t, ok := strings.CutPrefix(line, "# "); ok {
			rest := append(append([]string{}, lines[:i]...), lines[i+1:]...)
			return strings.TrimSpace(t), strings.TrimSpace(strings.Join(rest, "\n")), nil
		}
	}
	return strings.TrimSpace(lines[0]), strings.TrimSpace(strings.Join(lines[1:], "\n")), nil
}
