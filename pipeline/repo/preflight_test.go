package repo_test

import (
	"cmp"
	"context"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// TestStopsBeforeTheModel runs jobs whose tests cannot run at all in the
// real sandbox: each ends after its set-up or baseline with a report and
// no request to the model. A missing module of the repository's own,
// which may be the issue, goes on to the model.
func TestStopsBeforeTheModel(t *testing.T) {
	tests := []struct {
		name    string
		command string
		setup   string
		changes map[string]string
		phase   string // the failure's phase; "" for none: the job goes on
		want    string // in the failure's What
	}{
		{name: "set-up fails", command: "python3 -m pytest -q", setup: "echo installing; exit 3", phase: "set-up", want: "exit status 3"},
		{name: "command not found", command: "nosuchrunner -q", phase: "baseline", want: "`nosuchrunner` was not found (exit status 127)"},
		{name: "no test runner", command: "python3 -m nosuchrunner", phase: "baseline", want: "Python has no module `nosuchrunner`"},
		{name: "nothing collected", command: "python3 -m pytest -q calc", phase: "baseline", want: "nothing was collected (exit status 5)"},
		{name: "a path that is not there", command: "python3 -m pytest -q tests/unit", phase: "baseline", want: "a path that is not there: tests/unit"},
		{name: "a third-party module is missing", command: "python3 -m pytest -q", phase: "baseline",
			changes: map[string]string{"calc/__init__.py": "import capsule_absent_dependency\n"}, want: "Python module `capsule_absent_dependency` is not installed"},
		{name: "the repository's own module is missing", command: "python3 -m pytest -q",
			changes: map[string]string{"calc/__init__.py": "import calc.nothere\n"}},
		// pytest runs no test when a file fails to collect.
		{name: "one test file lacks a third-party module", command: "python3 -m pytest -q", phase: "baseline",
			changes: map[string]string{"tests/test_extra.py": "import capsule_absent_dependency\n"}, want: "`capsule_absent_dependency`"},
		{name: "one test file lacks a third-party module, and the others run", command: "python3 -m pytest -q --continue-on-collection-errors",
			changes: map[string]string{"tests/test_extra.py": "import capsule_absent_dependency\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := issueTask(t, calculator(t, tt.changes))
			task.TestCommand, task.Setup = tt.command, tt.setup
			srv, out := solveScripted(t, task, rightAnswer, rightAnswer)
			env, calls := out.Log.Environment, len(srv.Requests())
			if tt.phase == "" {
				if env != nil || calls == 0 {
					t.Fatalf("the job stopped (%d model calls): %+v", calls, env)
				}
				return
			}
			if env == nil {
				t.Fatalf("the job went on (%d model calls); baseline %+v", calls, out.Log.Baseline)
			}
			if calls != 0 || out.Log.ModelCalls() != 0 {
				t.Errorf("%d requests reached the model, the log counts %d", calls, out.Log.ModelCalls())
			}
			if env.Phase != tt.phase || !strings.Contains(env.What, tt.want) || env.Fix == "" || env.Tail == "" {
				t.Errorf("failure = %+v, want phase %s and %q", env, tt.phase, tt.want)
			}
			if cmd := cmp.Or(tt.setup, tt.command); env.Command != cmd || !strings.Contains(out.Log.Stopped, "Command: "+cmd+"\n") {
				t.Errorf("the report does not name the command %q: %q", cmd, out.Log.Stopped)
			}
			if out.Solved() || out.Log.Reproduction != nil || len(out.Log.Attempts) > 0 {
				t.Errorf("the job ran on: %+v", out.Log)
			}
		})
	}
}

// TestCheck runs the set-up and the baseline alone, as capsule doctor
// --repo does, and records what a job would find.
func TestCheck(t *testing.T) {
	task := issueTask(t, calculator(t, nil))
	task.Setup = "true"
	box, err := sandboxtest.Engine(t).NewSession(context.Background(), sandboxtest.SpecWith(task.Dir, testreport.HelperFiles()))
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	log, err := repo.Check(context.Background(), box, task)
	if err != nil {
		t.Fatal(err)
	}
	if log.Environment != nil || log.Setup == nil || !log.Setup.Passed || log.Baseline == nil || log.Baseline.Tests == 0 || len(log.Baseline.Failing) == 0 {
		t.Fatalf("log = %+v, baseline %+v", log, log.Baseline)
	}
}
