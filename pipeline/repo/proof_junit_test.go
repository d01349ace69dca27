package repo

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
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
