package repo

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/testreport"
)

// Check runs what a job runs before it asks the model anything: the
// set-up, then the tests on the untouched tree (the baseline). The log
// holds both, and Environment when the tests cannot run at all. No model
// is called; capsule doctor --repo prints the result.
func Check(ctx context.Context, box Sandbox, plan Plan) (*attemptlog.Log, error) {
	log := &attemptlog.Log{TaskID: plan.ID, AttemptIndex: -1, TestCommand: plan.TestCommand, TestReason: plan.TestReason, Devcontainer: plan.Devcontainer, Outcome: attemptlog.NotSolved}
	_, _, err := preflight(ctx, box, plan, log)
	return log, err
}

// Check runs Check in a new sandbox session on the plan's tree.
func (x *Sandboxed) Check(ctx context.Context, plan Plan) (*attemptlog.Log, error) {
	box, err := x.session(ctx, plan)
	if err != nil {
		return nil, err
	}
	defer box.Close()
	return Check(ctx, box, plan)
}

// preflight runs the set-up and the baseline. It reports false, with
// log.Environment and log.Stopped set, when the tests cannot run at all
// in the sandbox: the job then ends before any model call.
func preflight(ctx context.Context, box Sandbox, plan Plan, log *attemptlog.Log) (*proof, bool, error) {
	if plan.Setup != "" {
		if ok, err := setup(ctx, box, plan, log); err != nil || !ok {
			return nil, false, err
		}
	}
	pf, err := newProof(ctx, box, plan, log)
	switch {
	case err != nil:
		return nil, false, err
	case log.Environment != nil:
		log.Stopped = log.Environment.Text()
		return nil, false, nil
	}
	return pf, true, nil
}

// setupFailure describes a set-up that failed.
func setupFailure(plan Plan, r *attemptlog.Run) *attemptlog.Environment {
	fix := devcontainerSetupFix(plan, "make the set-up command (`setup:` in .github/capsule.yml) succeed in the image; it has the network only with `network: true`")
	switch {
	case r.TimedOut:
		fix = "make the set-up faster, or give it more time (`timeout:` in .github/capsule.yml, within the operator's maximum)"
	case r.ExitCode == 127:
		fix = "install what the set-up runs, or use an image that has it (`image:` in .github/capsule.yml)"
	}
	return &attemptlog.Environment{Phase: "set-up", What: r.Reason, Command: plan.Setup, Tail: tail(r.Output), Fix: fix}
}

// Patterns of the output of a test command the environment cannot run.
var (
	// notFound is a shell's "command not found": dash's "sh: 1: pytest:
	// not found", bash's "bash: pytest: command not found".
	notFound = regexp.MustCompile(`(?m)^\S*sh: (?:\d+: )?(?:line \d+: )?(\S+): (?:command )?not found\s*$`)
	// noRunner is Python's answer to -m with a module it does not have:
	// "/usr/bin/python3: No module named pytest".
	noRunner = regexp.MustCompile(`(?m)^\S*python[\d.]*: No module named ([\w.]+)\s*$`)
	// missingModule is an import of a module Python cannot find.
	missingModule = regexp.MustCompile(`ModuleNotFoundError: No module named '([\w.]+)'`)
	// noPath is pytest's answer to a path on its command line that is
	// not there.
	noPath = regexp.MustCompile(`(?m)^ERROR: file or directory not found: (.+?)\s*$`)
	// noTests is what pytest and unittest print when they ran no test.
	noTests = regexp.MustCompile(`(?m)\bno tests ran\b|^NO TESTS RAN|^Ran 0 tests\b`)
)

// pytestNoTests is pytest's exit status when it collected no test.
const pytestNoTests = 5

// baselineFailure tells whether the baseline's first run shows that the
// environment cannot run the tests at all, and describes it: no test ran,
// the command failed, and its output says the command was not found, the
// test runner is not installed, nothing was collected, or a module that
// is not the repository's own is missing. An import error of the
// repository's own modules, which may be the issue, is not one. own
// reports whether a top-level module name is the repository's.
func baselineFailure(plan Plan, runner testreport.Runner, tr testRun, own func(string) bool) *attemptlog.Environment {
	res := tr.res
	if res.ExitCode == 0 || res.TimedOut || res.OOMKilled || ranTests(tr.gate.Report) {
		return nil
	}
	out := pipeline.JoinOutput(string(res.Stdout), string(res.Stderr))
	e := &attemptlog.Environment{Phase: "baseline", Command: plan.TestCommand, Tail: tail(out)}
	const install = "install it in the set-up (`setup:` in .github/capsule.yml, with `network: true` to download), or use an image that has it (`image:`)"
	switch {
	case res.ExitCode == 127 || notFound.MatchString(out):
		// A wrapper (npm, make) may pass on another status than the
		// shell's 127.
		what := "a command it runs"
		if m := notFound.FindStringSubmatch(out); m != nil {
			what = "`" + m[1] + "`"
		}
		e.What = fmt.Sprintf("%s was not found (exit status %d)", what, res.ExitCode)
		e.Fix = install + "; or name a test command the image can run (`test:`)"
	case noRunner.MatchString(out):
		e.What = fmt.Sprintf("Python has no module `%s`: the test runner is not installed", noRunner.FindStringSubmatch(out)[1])
		e.Fix = install
	case noPath.MatchString(out):
		e.What = fmt.Sprintf("the test command names a path that is not there: %s (exit status %d)", noPath.FindStringSubmatch(out)[1], res.ExitCode)
		e.Fix = "name the repository's tests in the test command (`test:` in .github/capsule.yml)"
	case nothingCollected(runner, res.ExitCode, tr.gate.Report, out):
		e.What = fmt.Sprintf("the test command ran no test: nothing was collected (exit status %d)", res.ExitCode)
		e.Fix = "point the test command (`test:` in .github/capsule.yml) at the repository's tests, e.g. `python -m pytest tests`, or check the runner's settings (testpaths, python_files)"
	default:
		name := thirdParty(out, tr.gate.Report, own)
		if name == "" {
			return nil
		}
		e.What = fmt.Sprintf("no test could run: Python module `%s` is not installed (ModuleNotFoundError), and it is not part of the repository", name)
		e.Fix = "install the repository's dependencies in the set-up, e.g. `setup: pip install -e .[test]` with `network: true` in .github/capsule.yml, or use an image that has them (`image:`)"
	}
	return e
}

// outcomeCounts counts a report's tests by outcome, and the files it
// could not collect as "collection error"; nil without a report.
func outcomeCounts(rep *testreport.Report) map[string]int {
	if rep == nil {
		return nil
	}
	counts := map[string]int{}
	for _, r := range rep.Tests {
		counts[string(r.Outcome)]++
	}
	if n := len(rep.CollectErrors()); n > 0 {
		counts["collection error"] = n
	}
	return counts
}

// ranTests reports whether a run's report holds any test that ran.
func ranTests(rep *testreport.Report) bool { return rep != nil && len(rep.Tests) > 0 }

// nothingCollected reports whether a run that ran no test collected none:
// pytest's exit status 5, or a runner saying so, or a pytest session of
// the run that ended with it (a command such as make passes on its own
// status).
func nothingCollected(runner testreport.Runner, exitCode int, rep *testreport.Report, out string) bool {
	if exitCode == pytestNoTests && (runner == testreport.PytestRunner || runner == testreport.UnittestRunner) || noTests.MatchString(out) {
		return true
	}
	if rep == nil || len(rep.CollectErrors()) > 0 {
		return false
	}
	return slices.ContainsFunc(rep.Processes, func(p testreport.Process) bool { return p.Ended && p.ExitStatus == pytestNoTests })
}

// thirdParty returns the top-level name of the first module the output or
// the report's collection errors say is missing and own does not claim;
// "" when there is none.
func thirdParty(out string, rep *testreport.Report, own func(string) bool) string {
	texts := []string{out}
	if rep != nil {
		for _, c := range rep.CollectErrors() {
			texts = append(texts, c.Message)
		}
	}
	for _, text := range texts {
		for _, m := range missingModule.FindAllStringSubmatch(text, -1) {
			top, _, _ := strings.Cut(m[1], ".")
			if !own(top) {
				return top
			}
		}
	}
	return ""
}

// skipDirs are directories whose names and files are never the
// repository's own modules.
var skipDirs = []string{"node_modules", "__pycache__", "site-packages", ".git", ".tox", ".nox"}

// maxOwnEntries bounds the walk of ownModules.
const maxOwnEntries = 200_000

// ownModules returns a function that reports whether a top-level module
// name is the repository's own: the name of one of its directories (a
// package, or a namespace package) or Python files, at any depth, since
// the test runner may put any of them on the path. Virtual environments
// and hidden directories are left out. A name it wrongly claims only lets
// the job go on.
func ownModules(dir string) func(string) bool {
	names := map[string]bool{}
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		if n++; n > maxOwnEntries {
			return filepath.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if strings.HasPrefix(name, ".") || slices.Contains(skipDirs, name) || isVenv(p) {
				return filepath.SkipDir
			}
			names[name] = true
			return nil
		}
		if stem, ok := strings.CutSuffix(name, ".py"); ok {
			names[stem] = true
		}
		return nil
	})
	return func(name string) bool { return names[name] }
}

// isVenv reports whether a directory is a virtual environment.
func isVenv(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "pyvenv.cfg"))
	return err == nil
}

// tailLines and tailBytes bound the output's tail in a report.
const (
	tailLines = 20
	tailBytes = 2000
)

// tail is the last lines of a command's output.
func tail(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	t := strings.Join(lines, "\n")
	if len(t) > tailBytes {
		t = strings.ToValidUTF8(t[len(t)-tailBytes:], "")
	}
	return t
}
