package bench_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/bench/report"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// bigCodeBenchStatus is the result of each task's reference solution on
// Debian 12 with Debian's python3 packages, as the dataset ships it.
const bigCodeBenchStatus = "../datasets/bigcodebench/reference-status-debian-bookworm.json"

// stdlibModules returns the names of the standard library's top-level
// modules, as the sandbox image's python3 lists them.
func stdlibModules(t testing.TB, spec sandbox.Spec) map[string]bool {
	t.Helper()
	box, err := sandboxtest.Engine(t).NewSession(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	res, err := box.Run(context.Background(), sandbox.Run{Cmd: []string{"python3", "-c", "import sys; print('\\n'.join(sys.stdlib_module_names))"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("list the standard library: %v, exit %d: %s", err, res.ExitCode, res.Stderr)
	}
	names := map[string]bool{}
	for _, n := range strings.Fields(string(res.Stdout)) {
		names[n] = true
	}
	return names
}

// stdlibOnly returns the problems whose reference solution imports only
// the standard library.
func stdlibOnly(problems []dataset.Problem, stdlib map[string]bool) []dataset.Problem {
	var out []dataset.Problem
	for _, p := range problems {
		if !slices.ContainsFunc(p.Libraries, func(l string) bool { return !stdlib[l] }) {
			out = append(out, p)
		}
	}
	return out
}

// importsOf returns the top-level import statements of code: BigCodeBench's
// tests use the modules the task's code imports.
func importsOf(code string) string {
	var b strings.Builder
	for _, line := range strings.Split(code, "\n") {
		if strings.HasPrefix(line, "import ") || strings.HasPrefix(line, "from ") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// firstTestRe finds the test methods of a TestCases class in source order.
var firstTestRe = regexp.MustCompile(`(?m)^    def (test\w*)\(self`)

// TestBigCodeBenchDefaultImage runs a sample of BigCodeBench's
// standard-library tasks in the default image with a scripted model: on
// some it answers the reference solution (solved at attempt 0), on 50 a
// wrong answer and then the reference (solved at attempt 1, the fix prompt
// carrying the first failing test's unittest traceback). A task whose
// reference needs pandas, which the default image lacks, is an environment
// failure: the model is never asked. Every task whose reference fails in
// the image is listed with a reason, never counted as the model's failure.
func TestBigCodeBenchDefaultImage(t *testing.T) {
	spec := sandboxtest.Spec("")
	set, err := bench.LoadDataset("bigcodebench", dataset.Auto)
	if err != nil {
		t.Fatal(err)
	}
	stdlib := stdlibOnly(set.Problems, stdlibModules(t, spec))
	if len(stdlib) < 300 {
		t.Fatalf("%d standard-library tasks, want about 300", len(stdlib))
	}
	// Every fifth, the first 26 of them: 15 answered right and 11 wrong
	// then right; plus one that needs pandas. (The whole set runs in
	// `make bigcodebench`.)
	var sample []string
	for i := 0; i < len(stdlib) && len(sample) < 26; i += 5 {
		sample = append(sample, stdlib[i].TaskID)
	}
	i := slices.IndexFunc(set.Problems, func(p dataset.Problem) bool { return slices.Contains(p.Libraries, "pandas") })
	needsPandas := set.Problems[i].TaskID
	sample = append(sample, needsPandas)
	wrongFirst := map[string]bool{}
	for _, id := range sample[15:26] {
		wrongFirst[id] = true
	}

	r := runBench(t, "bigcodebench", dataset.Auto, 0, func(p dataset.Problem, fix bool) string {
		if wrongFirst[p.TaskID] && !fix {
			return importsOf(p.Reference) + wrongCode(p.EntryPoint)
		}
		return p.Reference
	}, func(cfg *bench.Config) {
		cfg.Tasks = sample
		cfg.CPUFactor = bench.DefaultCPUFactor
	})

	var status map[string]string
	data, err := os.ReadFile(bigCodeBenchStatus)
	if err != nil || json.Unmarshal(data, &status) != nil {
		t.Fatalf("read %s: %v", bigCodeBenchStatus, err)
	}
	envFailed := map[string]string{}
	for _, f := range r.outcome.Summary.Environment {
		envFailed[f.TaskID] = f.Reason
	}
	if !strings.HasPrefix(envFailed[needsPandas], bench.EnvMissingModule+": pandas") {
		t.Errorf("%s: environment failure %q, want pandas missing", needsPandas, envFailed[needsPandas])
	}
	byID := map[string]report.Result{}
	for _, res := range r.results {
		byID[res.TaskID] = res
		if reason := envFailed[res.TaskID]; reason != "" {
			if res.Solved || res.ModelCalls != 0 || res.Environment != reason {
				t.Errorf("%s: environment failure %q, solved %v, %d model calls", res.TaskID, reason, res.Solved, res.ModelCalls)
			}
			t.Logf("%s: %s (on Debian with every library: %s)", res.TaskID, reason, status[res.TaskID])
			continue
		}
		want := 0
		if wrongFirst[res.TaskID] {
			want = 1
		}
		if !res.Solved || res.AttemptIndex != want {
			t.Errorf("%s: solved %v at attempt %d, want attempt %d (feedback %q)", res.TaskID, res.Solved, res.AttemptIndex, want, res.Feedback)
		}
	}
	for _, req := range r.server.Requests() {
		p := problemOf(req, set.Problems)
		if p == nil {
			t.Fatal("a request carries no known task")
		}
		if envFailed[p.TaskID] != "" {
			t.Errorf("%s: the model was asked, but the sandbox cannot run the task", p.TaskID)
		}
		if len(req.Messages) <= 2 {
			continue
		}
		// The fix prompt frames the first failing test's traceback in
		// unittest's words: the debug tests are the first test method.
		feedback := req.Messages[len(req.Messages)-1].Content
		first := firstTestRe.FindStringSubmatch(p.DebugTests.Source)
		for _, want := range []string{"unittest: Ran 1 test", "Error 1 of ", first[1]} {
			if !strings.Contains(feedback, want) {
				t.Errorf("%s: fix prompt lacks %q:\n%s", p.TaskID, want, feedback)
				break
			}
		}
	}
	s := r.outcome.Summary
	// Some standard-library tasks' tests need pandas, pytz or faker, or
	// the network: at most a quarter of the sample; of the tasks answered
	// wrongly first, at least three quarters are solved by the fix.
	if maxEnv, minFixed := len(sample)/4, 3*len(wrongFirst)/4; len(s.Environment) > maxEnv || s.AttemptHistogram[1] < minFixed {
		t.Errorf("%d environment failures, %d solved at attempt 1; want at most %d and at least %d", len(s.Environment), s.AttemptHistogram[1], maxEnv, minFixed)
	}
	t.Logf("%d tasks: %d solved (%v by attempt), %d environment failures: %v", s.Total, s.Passed, s.AttemptHistogram, len(s.Environment), s.Environment)
	var table strings.Builder
	if err := report.WriteTable(&table, s); err != nil || !strings.Contains(table.String(), needsPandas) {
		t.Errorf("the table does not name %s: %v\n%s", needsPandas, err, table.String())
	}
}
