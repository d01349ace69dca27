package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
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

func runSolve(ctx context.Context, env *environment, args []string) int {
	fs := flag.NewFlagSet("solve", flag.ContinueOnError)
	var mf modelFlags
	mf.register(fs)
	repo := fs.String("repo", "", "the repository's directory (required)")
	issuePath := fs.String("issue", "", "Markdown file with the issue, or - for standard input: a first `# ` heading is the title (required)")
	out := fs.String("out", "", "directory for patch.diff, attempts.json and attempts.md")
	apply := fs.Bool("apply", false, "write the final files into the repository when the tests pass")
	testCmd := fs.String("test-cmd", "", "test command (overrides .github/capsule.yml and detection)")
	img := fs.String("image", "", "sandbox image (overrides .github/capsule.yml; default "+image.Default()+")")
	maxAttempts := fs.Int("max-attempts", -1, "fix attempts after the first generation (default: the repository's config, else 5)")
	history := fs.Int("history", -1, "earlier (code, feedback) pairs kept in fix calls (default: the repository's config, else 1)")
	feedbackMode := fs.String("feedback", string(pipeline.FeedbackRefined), "feedback to the model: refined or raw")
	budget := fs.Int("context-budget", 0, "token budget of the repository context (default 24000)")
	reproduce := fs.String("reproduce", "", "auto, required or off: whether the test designer first writes a test that shows the issue (overrides .github/capsule.yml; default auto)")
	testModel := registerTestModel(fs)
	var memory byteSize
	fs.Var(&memory, "memory", "memory of the tests, a `SIZE` such as 2g (overrides .github/capsule.yml; default "+sandbox.FormatBytes(sandbox.DefaultMemory)+")")
	cpus := fs.Float64("cpus", 0, "CPU cores of the tests (overrides .github/capsule.yml; default 1)")
	var disk byteSize
	fs.Var(&disk, "disk", "bytes the tests may write, a `SIZE` such as 2g (overrides .github/capsule.yml; default "+sandbox.FormatBytes(sandbox.DefaultDisk)+")")
	fs.Usage = func() {
		fmt.Fprintln(env.stderr, "Usage: capsule solve --repo DIR --issue FILE|- [--out DIR] [--apply] [flags]\n\nRuns the self-debugging loop on an issue against the repository's own\ntests in the sandbox. Exits 0 when solved (a test showed the issue and\npasses now, with no regressions), 4 when the tests pass but no test showed\nthe issue (unproven), 1 when no attempt passed, 2 on a usage or\nconfiguration error, 3 when the engine or the model cannot be reached.\n\nFlags:")
		fs.PrintDefaults()
	}
	if code := parseFlags(fs, env, args); code >= 0 {
		return code
	}
	var limits operatorLimits
	if err := limits.fromEnv(); err != nil {
		return fail(env, err)
	}
	if err := limits.check(); err != nil {
		return fail(env, err)
	}
	if *repo == "" || *issuePath == "" || fs.NArg() > 0 {
		fmt.Fprintln(env.stderr, "capsule solve: need --repo DIR and --issue FILE (or -), and no other arguments")
		return exitUsage
	}
	local, err := localTask(*repo, *issuePath)
	if err != nil {
		return fail(env, err)
	}
	feedback, err := pipeline.ParseFeedbackMode(*feedbackMode)
	if err != nil {
		return fail(env, fmt.Errorf("%w: --feedback: %w", errUsage, err))
	}
	plan, err := job.NewPlan(local, job.Overrides{
		TestCommand: *testCmd, Image: *img, MaxAttempts: *maxAttempts, History: *history,
		Feedback: feedback, ContextBudget: *budget, Memory: int64(memory), CPUs: *cpus, Disk: int64(disk),
		Reproduce: *reproduce,
	}, limits.max)
	if err != nil {
		return fail(env, fmt.Errorf("%w: %w", errUsage, err))
	}
	if err := plan.Limits.Validate(); err != nil {
		return fail(env, fmt.Errorf("%w: %w", errUsage, err))
	}
	task, settings := plan.Task, plan.Settings
	for _, note := range plan.Capped {
		fmt.Fprintf(env.stderr, "capsule solve: %s\n", note)
	}

	mf.cfg.MaxAnswerBytes = limits.answerBytes
	client, err := mf.client(ctx)
	if err != nil {
		return fail(env, err)
	}
	if task.TestModel, err = testDesigner(client, *testModel); err != nil {
		return fail(env, err)
	}
	eng, err := openEngine(ctx, env, plan.Image)
	if err != nil {
		return fail(env, err)
	}
	defer eng.Close()
	box, err := eng.NewSession(ctx, sandbox.Spec{Image: plan.Image, Workspace: *repo, Exclude: []string{".git"}, Limits: plan.Limits})
	if err != nil {
		return fail(env, err)
	}
	defer box.Close()

	settings.Model = client.Config().Model
	settings.Progress = func(e pipeline.Event) {
		fmt.Fprintf(env.stderr, "attempt %d of %d: %s\n", e.Attempt, e.Of, e.Summary)
	}
	fmt.Fprintf(env.stderr, "capsule solve: %q with %s; tests: %s (%s)\n", local.Title, settings.Model, task.TestCommand, task.TestReason)
	outcome, err := pipeline.SolveRepo(ctx, client, box, task, settings)
	if outcome != nil && *out != "" {
		if werr := writeSolveOutput(*out, outcome); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return fail(env, err)
	}
	log := outcome.Log
	if !log.Solved {
		fmt.Fprintf(env.stderr, "capsule solve: not solved: %s\n", log.Stopped)
		return exitFailure
	}
	code := exitOK
	if log.Outcome == attemptlog.Solved {
		fmt.Fprintf(env.stderr, "capsule solve: solved at attempt %d (%d model calls): the tests that show the issue pass, no regressions\n", log.AttemptIndex, log.ModelCalls())
	} else {
		code = exitUnproven
		fmt.Fprintf(env.stderr, "capsule solve: unproven: the tests pass at attempt %d (%d model calls) with no regressions, but no test showed the issue\n", log.AttemptIndex, log.ModelCalls())
	}
	if *apply {
		if err := edits.Apply(*repo, outcome.Edits); err != nil {
			return fail(env, fmt.Errorf("apply the change: %w", err))
		}
		fmt.Fprintf(env.stderr, "capsule solve: change applied to %s\n", *repo)
	}
	if *out == "" {
		fmt.Fprint(env.stdout, outcome.Patch)
	}
	return code
}

// writeSolveOutput writes the patch and the attempt log.
func writeSolveOutput(dir string, o *pipeline.RepoOutcome) error {
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
func localTask(repo, issuePath string) (job.Task, error) {
	if info, err := os.Stat(repo); err != nil || !info.IsDir() {
		return job.Task{}, fmt.Errorf("%w: repository %s is not a directory", errUsage, repo)
	}
	title, body, err := readIssue(issuePath, os.Stdin)
	if err != nil {
		return job.Task{}, fmt.Errorf("%w: %w", errUsage, err)
	}
	cfg, err := repoconfig.Load(repo)
	if err != nil {
		return job.Task{}, fmt.Errorf("%w: %w", errUsage, err)
	}
	return job.Task{ID: "issue", Dir: repo, Config: cfg, Title: title, Body: body}, nil
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
