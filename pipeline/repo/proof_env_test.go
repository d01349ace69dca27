package repo

import (
	"context"
	"slices"
	"testing"

	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/agent"
)

// recordingBox records the runs it is asked for and runs nothing.
type recordingBox struct{ runs []sandbox.Run }

func (b *recordingBox) Run(_ context.Context, r sandbox.Run) (sandbox.Result, error) {
	b.runs = append(b.runs, r)
	return sandbox.Result{}, nil
}

func (b *recordingBox) CutNetwork(context.Context) error { return nil }

// A test run gets the report channel and the helpers' environment, the
// set-up's user base, and its number only when the settings ask for it.
func TestRunCommandEnv(t *testing.T) {
	for _, runNumber := range []bool{false, true} {
		box := &recordingBox{}
		p := &proof{plan: testreport.NewPlan("python3 -m pytest", func(string) bool { return false }), runNumber: runNumber}
		if _, err := p.run(context.Background(), box, Plan{}, nil, nil); err != nil {
			t.Fatal(err)
		}
		want := append(testreport.Env(agent.PluginDir, agent.ChannelSocket), testreport.SetupUserBaseEnv+"="+agent.UserBase)
		if runNumber {
			want = append(want, RunNumberEnv+"=1")
		}
		if got := box.runs[0]; !slices.Equal(got.Env, want) || !got.TestReport {
			t.Errorf("runNumber %v: env %q, report %v; want %q and a report", runNumber, got.Env, got.TestReport, want)
		}
	}
}

// The files the gate takes as the attempt's are its overlay's, but the
// reproducing test.
func TestChangedFiles(t *testing.T) {
	files := map[string][]byte{"calc/stats.py": nil, "tests/test_capsule_reproduction.py": nil, "./calc/new.py": nil}
	p := &proof{repro: &edits.Edit{Path: "tests/test_capsule_reproduction.py"}}
	if got := p.changed(files); !slices.Equal(got, []string{"calc/new.py", "calc/stats.py"}) {
		t.Errorf("changed = %q", got)
	}
	if got := (&proof{}).changed(files); len(got) != 3 {
		t.Errorf("without a reproducing test, changed = %q", got)
	}
}
