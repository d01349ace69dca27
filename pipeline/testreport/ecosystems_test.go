//go:build ecosystemimages

// The ecosystem images' tests: each builds nothing and needs its image
// (`make test-images` builds the four, then runs these). They are kept out
// of `make test` by their build tag: a first build of the four images
// takes longer than the whole suite may.

package testreport_test

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/agent"
	"github.com/capsulehq/capsule/sandbox/image"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// ecosystemRun is one run of a tiny project of testdata/ecosystems in
// its Capsule image.
type ecosystemRun struct {
	report *testreport.Report
	exit   int
	output string
	files  []string // the report files the run sent back
}

// runEcosystem runs command on the project in testdata/ecosystems/dir in
// Capsule's image of recipe r through the real sandbox (no network), as
// repo mode's proof runs a test command: the plan of the command, the
// usual report files of its runner, and the results read as the gate
// reads them.
func runEcosystem(t *testing.T, r image.Recipe, dir, command string) ecosystemRun {
	t.Helper()
	eng := sandboxtest.Engine(t)
	ref := sandboxtest.Image(t, eng, r)
	workspace, err := filepath.Abs(filepath.Join("testdata", "ecosystems", dir))
	if err != nil {
		t.Fatal(err)
	}
	spec := sandboxtest.SpecWith(workspace, testreport.HelperFiles())
	spec.Image = ref
	spec.Limits.Timeout = 10 * time.Minute // a cold compile on a busy machine
	ctx := context.Background()
	box, err := eng.NewSession(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	globs, _ := repoconfig.UsualReports(command)
	plan := testreport.NewPlan(command, func(string) bool { return false }).WithReports(globs, "the runner's usual place")
	start := time.Now()
	res, err := box.Run(ctx, sandbox.Run{Cmd: []string{"sh", "-c", plan.Command}, Env: testreport.Env(agent.PluginDir, agent.ChannelSocket),
		TestReport: !plan.GoJSON, ReportFiles: plan.Reports})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s in %s: exit status %d in %s", plan.Command, ref, res.ExitCode, time.Since(start).Round(time.Second))
	rep := plan.Parse(testreport.Output{Channel: res.TestReport, Stdout: res.Stdout, Stderr: res.Stderr, ReportFiles: res.ReportFiles, ReportFilesCut: res.ReportFilesCut}, agent.Workspace)
	return ecosystemRun{report: rep, exit: res.ExitCode, output: string(res.Stdout) + string(res.Stderr), files: sortedKeys(res.ReportFiles)}
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range maps.Keys(m) {
		keys = append(keys, k)
	}
	return keys
}

// check asserts the run's exit status and per-test outcomes, and that its
// report is whole.
func (run ecosystemRun) check(t *testing.T, exit int, want map[string]testreport.Outcome) {
	t.Helper()
	if run.exit != exit {
		t.Errorf("exit status %d, want %d; output:\n%s", run.exit, exit, run.output)
	}
	if got := outcomes(run.report); !maps.Equal(got, want) {
		t.Errorf("outcomes %v, want %v (report files %q); output:\n%s", got, want, run.files, run.output)
	}
	if run.report.Truncated {
		t.Errorf("report truncated")
	}
}

// TestNodeImage runs a Jest project with jest-junit and a Vitest project
// with its junit reporter through `npm test` in the Node image: Jest from
// Debian, Vitest and jest-junit from the image's global modules, the
// per-test results from junit.xml.
func TestNodeImage(t *testing.T) {
	t.Run("jest", func(t *testing.T) {
		run := runEcosystem(t, image.Node, "jest", "npm test")
		run.check(t, 1, map[string]testreport.Outcome{
			"calc.test.js::calc::adds":      testreport.Passed,
			"calc.test.js::calc::subtracts": testreport.Failed,
		})
	})
	t.Run("vitest", func(t *testing.T) {
		run := runEcosystem(t, image.Node, "vitest", "npm test")
		run.check(t, 1, map[string]testreport.Outcome{
			"calc.test.js::calc > adds":      testreport.Passed,
			"calc.test.js::calc > subtracts": testreport.Failed,
		})
	})
}

// TestNodePackageManagers runs the command detection chooses for a
// pnpm project with Vitest and a yarn project with Jest in the Node image:
// pnpm takes the report options after `--` (before it, its test command
// refuses them as its own), yarn as they are (and Yarn 1 runs a project
// whose packageManager names Yarn 4 once told to skip its check), and the JSON report each
// runner writes gives the per-test results.
func TestNodePackageManagers(t *testing.T) {
	for _, tc := range []struct {
		dir, command string
		want         map[string]testreport.Outcome
	}{
		{"pnpm-vitest", "pnpm test -- --reporter=default --reporter=json --outputFile.json=capsule-vitest.json", map[string]testreport.Outcome{
			"calc.test.js::calc::adds": testreport.Passed, "calc.test.js::calc::subtracts": testreport.Failed,
		}},
		{"yarn-jest", "SKIP_YARN_COREPACK_CHECK=0 yarn test --json --outputFile=capsule-jest.json", map[string]testreport.Outcome{
			"calc.test.js::calc::adds": testreport.Passed, "calc.test.js::calc::subtracts": testreport.Failed,
		}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			d, err := repoconfig.DetectTest(filepath.Join("testdata", "ecosystems", tc.dir))
			if err != nil || d.Command != tc.command {
				t.Fatalf("detected %q (%v), want %q", d.Command, err, tc.command)
			}
			run := runEcosystem(t, image.Node, tc.dir, d.Command)
			run.check(t, 1, tc.want)
			if run.report.RunnerWritten != "Jest JSON" {
				t.Errorf("results from %q, want the JSON report", run.report.RunnerWritten)
			}
		})
	}
}

// TestNodeRewrittenReport runs code under test that rewrites Jest's JSON
// report after the run, every test passed, and ends the process with
// status 0: the runner's summary, printed before, still counts the
// failure, so the report cannot be trusted.
func TestNodeRewrittenReport(t *testing.T) {
	run := runEcosystem(t, image.Node, "jest-rewrite", "npm test -- --json --outputFile=capsule-jest.json")
	if run.exit != 0 {
		t.Errorf("exit status %d: the forgery did not run as written; output:\n%s", run.exit, run.output)
	}
	if got := outcomes(run.report); got["calc.test.js::calc::subtracts"] != testreport.Passed {
		t.Errorf("outcomes %v: the report was not rewritten", got)
	}
	if why := run.report.Incomplete(); run.report.Complete() || !strings.Contains(why, "says 2 tests, 1 failed, but its JSON report lists 2, 0 failed") {
		t.Errorf("a rewritten report is trusted (incomplete %q); output:\n%s", why, run.output)
	}
}

// TestRustImage runs `cargo test` on a crate with a dependency in the Rust
// image: cargo resolves it offline from Debian's crates, and libtest's
// lines give the per-test results.
func TestRustImage(t *testing.T) {
	run := runEcosystem(t, image.Rust, "cargo", "cargo test")
	run.check(t, 101, map[string]testreport.Outcome{
		"src/lib.rs::tests::adds":      testreport.Passed,
		"src/lib.rs::tests::subtracts": testreport.Failed,
	})
	if !strings.Contains(run.output, "Compiling once_cell") {
		t.Errorf("once_cell was not built from Debian's crates; output:\n%s", run.output)
	}
}

// TestJavaImage runs `mvn -o test` on a JUnit 5 project in the Java image:
// Maven resolves its plugins and JUnit offline from Debian's repository,
// and Surefire's XML reports give the per-test results.
func TestJavaImage(t *testing.T) {
	run := runEcosystem(t, image.Java, "maven", "mvn -o test")
	run.check(t, 1, map[string]testreport.Outcome{
		"calc.CalcTest::adds":      testreport.Passed,
		"calc.CalcTest::subtracts": testreport.Failed,
	})
}

// TestGoImage runs `go test ./...` (as go test -json) on a module in the Go
// image, with no toolchain download and no module proxy.
func TestGoImage(t *testing.T) {
	run := runEcosystem(t, image.Go, "gomod", "go test ./...")
	run.check(t, 1, map[string]testreport.Outcome{
		"example.com/calc::TestAdd": testreport.Passed,
		"example.com/calc::TestSub": testreport.Failed,
	})
}
