package gate

import (
	"fmt"
	"slices"
	"testing"

	"github.com/capsulehq/capsule/pipeline/testreport"
)

// The decisions of Check, one at a time.

func TestNewCollectErrors(t *testing.T) {
	b := &Baseline{collectErrors: map[string]bool{"t/old.py": true}}
	tests := []struct {
		name string
		run  Run
		want []string
	}{
		{"none", run("t/a.py::test_a passed"), nil},
		{"one the baseline had", edit(run("t/a.py::test_a passed"), collectError("t/old.py")), nil},
		{"a new one", edit(run("t/a.py::test_a passed"), collectError("t/new.py")), []string{"t/new.py"}},
	}
	for _, tt := range tests {
		var got []string
		for _, e := range newCollectErrors(b, tt.run.Report) {
			got = append(got, e.Path)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestOutcomesOf(t *testing.T) {
	rep := run("t/a.py::test_a passed", "t/a.py::test_b failed").Report
	after := outcomes{rep: rep, collectErrors: []testreport.CollectError{{Path: "t/broken", Message: "SyntaxError"}}}
	tests := []struct {
		id   string
		want Outcome
		msg  string
	}{
		{"t/a.py::test_a", testreport.Passed, ""},
		{"t/a.py::test_b", testreport.Failed, "why t/a.py::test_b"},
		{"t/a.py", testreport.Failed, "why t/a.py::test_b"},
		{"t/broken/test_x.py::test_x", testreport.Error, "could not be collected: SyntaxError"},
		{"t/c.py::test_c", "", ""},
	}
	for _, tt := range tests {
		if got, msg := after.of(id(tt.id)); got != tt.want || (tt.msg != "" && msg != tt.msg) {
			t.Errorf("%s: %q (%q), want %q (%q)", tt.id, got, msg, tt.want, tt.msg)
		}
	}
}

func TestCheckTargets(t *testing.T) {
	after := outcomes{rep: run("t/r.py::test_r passed", "t/r.py::test_s failed").Report}
	tests := []struct {
		name    string
		targets []string
		pass    bool
	}{
		{"none", nil, true},
		{"passing", []string{"t/r.py::test_r"}, true},
		{"one fails", []string{"t/r.py::test_r", "t/r.py::test_s"}, false},
		{"one did not run", []string{"t/r.py::test_r", "t/r.py::test_gone"}, false},
	}
	for _, tt := range tests {
		var targets []Target
		for _, x := range tt.targets {
			targets = append(targets, Target{ID: id(x), Before: testreport.Failed})
		}
		var v Verdict
		isTarget, pass := v.checkTargets(targets, after)
		if pass != tt.pass || len(isTarget) != len(tt.targets) || len(v.Targets) != len(tt.targets) {
			t.Errorf("%s: pass %v, targets %v, recorded %+v; want pass %v", tt.name, pass, isTarget, v.Targets, tt.pass)
		}
	}
}

func TestSortBaseline(t *testing.T) {
	b, err := NewBaseline(run("t/a.py::test_kept passed", "t/a.py::test_broke passed", "t/a.py::test_gone passed",
		"t/a.py::test_old failed", "t/a.py::test_target failed", "t/a.py::test_flaky passed"),
		run("t/a.py::test_kept passed", "t/a.py::test_broke passed", "t/a.py::test_gone passed",
			"t/a.py::test_old failed", "t/a.py::test_target failed", "t/a.py::test_flaky failed"))
	if err != nil {
		t.Fatal(err)
	}
	after := outcomes{rep: run("t/a.py::test_kept passed", "t/a.py::test_broke failed", "t/a.py::test_old failed",
		"t/a.py::test_target passed", "t/a.py::test_flaky failed").Report}
	var v Verdict
	candidates := v.sortBaseline(b, map[ID]bool{id("t/a.py::test_target"): true}, after)
	got := fmt.Sprintf("candidates %v, flaky %v, missing %v, already failing %v, kept %d", names(candidates), v.Flaky, v.Missing, names(v.AlreadyFailing), v.Kept)
	want := fmt.Sprintf("candidates %v, flaky %v, missing %v, already failing %v, kept %d",
		ids("t/a.py::test_broke"), ids("t/a.py::test_flaky"), ids("t/a.py::test_gone"), ids("t/a.py::test_old"), 1)
	if got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
}

func TestDistrustMissing(t *testing.T) {
	tests := []struct {
		name      string
		v         Verdict
		untrusted bool
	}{
		{"nothing missing", Verdict{}, false},
		{"missing", Verdict{Missing: ids("t/a.py::test_a")}, true},
		{"missing, the run stopped", Verdict{Missing: ids("t/a.py::test_a"), Stopped: "-x"}, false},
		{"missing, a file not collected", Verdict{Missing: ids("t/a.py::test_a"), CollectErrors: []testreport.CollectError{{Path: "t/a.py"}}}, false},
		{"missing, already untrusted", Verdict{Missing: ids("t/a.py::test_a"), Untrusted: "forged"}, true},
	}
	for _, tt := range tests {
		tt.v.distrustMissing()
		if (tt.v.Untrusted != "") != tt.untrusted {
			t.Errorf("%s: untrusted %q, want %v", tt.name, tt.v.Untrusted, tt.untrusted)
		}
	}
}

func TestSettle(t *testing.T) {
	candidates := []Change{{ID: id("t/a.py::test_a"), Before: testreport.Passed, After: testreport.Failed},
		{ID: id("t/b.py::test_b"), Before: testreport.Passed, After: testreport.Failed}}
	rerun := run("t/a.py::test_a passed", "t/b.py::test_b failed")
	forged := edit(run("t/a.py::test_a passed", "t/b.py::test_b passed"), func(r *Run) { r.ExitCode = 3 })
	tests := []struct {
		name                      string
		v                         Verdict
		rerun                     *Run
		targetsPass               bool
		regressions, flaky, again []ID
	}{
		{"first call", Verdict{}, nil, true, ids("t/a.py::test_a", "t/b.py::test_b"), nil, ids("t/a.py::test_a", "t/b.py::test_b")},
		{"first call, targets fail", Verdict{}, nil, false, ids("t/a.py::test_a", "t/b.py::test_b"), nil, nil},
		{"first call, tampered", Verdict{Tampered: []Finding{{Kind: KindAudit}}}, nil, true, ids("t/a.py::test_a", "t/b.py::test_b"), nil, nil},
		{"rerun", Verdict{}, &rerun, true, ids("t/b.py::test_b"), ids("t/a.py::test_a"), nil},
		{"untrusted rerun", Verdict{}, &forged, true, ids("t/a.py::test_a", "t/b.py::test_b"), nil, nil},
	}
	for _, tt := range tests {
		tt.v.settle(candidates, tt.rerun, tt.targetsPass)
		if !slices.Equal(names(tt.v.Regressions), tt.regressions) || !slices.Equal(tt.v.Flaky, tt.flaky) || !slices.Equal(tt.v.Rerun, tt.again) {
			t.Errorf("%s: regressions %v, flaky %v, rerun %v; want %v, %v, %v", tt.name, names(tt.v.Regressions), tt.v.Flaky, tt.v.Rerun, tt.regressions, tt.flaky, tt.again)
		}
	}
}

func TestClean(t *testing.T) {
	tests := []struct {
		name string
		v    Verdict
		want bool
	}{
		{"clean", Verdict{Regressions: []Change{{}}}, true},
		{"untrusted", Verdict{Untrusted: "forged"}, false},
		{"missing", Verdict{Missing: ids("t/a.py::test_a")}, false},
		{"not collected", Verdict{CollectErrors: []testreport.CollectError{{Path: "t"}}}, false},
		{"tampered", Verdict{Tampered: []Finding{{Kind: KindAudit}}}, false},
	}
	for _, tt := range tests {
		if got := tt.v.clean(); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
