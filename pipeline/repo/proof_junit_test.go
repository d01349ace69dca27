package repo

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/agent"
)

// surefireBox answers every run with one Surefire report file.
type surefireBox struct{ recordingBox }

func (b *surefireBox) Run(ctx context.Context, r sandbox.Run) (sandbox.Result, error) {
	b.recordingBox.Run(ctx, r)
	return sandbox.Result{ExitCode: 1, ReportFiles: map[string][]byte{
		"target/surefire-reports/TEST-a.CalcTest.xml": []byte(`<testsuite name="a.CalcTest"><testcase classname="a.CalcTest" name="add"><failure message="1 != 2"/></testcase><testcase classname="a.CalcTest" name="sub"/></testsuite>`),
	}}, nil
}

// A Maven run asks the sandbox for Surefire's reports where Surefire
// writes them, and its per-test results are theirs, named as written by
// the runner.
func TestRunReadsJUnitReports(t *testing.T) {
	const command = "mvn -o test"
	globs, why := repoconfig.Default().ReportGlobs(command)
	p := &proof{plan: testreport.NewPlan(command, func(string) bool { return false }).WithReports(globs, why)}
	box := &surefireBox{}
	run, err := p.run(context.Background(), box, Plan{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := box.runs[0].ReportFiles; !slices.Equal(got, []string{"**/target/surefire-reports/TEST-*.xml"}) {
		t.Errorf("asked for report files %q", got)
	}
	rep := run.gate.Report
	add := rep.Tests[testreport.ID{File: "a.CalcTest", Name: "add"}]
	if len(rep.Tests) != 2 || add.Outcome != testreport.Failed || run.gate.Untrusted() != "" {
		t.Errorf("report %+v, untrusted %q", rep.Tests, run.gate.Untrusted())
	}
	if got := observedPlan(command, rep); !strings.Contains(got, "runner-written report") {
		t.Errorf("observed plan %q does not name the weaker level", got)
	}
	// Maven's tests cannot be named to pytest: a rerun and the targets
	// run the whole command.
	ids := []testreport.ID{{File: "a.CalcTest", Name: "add"}}
	if _, err := p.rerun(context.Background(), box, Plan{}, nil, nil, ids); err != nil {
		t.Fatal(err)
	}
	if _, err := p.runTargets(context.Background(), box, Plan{}, nil, nil, "", ids); err != nil {
		t.Fatal(err)
	}
	for i, r := range box.runs {
		if !slices.Equal(r.Cmd, []string{"sh", "-c", command}) {
			t.Errorf("run %d: %q, want the whole command", i+1, r.Cmd)
		}
	}
}

// fixedBox answers every run with the same result.
type fixedBox struct {
	recordingBox
	res sandbox.Result
}

func (b *fixedBox) Run(ctx context.Context, r sandbox.Run) (sandbox.Result, error) {
	b.recordingBox.Run(ctx, r)
	return b.res, nil
}

// A cargo test run is read from libtest's output and cargo's names of
// the test binaries, a Jest run from the JSON report detection asks for;
// both run whole, and a cut output cannot be trusted.
func TestRunReadsNativeReports(t *testing.T) {
	const libtest = "\nrunning 2 tests\ntest tests::add ... FAILED\ntest tests::sub ... ok\n\n" +
		"test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n"
	const cargoErr = "     Running unittests src/lib.rs (target/debug/deps/calc-0123456789abcdef)\nerror: 1 target failed\n"
	jest := `{"numTotalTests": 2, "numPassedTests": 1, "numFailedTests": 1, "numPendingTests": 0, "numTodoTests": 0, "success": false,
 "testResults": [{"name": "` + agent.Workspace + `/src/calc.test.js", "status": "failed", "assertionResults": [
  {"ancestorTitles": ["calc"], "title": "add", "status": "failed", "failureMessages": ["Expected: 3"]},
  {"ancestorTitles": ["calc"], "title": "sub", "status": "passed", "failureMessages": []}]}]}`
	for _, tc := range []struct {
		name, command, runs string
		res                 sandbox.Result
		add                 testreport.ID
		untrusted           string
	}{
		{"cargo test", "cargo test", "cargo test --no-fail-fast",
			sandbox.Result{ExitCode: 101, Stdout: []byte(libtest), Stderr: []byte(cargoErr), StdoutBytes: int64(len(libtest)), StderrBytes: int64(len(cargoErr))},
			testreport.ID{File: "src/lib.rs", Name: "tests::add"}, ""},
		{"cargo test with its standard error cut", "cargo test", "cargo test --no-fail-fast",
			sandbox.Result{ExitCode: 101, Stdout: []byte(libtest), Stderr: []byte(cargoErr), StdoutBytes: int64(len(libtest)), StderrBytes: 5 << 20},
			testreport.ID{File: "src/lib.rs", Name: "tests::add"}, "the test report is longer than"},
		{"jest", "npm test -- --json --outputFile=capsule-jest.json", "npm test -- --json --outputFile=capsule-jest.json",
			sandbox.Result{ExitCode: 1, ReportFiles: map[string][]byte{"capsule-jest.json": []byte(jest)}},
			testreport.ID{File: "src/calc.test.js", Class: "calc", Name: "add"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			globs, why := repoconfig.Default().ReportGlobs(tc.command)
			p := &proof{plan: testreport.NewPlan(tc.command, func(string) bool { return false }).WithReports(globs, why)}
			box := &fixedBox{res: tc.res}
			run, err := p.run(context.Background(), box, Plan{}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			rep := run.gate.Report
			if got := rep.Tests[tc.add].Outcome; got != testreport.Failed || len(rep.Tests) != 2 {
				t.Errorf("report %+v", rep.Tests)
			}
			if got := run.gate.Untrusted(); tc.untrusted == "" && got != "" || !strings.Contains(got, tc.untrusted) {
				t.Errorf("untrusted %q, want %q", got, tc.untrusted)
			}
			if _, err := p.rerun(context.Background(), box, Plan{}, nil, nil, []testreport.ID{tc.add}); err != nil {
				t.Fatal(err)
			}
			for i, r := range box.runs {
				if !slices.Equal(r.Cmd, []string{"sh", "-c", tc.runs}) {
					t.Errorf("run %d: %q, want %q", i+1, r.Cmd, tc.runs)
				}
			}
		})
	}
}
