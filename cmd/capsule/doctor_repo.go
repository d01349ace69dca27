package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
)

// doctorRepo runs what a job runs on a local checkout before it asks the
// model anything (the set-up, then the tests on the untouched tree) and
// prints what it found. It exits 0 when a job would go on to the model,
// 1 when the tests cannot run in the sandbox.
func doctorRepo(ctx context.Context, env *environment, dir string) int {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		fmt.Fprintf(env.stderr, "capsule doctor: repository %s is not a directory\n", dir)
		return exitUsage
	}
	var limits operatorLimits
	if err := limits.fromEnv(); err != nil {
		return fail(env, err)
	}
	cfg, err := repoconfig.Load(dir)
	if err != nil {
		return fail(env, fmt.Errorf("%w: %w", errUsage, err))
	}
	plan, err := repo.NewPlan(repo.Task{ID: "doctor", Dir: dir, Config: cfg}, repo.NoOverrides(), limits.max)
	if err != nil {
		return fail(env, fmt.Errorf("%w: %w", errUsage, err))
	}
	eng, err := openEngine(ctx, env, plan.Image)
	if err != nil {
		return fail(env, err)
	}
	defer eng.Close()
	x := repo.Sandboxed{Engine: eng}
	log, err := x.Check(ctx, plan)
	if err != nil {
		return fail(env, err)
	}
	writeRepoCheck(env.stdout, dir, plan, log)
	if log.Environment != nil {
		return exitFailure
	}
	return exitOK
}

// writeRepoCheck prints what a job would find before any model call: the
// test command and why, the set-up's result, the baseline's counts, and
// the failure of the environment if any.
func writeRepoCheck(w io.Writer, dir string, plan repo.Plan, log *attemptlog.Log) {
	line := func(name, format string, args ...any) {
		fmt.Fprintf(w, "%-13s %s\n", name, fmt.Sprintf(format, args...))
	}
	more := func(format string, args ...any) { line("", format, args...) }
	line("repository", "%s", dir)
	line("test command", "%s (%s)", plan.TestCommand, plan.TestReason)
	line("image", "%s (%s)", plan.Image, plan.ImageReason)
	if d := plan.Devcontainer; d != nil {
		for i, l := range d.Lines() {
			if i == 0 {
				line("devcontainer", "%s", l)
			} else {
				more("%s", l)
			}
		}
	}
	switch s := log.Setup; {
	case s == nil:
		line("set-up", "none")
	case s.Passed:
		line("set-up", "passed: %s", plan.Setup)
	default:
		line("set-up", "failed (%s): %s", s.Reason, plan.Setup)
	}
	if b := log.Baseline; b != nil {
		first := b.Runs[0]
		line("baseline", "%s: %s", runOutcome(first), baselineCounts(b.Outcomes))
		if log.Environment == nil {
			more("%s", b.Plan)
			if b.Fallback != "" {
				more("%s", b.Fallback)
			}
			if len(b.Failing) > 0 {
				more("already failing: %s", strings.Join(b.Failing, ", "))
			}
			if len(b.Flaky) > 0 {
				more("flaky: %s", strings.Join(b.Flaky, ", "))
			}
		}
	}
	e := log.Environment
	if e == nil {
		line("environment", "ok: a job would go on to the model")
		return
	}
	line("environment", "FAIL: the %s failed: %s", e.Phase, e.What)
	more("command: %s", e.Command)
	more("fix: %s", e.Fix)
	if e.Tail != "" {
		more("the output's last lines:")
		for _, l := range strings.Split(e.Tail, "\n") {
			more("  %s", l)
		}
	}
	more("a job would stop here, before any model call")
}

// runOutcome says how a run ended: passed, or its reason.
func runOutcome(r *attemptlog.Run) string {
	if r.Passed {
		return "passed"
	}
	return r.Reason
}

// baselineCounts formats a baseline's counts by outcome, the usual ones
// first: "6 passed, 1 failed, 0 errors".
func baselineCounts(counts map[string]int) string {
	if counts == nil {
		return "no per-test report"
	}
	if len(counts) == 0 {
		return "no test ran"
	}
	parts := []string{fmt.Sprintf("%d passed, %d failed, %d errors", counts["passed"], counts["failed"], counts["error"])}
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if k != "passed" && k != "failed" && k != "error" {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	return strings.Join(parts, ", ")
}
