package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/bot/ghapp"
	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/webhook"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/internal/version"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
)

// actionLogDir is where the Action writes the attempt log in the
// workspace, for the workflow to upload as an artifact.
const actionLogDir = "capsule-attempts"

// actionInputs are the Action's inputs, read from INPUT_* variables.
type actionInputs struct {
	label, model, baseURL, apiKey, token string
	appID                                int64
	appKey                               string
	maxAttempts                          int
	config                               string
}

// input reads an Action input as GitHub passes it: INPUT_ and the name in
// capitals, hyphens kept.
func input(name string) string {
	return strings.TrimSpace(os.Getenv("INPUT_" + strings.ToUpper(name)))
}

func readActionInputs() (actionInputs, error) {
	in := actionInputs{
		label: input("label"), model: input("model"), baseURL: input("base-url"), apiKey: input("api-key"),
		token: input("github-token"), appKey: input("app-private-key"), config: input("config"), maxAttempts: -1,
	}
	if v := input("app-id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return in, fmt.Errorf("input app-id: %q is not an App id", v)
		}
		in.appID = id
	}
	if (in.appID != 0) != (in.appKey != "") {
		return in, errors.New("inputs app-id and app-private-key go together: give both or neither")
	}
	if v := input("max-attempts"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return in, fmt.Errorf("input max-attempts: %q is not a count", v)
		}
		in.maxAttempts = n
	}
	if in.token == "" && in.appID == 0 {
		return in, errors.New("no token: set the github-token input (it defaults to the workflow's token) or app-id and app-private-key")
	}
	return in, nil
}

// workflow writes GitHub Actions' workflow commands and files.
type workflow struct {
	out io.Writer
}

func (w workflow) group(title string, body func()) {
	fmt.Fprintf(w.out, "::group::%s\n", escapeCommand(title))
	body()
	fmt.Fprintln(w.out, "::endgroup::")
}

func (w workflow) error(msg string)   { fmt.Fprintf(w.out, "::error::%s\n", escapeCommand(msg)) }
func (w workflow) warning(msg string) { fmt.Fprintf(w.out, "::warning::%s\n", escapeCommand(msg)) }

// escapeCommand escapes a workflow command's message as the runner
// expects.
func escapeCommand(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// appendFile appends to a file the runner names in the environment (such
// as GITHUB_OUTPUT); nothing when the variable is unset.
func appendFile(variable, text string) error {
	name := os.Getenv(variable)
	if name == "" {
		return nil
	}
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", variable, err)
	}
	_, err = io.WriteString(f, text)
	return errors.Join(err, f.Close())
}

// setOutputs writes the step's outputs; values are single lines.
func setOutputs(outputs [][2]string) error {
	var b strings.Builder
	for _, kv := range outputs {
		fmt.Fprintf(&b, "%s=%s\n", kv[0], strings.ReplaceAll(kv[1], "\n", " "))
	}
	return appendFile("GITHUB_OUTPUT", b.String())
}

func runAction(ctx context.Context, env *environment, args []string) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintln(env.stdout, "Usage: capsule action\n\nRuns as a step of a GitHub Actions workflow (see action.yml): reads the\nevent from GITHUB_EVENT_PATH and GITHUB_EVENT_NAME and the inputs from\nINPUT_* variables, and takes a labelled issue (or a /capsule retry\ncomment) to a pull request, as the App does; on that pull request a\nreview, a review comment, a /capsule comment or a failed workflow run\nadds a round.")
		return exitOK
	}
	if len(args) > 0 {
		fmt.Fprintln(env.stderr, "capsule action: takes no arguments; its settings are the Action's inputs")
		return exitUsage
	}
	if env.parseOnly {
		return exitOK
	}
	wf := workflow{out: env.stdout}
	code, err := action(ctx, env, wf)
	if err != nil {
		wf.error(err.Error())
		return fail(env, err)
	}
	return code
}

// action does the work of runAction and returns its exit code.
func action(ctx context.Context, env *environment, wf workflow) (int, error) {
	in, err := readActionInputs()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errUsage, err)
	}
	event, path := os.Getenv("GITHUB_EVENT_NAME"), os.Getenv("GITHUB_EVENT_PATH")
	if event == "" || path == "" {
		return 0, fmt.Errorf("%w: GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set: run this as a step of a workflow", errUsage)
	}
	payload, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("%w: read the event: %w", errUsage, err)
	}
	req, err := webhook.Parse(event, payload)
	var ignored *webhook.Ignored
	if errors.As(err, &ignored) {
		return nothingToDo(env, ignored.Reason)
	}
	if err != nil {
		return 0, fmt.Errorf("%w: the event in %s: %w", errUsage, path, err)
	}
	// A run of the workflow stands for a delivery: a re-run of it is the
	// same one, so that a retry's round is not made twice.
	if id := os.Getenv("GITHUB_RUN_ID"); id != "" {
		req.Delivery = "actions-run-" + id
	}
	log := slog.New(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	apiURL := envOr("GITHUB_API_URL", ghapp.DefaultBaseURL)
	client, err := actionClient(ctx, in, apiURL, req, log)
	if err != nil {
		return 0, err
	}
	gh := job.NewRepository(client, req.Owner, req.Repo)
	if req.Trigger == work.TriggerCommand && req.Issue == 0 {
		var why string
		if req, why, err = commandIssue(ctx, gh, req); err != nil {
			return 0, err
		} else if why != "" {
			return nothingToDo(env, why)
		}
	}
	// Whether the event concerns Capsule is decided before the model's
	// settings are read: a workflow run for another label needs none.
	runner := &job.Runner{Label: in.label, ConfigPath: in.config, Version: version.Version, Logger: log, RunURL: runURL()}
	if ws := os.Getenv("GITHUB_WORKSPACE"); ws != "" && os.Getenv("GITHUB_SHA") != "" {
		if _, err := os.Stat(filepath.Join(ws, ".git")); err == nil {
			runner.Workspace, runner.WorkspaceCommit = ws, os.Getenv("GITHUB_SHA")
		}
	}
	if ok, why, err := runner.Concerns(ctx, gh, req); err != nil {
		return 0, err
	} else if !ok {
		return nothingToDo(env, why)
	}

	var limits operatorLimits
	if err := limits.fromEnv(); err != nil {
		return 0, err
	}
	runner.MaxCIRounds = limits.runnerCIRounds()
	cfg := programmer.ConfigFromEnv()
	cfg.Model, cfg.BaseURL, cfg.APIKey = cmp.Or(in.model, cfg.Model), cmp.Or(in.baseURL, cfg.BaseURL), cmp.Or(in.apiKey, cfg.APIKey)
	cfg.MaxAnswerBytes = limits.answerBytes
	model, err := programmer.New(cfg)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errUsage, err)
	}
	testModel, err := testDesigner(model, os.Getenv(testModelEnv))
	if err != nil {
		return 0, err
	}
	prices, err := limits.prices()
	if err != nil {
		return 0, err
	}
	overrides := repo.NoOverrides()
	overrides.MaxAttempts = in.maxAttempts
	solver := &sandboxOnDemand{env: env, wf: wf, model: model,
		solver: repo.Sandboxed{Model: model, ModelName: model.Config().Model, TestModel: testModel, Overrides: overrides, Maxima: limits.max, Prices: prices}}
	setup, err := setupFromEnv()
	if err != nil {
		return 0, err
	}
	setup.secretsText = input("setup-secrets")
	if err := setup.equip(&solver.solver, env.log); err != nil {
		return 0, err
	}
	defer solver.close()
	runner.Solver = solver
	fmt.Fprintf(env.stdout, "capsule: %s, asked by %s (%s)\n", describe(req), req.Sender, req.Trigger)
	res := runner.Run(ctx, gh, req, job.Hooks{
		Attempt: func(e pipeline.Event) { printAttempt(wf, e) },
	})
	return finishAction(env, wf, req, res)
}

// sandboxOnDemand is the Action's solver. The first time the job runs
// the loop it checks the model endpoint, connects to the runner's Docker
// engine and builds the sandbox image (a minute or so on a fresh runner),
// so that an event the job ends without the loop (a round on a pull
// request that is not Capsule's, CI rounds used up, a failure that is the
// default branch's) spends none of that.
type sandboxOnDemand struct {
	env    *environment
	wf     workflow
	model  *programmer.Client
	solver repo.Sandboxed // its Engine set by start
	once   sync.Once
	err    error
}

// Solve starts the sandbox and the model once, then runs the loop.
func (s *sandboxOnDemand) Solve(ctx context.Context, t repo.Task) (*repo.Outcome, error) {
	s.once.Do(func() { s.err = s.start(ctx) })
	if s.err != nil {
		return nil, s.err
	}
	return s.solver.Solve(ctx, t)
}

func (s *sandboxOnDemand) start(ctx context.Context) error {
	if err := s.model.Ping(ctx); err != nil {
		return fmt.Errorf("model endpoint %s: %w", s.model.Config().BaseURL, err)
	}
	eng, err := sandbox.Connect(ctx, sandbox.Options{Logger: s.env.log})
	if err != nil {
		return fmt.Errorf("%w (the sandbox needs the runner's Docker engine, which GitHub mounts into Docker actions at /var/run/docker.sock)", err)
	}
	s.solver.Engine = eng
	// A fresh runner has no sandbox image: build it.
	var built image.Method
	s.wf.group("Sandbox image "+image.Default(), func() {
		built, err = image.Build(ctx, eng.Client(), image.Options{Progress: s.wf.out})
	})
	if err != nil {
		return fmt.Errorf("build the sandbox image: %w", err)
	}
	fmt.Fprintln(s.env.stdout, "capsule: "+strings.TrimSpace(built.Describe(image.Default())))
	return nil
}

// close releases the engine, if the loop ran.
func (s *sandboxOnDemand) close() {
	if s.solver.Engine != nil {
		s.solver.Engine.Close()
	}
}

// commandIssue finds the issue a /capsule command on pull request
// req.PullRequest answers, which its payload does not say (the App finds
// it in its store): the N of the pull request's capsule/issue-N branch of
// the repository itself. why says why there is none. The job checks again
// that the pull request is the one Capsule opened for that issue.
func commandIssue(ctx context.Context, gh job.GitHub, req work.Request) (work.Request, string, error) {
	pr, err := gh.PullRequest(ctx, req.PullRequest)
	if errors.Is(err, job.ErrNotFound) {
		return req, fmt.Sprintf("pull request #%d does not exist", req.PullRequest), nil
	}
	if err != nil {
		return req, "", fmt.Errorf("read pull request #%d: %w", req.PullRequest, err)
	}
	n, why := pr.Identity(req.PullRequest).Claim(work.Repository{FullName: req.Owner + "/" + req.Repo})
	if why != "" {
		return req, fmt.Sprintf("pull request #%d is not from a capsule/issue-N branch of %s/%s", req.PullRequest, req.Owner, req.Repo), nil
	}
	req.Issue, req.HeadSHA = n, pr.HeadSHA
	return req, "", nil
}

// describe names what a request works on: the issue, or for a round the
// pull request and the round.
func describe(req work.Request) string {
	if !req.Trigger.Round() {
		return req.Name()
	}
	return fmt.Sprintf("%s, pull request #%d, round %s", req.Name(), req.PullRequest, req.Round)
}

// nothingToDo ends a step whose event is not Capsule's: it says why and
// sets the outputs of a run that did nothing.
func nothingToDo(env *environment, why string) (int, error) {
	fmt.Fprintf(env.stdout, "capsule: nothing to do: %s\n", why)
	if err := setOutputs([][2]string{{"solved", "false"}, {"outcome", "none"}, {"attempts", "0"}, {"model-calls", "0"}, {"pull-request-url", ""}, {"tokens", "0"}, {"cost", ""}}); err != nil {
		return 0, err
	}
	return exitOK, nil
}

// actionClient authenticates as the App's installation on the repository
// when the App's inputs are given, else with the token.
func actionClient(ctx context.Context, in actionInputs, apiURL string, req work.Request, log *slog.Logger) (*github.Client, error) {
	if in.appID == 0 {
		return ghapp.NewTokenClient(in.token, apiURL, ghapp.DefaultRetryPolicy(), log)
	}
	apps, err := ghapp.New(ghapp.Config{AppID: in.appID, PrivateKey: []byte(in.appKey), BaseURL: apiURL, Retry: ghapp.DefaultRetryPolicy(), Logger: log})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	inst, _, err := apps.App().Apps.GetRepositoryInstallation(ctx, req.Owner, req.Repo)
	if err != nil {
		return nil, fmt.Errorf("find the App's installation on %s/%s (is the App installed there?): %w", req.Owner, req.Repo, err)
	}
	return apps.Installation(inst.GetID())
}

// printAttempt shows an attempt as a folded group in the job log.
func printAttempt(wf workflow, e pipeline.Event) {
	a := e.Record
	verdict := "tests fail: " + e.Summary
	if e.Passed {
		verdict = "tests pass"
	}
	wf.group(fmt.Sprintf("Attempt %d of %d (%s): %s", e.Attempt, e.Of, a.Mode, verdict), func() {
		for _, c := range a.Changes {
			fmt.Fprintf(wf.out, "changed %s (%s, +%d -%d)\n", c.Path, c.Status, c.Added, c.Removed)
		}
		for _, r := range a.Refused {
			fmt.Fprintf(wf.out, "refused: %s\n", r)
		}
		fmt.Fprintf(wf.out, "tokens: %d prompt, %d completion\n", a.PromptTokens, a.CompletionTokens)
		if a.Feedback != "" {
			fmt.Fprintf(wf.out, "feedback to the model:\n%s\n", a.Feedback)
		}
	})
}

// finishAction writes the outputs, the step summary and the log files,
// and picks the exit code.
func finishAction(env *environment, wf workflow, t work.Request, res job.Result) (int, error) {
	log := res.Log()
	outcome, attempts, calls := "none", 0, 0
	tokens, cost := spent(log)
	if log != nil {
		outcome, attempts, calls = string(cmp.Or(log.Outcome, attemptlog.NotSolved)), len(log.Attempts), log.ModelCalls()
		dir := filepath.Join(envOr("GITHUB_WORKSPACE", "."), actionLogDir)
		if err := writeSolveOutput(dir, res.Outcome); err != nil {
			wf.warning("write the attempt log: " + err.Error())
		} else {
			fmt.Fprintf(env.stdout, "capsule: attempt log in %s\n", dir)
		}
		summary := report.StepSummary(report.Issue{Owner: t.Owner, Repo: t.Repo, Number: t.Issue}, log, res.PullRequestURL)
		if err := appendFile("GITHUB_STEP_SUMMARY", summary); err != nil {
			wf.warning("write the step summary: " + err.Error())
		}
	}
	if err := setOutputs([][2]string{
		{"solved", strconv.FormatBool(outcome == string(attemptlog.Solved))}, {"outcome", outcome}, {"attempts", strconv.Itoa(attempts)},
		{"model-calls", strconv.Itoa(calls)}, {"pull-request-url", res.PullRequestURL}, {"tokens", strconv.Itoa(tokens)}, {"cost", cost},
	}); err != nil {
		wf.warning("write the outputs: " + err.Error())
	}
	switch {
	case res.Err != nil:
		return 0, res.Err
	case res.State == work.Skipped:
		fmt.Fprintf(env.stdout, "capsule: skipped: %s\n", res.Reason)
		return exitOK, nil
	case t.Trigger.Round() && res.HeadSHA != "":
		fmt.Fprintf(env.stdout, "capsule: the round pushed %s to pull request %s\n", res.HeadSHA, res.PullRequestURL)
		return exitOK, nil
	case t.Trigger.Round():
		wf.error("the round pushed nothing: " + cmp.Or(res.Reason, "no attempt passed the tests") + " (the pull request says so, with the log)")
		return exitFailure, nil
	case res.PullRequestURL != "" && outcome == string(attemptlog.Solved):
		fmt.Fprintf(env.stdout, "capsule: solved: the tests that show the issue pass; pull request %s\n", res.PullRequestURL)
		return exitOK, nil
	case res.PullRequestURL != "" && outcome == string(attemptlog.Unproven):
		wf.warning(fmt.Sprintf("the tests pass but no test showed the issue: draft pull request %s is unproven", res.PullRequestURL))
		return exitOK, nil
	case res.PullRequestURL != "":
		wf.warning(fmt.Sprintf("the tests do not pass; draft pull request %s holds the best attempt", res.PullRequestURL))
		return exitOK, nil
	}
	wf.error("no attempt passed the tests: " + res.Reason)
	return exitFailure, nil
}

// spent is the tokens (prompt and completion, every role) of log's
// model calls and their cost in US dollars, or "" when it is unknown (no
// prices, or nil log: nothing ran).
func spent(log *attemptlog.Log) (int, string) {
	if log == nil {
		return 0, ""
	}
	s := log.Spent()
	u, cost := s.Tokens(), ""
	if s.Priced {
		cost = strconv.FormatFloat(s.Cost, 'f', 6, 64)
	}
	return u.Prompt + u.Completion, cost
}

// runURL links the workflow run, when the runner says which it is.
func runURL() string {
	server, repo, id := os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_RUN_ID")
	if server == "" || repo == "" || id == "" {
		return ""
	}
	return fmt.Sprintf("%s/%s/actions/runs/%s", strings.TrimSuffix(server, "/"), repo, id)
}
