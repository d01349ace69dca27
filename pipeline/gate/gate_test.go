package gate

import (
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// id reads "file::name" as an identity.
func id(s string) ID {
	file, name, _ := strings.Cut(s, "::")
	return ID{File: file, Name: name}
}

// run builds a complete one-process run from "file::name outcome" pairs;
// its exit status is 1 when a test fails, as pytest's would be.
func run(results ...string) Run {
	rep := &testreport.Report{Tests: map[ID]testreport.Result{}}
	p := testreport.Process{Name: "pid 1", PID: 1, Ended: true, Tripwire: true}
	for _, r := range results {
		name, outcome, _ := strings.Cut(r, " ")
		o := testreport.Outcome(outcome)
		res := testreport.Result{ID: id(name), Outcome: o}
		if !o.Passing() {
			res.Message = "why " + name
		}
		rep.Tests[res.ID] = res
		if o.Failing() {
			p.ExitStatus = 1
			p.Failing++
		}
	}
	rep.Processes = []testreport.Process{p}
	return Run{Report: rep, ExitCode: p.ExitStatus, Plain: true}
}

// edit returns r after f changed its report.
func edit(r Run, f func(*Run)) Run { f(&r); return r }

func collectError(path string) func(*Run) {
	return func(r *Run) {
		r.Report.Processes[0].CollectErrors = []testreport.CollectError{{Path: path, Message: "ImportError: no calc"}}
		r.Report.Processes[0].ExitStatus, r.ExitCode = 2, 2
	}
}

func ids(s ...string) []ID {
	out := make([]ID, len(s))
	for i, x := range s {
		out[i] = id(x)
	}
	return out
}

func names(changes []Change) []ID {
	out := make([]ID, len(changes))
	for i, c := range changes {
		out[i] = c.ID
	}
	return out
}

func TestCheck(t *testing.T) {
	base := run("t/a.py::test_a passed", "t/a.py::test_b passed", "t/b.py::test_c passed", "t/n.py::test_net failed", "t/s.py::test_skip skipped")
	repro := []Target{{ID: id("t/r.py::test_repro"), Before: testreport.Failed}}
	fixed := func(more ...string) Run {
		return run(slices.Concat([]string{"t/a.py::test_a passed", "t/a.py::test_b passed", "t/b.py::test_c passed",
			"t/n.py::test_net failed", "t/s.py::test_skip skipped", "t/r.py::test_repro passed"}, more)...)
	}
	swap := func(r Run, result string) Run {
		name, outcome, _ := strings.Cut(result, " ")
		res := r.Report.Tests[id(name)]
		res.ID, res.Outcome, res.Message = id(name), testreport.Outcome(outcome), "why "+name
		r.Report.Tests[res.ID] = res
		if res.Outcome.Failing() {
			r.Report.Processes[0].ExitStatus, r.ExitCode = 1, 1
			r.Report.Processes[0].Failing++
		}
		return r
	}
	drop := func(r Run, name string) Run { delete(r.Report.Tests, id(name)); return r }

	for _, tc := range []struct {
		name     string
		baseline []Run
		targets  []Target
		run      Run
		rerun    *Run
		// what the verdict must hold
		passed, proven               bool
		untrusted                    string
		regressions, rerunIDs, flaky []ID
		missing, alreadyFailing      []ID
		targetAfter                  Outcome
		kept                         int
		feedback                     string // a substring of the first feedback line
	}{
		{
			name: "a no-op leaves the reproducing test failing", baseline: []Run{base}, targets: repro,
			run:         swap(fixed(), "t/r.py::test_repro failed"),
			targetAfter: testreport.Failed, kept: 3, alreadyFailing: ids("t/n.py::test_net"),
			feedback: "`t/r.py::test_repro` shows the issue and fails now: why t/r.py::test_repro",
		},
		{
			name: "the right fix", baseline: []Run{base}, targets: repro, run: fixed(),
			passed: true, proven: true, targetAfter: testreport.Passed, kept: 3, alreadyFailing: ids("t/n.py::test_net"),
		},
		{
			name: "passing without a target is unproven", baseline: []Run{base}, run: fixed(),
			passed: true, kept: 3, alreadyFailing: ids("t/n.py::test_net"),
		},
		{
			name: "a regression asks for a rerun first", baseline: []Run{base}, targets: repro,
			run:         swap(fixed(), "t/a.py::test_b failed"),
			targetAfter: testreport.Passed, kept: 2, alreadyFailing: ids("t/n.py::test_net"),
			regressions: ids("t/a.py::test_b"), rerunIDs: ids("t/a.py::test_b"),
			feedback: "`t/a.py::test_b` passed before your change and fails now: why t/a.py::test_b",
		},
		{
			name: "a regression the rerun confirms", baseline: []Run{base}, targets: repro,
			run: swap(fixed(), "t/a.py::test_b failed"), rerun: ptr(swap(fixed(), "t/a.py::test_b error")),
			targetAfter: testreport.Passed, kept: 2, alreadyFailing: ids("t/n.py::test_net"), regressions: ids("t/a.py::test_b"),
			feedback: "`t/a.py::test_b` passed before your change and fails now",
		},
		{
			name: "a regression the rerun clears is flaky", baseline: []Run{base}, targets: repro,
			run: swap(fixed(), "t/a.py::test_b failed"), rerun: ptr(fixed()),
			passed: true, proven: true, targetAfter: testreport.Passed, kept: 2,
			alreadyFailing: ids("t/n.py::test_net"), flaky: ids("t/a.py::test_b"),
		},
		{
			name: "a rerun that cannot be trusted clears nothing", baseline: []Run{base}, targets: repro,
			run:         swap(fixed(), "t/a.py::test_b failed"),
			rerun:       ptr(edit(fixed(), func(r *Run) { r.Report.Processes[0].Ended = false })),
			targetAfter: testreport.Passed, kept: 2, alreadyFailing: ids("t/n.py::test_net"), regressions: ids("t/a.py::test_b"),
		},
		{
			name: "no rerun while a target fails", baseline: []Run{base}, targets: repro,
			run:         swap(swap(fixed(), "t/a.py::test_b failed"), "t/r.py::test_repro failed"),
			targetAfter: testreport.Failed, kept: 2, alreadyFailing: ids("t/n.py::test_net"), regressions: ids("t/a.py::test_b"),
			feedback: "`t/r.py::test_repro` shows the issue",
		},
		{
			name: "a skip of a test that passed is a regression", baseline: []Run{base},
			run: swap(fixed(), "t/a.py::test_a skipped"), kept: 2, alreadyFailing: ids("t/n.py::test_net"),
			regressions: ids("t/a.py::test_a"), rerunIDs: ids("t/a.py::test_a"),
			feedback: "`t/a.py::test_a` passed before your change and is skipped now",
		},
		{
			name: "already failing and flaky tests never block", baseline: []Run{base, swap(run(
				"t/a.py::test_a passed", "t/a.py::test_b passed", "t/b.py::test_c passed", "t/n.py::test_net failed", "t/s.py::test_skip skipped"),
				"t/b.py::test_c failed")},
			targets: repro, run: swap(swap(fixed(), "t/b.py::test_c failed"), "t/n.py::test_net error"),
			passed: true, proven: true, targetAfter: testreport.Passed, kept: 2,
			alreadyFailing: ids("t/n.py::test_net"), flaky: ids("t/b.py::test_c"),
		},
		{
			name: "a test missing for no reason: the run cannot be trusted", baseline: []Run{base}, targets: repro,
			run:         drop(fixed(), "t/b.py::test_c"),
			targetAfter: testreport.Passed, kept: 2, alreadyFailing: ids("t/n.py::test_net"), missing: ids("t/b.py::test_c"),
			untrusted: "the report lacks 1 test the baseline ran, such as t/b.py::test_c",
			feedback:  "The test run cannot be trusted: the report lacks 1 test the baseline ran, such as t/b.py::test_c.",
		},
		{
			name: "tests missing after a collection error", baseline: []Run{base}, targets: repro,
			run:         edit(drop(drop(drop(fixed(), "t/a.py::test_a"), "t/a.py::test_b"), "t/b.py::test_c"), collectError("t/a.py")),
			targetAfter: testreport.Passed, alreadyFailing: ids("t/n.py::test_net"),
			regressions: ids("t/a.py::test_a", "t/a.py::test_b"), missing: ids("t/b.py::test_c"),
			feedback: "`t/a.py::test_a` passed before your change and errors now: could not be collected: ImportError: no calc",
		},
		{
			name: "a target in a file that cannot be collected", baseline: []Run{base}, targets: repro,
			run:         edit(drop(fixed(), "t/r.py::test_repro"), collectError("t")),
			targetAfter: testreport.Error, kept: 3, alreadyFailing: ids("t/n.py::test_net"),
			feedback: "`t/r.py::test_repro` shows the issue and errors now: could not be collected",
		},
		{
			name: "a session stopped early (-x)", baseline: []Run{base}, targets: repro,
			run: edit(drop(swap(fixed(), "t/a.py::test_b failed"), "t/b.py::test_c"), func(r *Run) {
				r.Report.Processes[0].Stopped = "stopping after 1 failures"
			}),
			targetAfter: testreport.Passed, kept: 1, alreadyFailing: ids("t/n.py::test_net"),
			regressions: ids("t/a.py::test_b"), missing: ids("t/b.py::test_c"),
		},
		{
			name: "an exit status the report does not explain", baseline: []Run{base},
			run: edit(run("t/a.py::test_a passed", "t/a.py::test_b passed", "t/b.py::test_c passed", "t/n.py::test_net passed", "t/s.py::test_skip skipped"),
				func(r *Run) { r.ExitCode = 3 }),
			kept: 3, alreadyFailing: ids("t/n.py::test_net"),
			untrusted: "the command exited with status 3, but its test report shows no failure",
			feedback:  "The test run cannot be trusted: the command exited with status 3",
		},
		{
			name: "an unfinished process", baseline: []Run{base}, targets: repro,
			run:         edit(fixed(), func(r *Run) { r.Report.Processes[0].Ended = false }),
			targetAfter: testreport.Passed, kept: 3, alreadyFailing: ids("t/n.py::test_net"),
			untrusted: "1 of 1 test processes ended without finishing their session (pid 1)",
		},
		{
			name: "no report at all", baseline: []Run{base}, targets: repro, run: Run{},
			alreadyFailing: nil, missing: ids("t/a.py::test_a", "t/a.py::test_b", "t/b.py::test_c", "t/n.py::test_net", "t/s.py::test_skip"),
			untrusted: "no test process wrote a per-test report",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewBaseline(tc.baseline...)
			if err != nil {
				t.Fatal(err)
			}
			v := Check(b, tc.targets, tc.run, tc.rerun, nil)
			if v.Passed != tc.passed || v.Proven() != tc.proven || v.Untrusted != tc.untrusted || v.Kept != tc.kept {
				t.Errorf("passed %v proven %v untrusted %q kept %d; want %v %v %q %d",
					v.Passed, v.Proven(), v.Untrusted, v.Kept, tc.passed, tc.proven, tc.untrusted, tc.kept)
			}
			for _, c := range []struct {
				what      string
				got, want []ID
			}{
				{"regressions", names(v.Regressions), tc.regressions}, {"rerun", v.Rerun, tc.rerunIDs},
				{"flaky", v.Flaky, tc.flaky}, {"missing", v.Missing, tc.missing},
				{"already failing", names(v.AlreadyFailing), tc.alreadyFailing},
			} {
				if len(c.got) != len(c.want) || !slices.Equal(c.got, c.want) {
					t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
				}
			}
			if len(tc.targets) > 0 && v.Targets[0].After != tc.targetAfter {
				t.Errorf("target after = %q, want %q", v.Targets[0].After, tc.targetAfter)
			}
			fb := v.Feedback()
			if (fb == "") != v.Passed {
				t.Errorf("feedback %q for passed = %v", fb, v.Passed)
			}
			if first, _, _ := strings.Cut(fb, "\n"); !strings.Contains(first, tc.feedback) {
				t.Errorf("feedback starts %q, want %q in it:\n%s", first, tc.feedback, fb)
			}
		})
	}
}

func ptr[T any](x T) *T { return &x }

func TestNewBaseline(t *testing.T) {
	if _, err := NewBaseline(); err == nil {
		t.Error("a baseline without runs")
	}
	unfinished := edit(run("t.py::test_a passed"), func(r *Run) { r.Report.Processes[0].Ended = false })
	if _, err := NewBaseline(run("t.py::test_a passed"), unfinished); err == nil || !strings.Contains(err.Error(), "run 2 cannot be trusted") {
		t.Errorf("err = %v", err)
	}
	b, err := NewBaseline(
		run("t.py::test_a passed", "t.py::test_b failed", "t.py::test_c skipped", "t.py::test_d passed", "t.py::test_e xfailed"),
		run("t.py::test_a xpassed", "t.py::test_b error", "t.py::test_c passed", "t.py::test_f passed", "t.py::test_e skipped"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.Flaky(), ids("t.py::test_c", "t.py::test_d", "t.py::test_f"); !slices.Equal(got, want) {
		t.Errorf("flaky = %v, want %v", got, want)
	}
	if got, want := b.Failing(), ids("t.py::test_b"); !slices.Equal(got, want) {
		t.Errorf("failing = %v, want %v", got, want)
	}
	if b.Len() != 6 {
		t.Errorf("Len() = %d", b.Len())
	}
	if got := b.Targets(id("t.py::test_b"), id("t.py::test_new")); got[0].Before != testreport.Failed || got[1].Before != "" {
		t.Errorf("targets = %+v", got)
	}
}

func TestNamed(t *testing.T) {
	base := run("tests/test_stats.py::test_mean passed", "tests/test_stats.py::test_mean_empty failed",
		"tests/test_ops.py::test_net failed", "tests/test_ops.py::test_add passed", "tests/test_other.py::test_x failed")
	param := ID{File: "tests/test_stats.py", Class: "TestMedian", Name: "test_median", Params: "empty"}
	base.Report.Tests[param] = testreport.Result{ID: param, Outcome: testreport.Error}
	b, err := NewBaseline(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		names []string
		want  []ID
	}{
		{[]string{"tests/test_stats.py"}, []ID{id("tests/test_stats.py::test_mean_empty"), param}},
		{[]string{"tests/test_stats.py::test_mean_empty", "tests/test_ops.py::test_add"}, ids("tests/test_stats.py::test_mean_empty")},
		{[]string{"tests/test_stats.py::TestMedian"}, []ID{param}},
		{[]string{"tests/test_stats.py::TestMedian::test_median"}, []ID{param}},
		{[]string{"tests/test_stats.py::test_mean"}, nil},
		{[]string{"tests/test_stat"}, nil},
		{nil, nil},
	} {
		var got []ID
		for _, target := range b.Named(tc.names...) {
			got = append(got, target.ID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Named(%q) = %v, want %v", tc.names, got, tc.want)
		}
	}
}

func TestReproduction(t *testing.T) {
	py := TestFile{Path: "tests/test_issue_7.py"}
	const file = "tests/test_issue_7.py"
	gofile := TestFile{Path: "stats/capsule_reproduction_test.go", Package: "example.com/calc/stats", Tests: []string{"TestMeanEmpty", "TestMeanOne"}}
	const pkg = "example.com/calc/stats"
	// A workspace member's integration test: cargo names its binary by
	// its path in its crate.
	rsfile := TestFile{Path: "crates/calc/tests/capsule_reproduction.rs", Binary: "tests/capsule_reproduction.rs"}
	const bin = "tests/capsule_reproduction.rs"
	javafile := TestFile{Path: "src/test/java/calc/CapsuleReproductionTest.java", Suite: "calc.CapsuleReproductionTest"}
	const class = "calc.CapsuleReproductionTest"
	for _, tc := range []struct {
		name    string
		file    TestFile
		run     Run
		targets []ID
		problem string
	}{
		{"fails", py, run(file+"::test_a failed", file+"::test_b passed", "t.py::test_x failed"), ids(file + "::test_a"), ""},
		{"passes", py, run(file + "::test_a passed"), nil, "the tests of tests/test_issue_7.py pass on the untouched tree: they reproduce nothing"},
		{"errors", py, edit(run(file+"::test_a error", file+"::test_b failed"), func(r *Run) {
			res := r.Report.Tests[id(file+"::test_a")]
			res.Phase = "setup"
			r.Report.Tests[res.ID] = res
		}), nil, "tests/test_issue_7.py::test_a errors in setup before the test runs: why tests/test_issue_7.py::test_a"},
		{"not collected", py, edit(run("t.py::test_x passed"), collectError(file)), nil, "tests/test_issue_7.py could not be collected: ImportError: no calc"},
		{"skipped", py, run(file + "::test_a skipped"), nil, "no test of tests/test_issue_7.py ran"},
		{"untrusted", py, Run{}, nil, "the run of the reproducing test cannot be trusted: no test process wrote a per-test report"},
		// A Go file's tests are its package's tests of the names it
		// declares, subtests included; the package's other tests are not.
		{"go fails", gofile, run(pkg+"::TestMeanEmpty failed", pkg+"::TestMeanEmpty/nil failed", pkg+"::TestMeanOne passed", pkg+"::TestSum failed"),
			ids(pkg+"::TestMeanEmpty", pkg+"::TestMeanEmpty/nil"), ""},
		{"go passes", gofile, run(pkg+"::TestMeanEmpty passed", pkg+"::TestSum failed"), nil,
			"the tests of stats/capsule_reproduction_test.go pass on the untouched tree: they reproduce nothing"},
		{"go other package", gofile, run("example.com/calc::TestMeanEmpty failed"), nil, "no test of stats/capsule_reproduction_test.go ran"},
		{"go build fails", gofile, edit(run("example.com/calc::TestX passed"), collectError(pkg)), nil,
			"stats/capsule_reproduction_test.go could not be collected: ImportError: no calc"},
		{"rust fails", rsfile, run(bin+"::jaro_counts_transpositions failed", "src/lib.rs::jaro_diff passed", "crates/calc/tests/capsule_reproduction.rs::x failed"),
			ids(bin + "::jaro_counts_transpositions"), ""},
		{"rust passes", rsfile, run(bin + "::jaro_counts_transpositions passed"), nil,
			"the tests of crates/calc/tests/capsule_reproduction.rs pass on the untouched tree: they reproduce nothing"},
		{"rust does not compile", rsfile, edit(run("src/lib.rs::jaro_diff passed"), collectError(bin)), nil,
			"crates/calc/tests/capsule_reproduction.rs could not be collected: ImportError: no calc"},
		// A JUnit class's tests are those Surefire's report files under
		// its name, its nested classes' included; a class named alike in
		// another package is not its.
		{"junit fails", javafile, run(class+"::adds failed", class+"::"+class+"$Empty::mean failed", class+"::subtracts passed", "calc.CalcTest::adds failed"),
			ids(class+"::adds", class+"::"+class+"$Empty::mean"), ""},
		{"junit passes", javafile, run(class+"::adds passed", "calc.CalcTest::adds failed"), nil,
			"the tests of src/test/java/calc/CapsuleReproductionTest.java pass on the untouched tree: they reproduce nothing"},
		{"junit other package", javafile, run("other.CapsuleReproductionTest::adds failed"), nil, "no test of src/test/java/calc/CapsuleReproductionTest.java ran"},
		{"junit class errors", javafile, edit(run("calc.CalcTest::adds passed"), collectError(class)), nil,
			"src/test/java/calc/CapsuleReproductionTest.java could not be collected: ImportError: no calc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			targets, problem := Reproduction(tc.run, tc.file, "")
			var got []ID
			for _, target := range targets {
				got = append(got, target.ID)
				if target.Before != testreport.Failed {
					t.Errorf("target %v before = %q", target.ID, target.Before)
				}
			}
			if !slices.Equal(got, tc.targets) || problem != tc.problem {
				t.Errorf("Reproduction = %v, %q; want %v, %q", got, problem, tc.targets, tc.problem)
			}
		})
	}
}

// TestRender checks the feedback and the proof table of a verdict with
// every part, and of one without a target, against golden files.
func TestRender(t *testing.T) {
	base := run("tests/test_ops.py::test_add passed", "tests/test_ops.py::test_divide passed", "tests/test_net.py::test_fetch failed",
		"tests/test_time.py::test_clock passed")
	rerun := run("tests/test_ops.py::test_add passed", "tests/test_ops.py::test_divide passed", "tests/test_net.py::test_fetch failed",
		"tests/test_time.py::test_clock failed")
	b, err := NewBaseline(base, rerun)
	if err != nil {
		t.Fatal(err)
	}
	targets := []Target{{ID: ID{File: "tests/test_stats.py", Name: "test_mean", Params: "empty"}, Before: testreport.Failed},
		{ID: ID{File: "tests/test_stats.py", Name: "test_median", Params: "a|b`c"}, Before: testreport.Failed}}
	attempt := run("tests/test_stats.py::test_mean[empty] passed", "tests/test_ops.py::test_add passed", "tests/test_ops.py::test_divide failed", "tests/test_net.py::test_fetch failed",
		"tests/test_time.py::test_clock passed")
	attempt.Report.Tests[targets[0].ID] = testreport.Result{ID: targets[0].ID, Outcome: testreport.Passed}
	delete(attempt.Report.Tests, id("tests/test_stats.py::test_mean[empty]"))
	attempt.Report.Tests[targets[1].ID] = testreport.Result{ID: targets[1].ID, Outcome: testreport.Failed, Message: "ZeroDivisionError: division by zero"}
	failed := Check(b, targets, attempt, nil, nil)
	goldenfile.Check(t, "testdata/feedback.txt", failed.Feedback(), *update)
	goldenfile.Check(t, "testdata/proof-failed.md", failed.ProofTable(), *update)

	fixed := run("tests/test_ops.py::test_add passed", "tests/test_ops.py::test_divide passed", "tests/test_net.py::test_fetch failed",
		"tests/test_time.py::test_clock passed")
	for _, target := range targets {
		fixed.Report.Tests[target.ID] = testreport.Result{ID: target.ID, Outcome: testreport.Passed}
	}
	proven := Check(b, targets, fixed, nil, nil)
	if !proven.Proven() {
		t.Fatalf("verdict %+v: want proven", proven)
	}
	goldenfile.Check(t, "testdata/proof.md", proven.ProofTable(), *update)
	goldenfile.Check(t, "testdata/proof-unproven.md", Check(b, nil, fixed, nil, nil).ProofTable(), *update)
}

// process is a finished session with its self-reported status and the
// count of failing results it recorded.
func process(name string, status, failing int) testreport.Process {
	return testreport.Process{Name: name, PID: 1, Ended: true, Tripwire: true, ExitStatus: status, Failing: failing}
}

// The exit statuses must agree with the results recorded, and a status a
// session reported of itself never explains the command's.
func TestDisagreement(t *testing.T) {
	passing := map[ID]testreport.Result{id("t.py::test_a"): {ID: id("t.py::test_a"), Outcome: testreport.Passed}}
	failing := map[ID]testreport.Result{id("t.py::test_a"): {ID: id("t.py::test_a"), Outcome: testreport.Failed},
		id("t.py::test_x"): {ID: id("t.py::test_x"), Outcome: testreport.XFailed}}
	collectErr := []testreport.CollectError{{Path: "t.py", Message: "SyntaxError"}}
	for _, tc := range []struct {
		name      string
		tests     map[ID]testreport.Result
		processes []testreport.Process
		exit      int
		plain     bool
		want      string // a substring of Disagreement(), or ""
	}{
		{name: "all pass, exit 0", tests: passing, processes: []testreport.Process{process("pid 1", 0, 0)}, plain: true},
		{name: "a failure, exit 1", tests: failing, processes: []testreport.Process{process("pid 1", 1, 1)}, exit: 1, plain: true},
		{
			// Answer 1 of issue 22: the plugin was made to record passes;
			// pytest itself exited 1, and so did the session's record.
			name: "a session's own non-zero status explains nothing", tests: passing,
			processes: []testreport.Process{process("pid 1", 1, 0)}, exit: 1, plain: true,
			want: "the command exited with status 1, but its test report shows no failure",
		},
		{
			name: "a collection error explains a non-zero status", tests: passing,
			processes: []testreport.Process{func() testreport.Process { p := process("pid 1", 2, 0); p.CollectErrors = collectErr; return p }()},
			exit:      2, plain: true,
		},
		{
			name: "a session that recorded a failure and reported 0", tests: failing,
			processes: []testreport.Process{process("pid 1", 1, 1), process("pid 2", 0, 1)}, exit: 1,
			want: "pid 2 recorded 1 failing result but reported exit status 0",
		},
		{
			name: "a session that reported a failure it did not record", tests: failing,
			processes: []testreport.Process{process("pid 1", 1, 1), process("pid 2", 1, 0)}, exit: 1,
			want: "pid 2 reported exit status 1 but recorded no failure",
		},
		{
			name: "a session stopped early may report it", tests: passing,
			processes: []testreport.Process{func() testreport.Process { p := process("pid 1", 2, 0); p.Stopped = "Interrupted"; return p }()},
		},
		{name: "a session that collected nothing reports 5", tests: passing, processes: []testreport.Process{process("pid 1", 0, 0), process("pid 2", 5, 0)}},
		{
			name: "a session that ran tests does not report 5 for nothing", tests: passing,
			processes: []testreport.Process{func() testreport.Process { p := process("pid 1", 5, 0); p.Collected = 1; return p }()},
			want:      "pid 1 reported exit status 5 but recorded no failure",
		},
		{
			name: "a plain command with failing results exits 0", tests: failing,
			processes: []testreport.Process{process("pid 1", 1, 1)}, plain: true,
			want: "the command exited with status 0, but its test session (pid 1) recorded 1 failing result",
		},
		{
			// Attack 3 of issue 22 on the channel: a complete session of
			// passes sent beside the real one, then os._exit(0).
			name: "a plain command whose first session failed exits 0 beside a forged session", tests: failing,
			processes: []testreport.Process{process("pid 1", 1, 1), process("pid 1 session 2", 0, 0)}, plain: true,
			want: "the command exited with status 0, but its test session (pid 1) recorded 1 failing result",
		},
		{name: "a compound command may exit 0 over failures (|| true)", tests: failing, processes: []testreport.Process{process("pid 1", 1, 1)}},
		{
			name: "a plain command with sessions inside is compared per session", tests: failing,
			processes: []testreport.Process{process("pid 1", 0, 0), process("pid 1 session 2", 1, 1)}, plain: true,
		},
		{name: "an xfail is no failure", tests: map[ID]testreport.Result{id("t.py::test_x"): {ID: id("t.py::test_x"), Outcome: testreport.XFailed}},
			processes: []testreport.Process{process("pid 1", 0, 0)}, plain: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Run{Report: &testreport.Report{Tests: tc.tests, Processes: tc.processes}, ExitCode: tc.exit, Plain: tc.plain}
			got := r.Disagreement()
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("Disagreement() = %q, want %q", got, tc.want)
			}
			if r.Untrusted() != got {
				t.Errorf("Untrusted() = %q, Disagreement() = %q", r.Untrusted(), got)
			}
		})
	}
}

// Audit events from the files the attempt changed and new integrity
// failures fail it as tampered; other events are shown and never block.
func TestTampering(t *testing.T) {
	base := run("t/a.py::test_a passed", "t/r.py::test_repro failed")
	base.Report.Integrity = []testreport.Integrity{{Check: "module", File: "t/own.py", Line: 4, Detail: "0x7f01"}}
	repro := []Target{{ID: id("t/r.py::test_repro"), Before: testreport.Failed}}
	fixed := func() Run { return run("t/a.py::test_a passed", "t/r.py::test_repro passed") }
	gcWalk := testreport.AuditEvent{Event: "gc.get_objects", File: "calc/stats.py", Line: 3, Detail: "", PID: 1}
	withAudit := func(r Run, events ...testreport.AuditEvent) Run { r.Report.Audit = events; return r }
	withIntegrity := func(r Run, fs ...testreport.Integrity) Run { r.Report.Integrity = fs; return r }
	changed := []string{"calc/stats.py", "calc/new.py"}
	for _, tc := range []struct {
		name           string
		run            Run
		rerun          *Run
		passed         bool
		tampered, seen []string // Finding.String()
		feedback       string
	}{
		{name: "nothing seen", run: fixed(), passed: true},
		{
			name: "an event from a changed file", run: withAudit(fixed(), gcWalk),
			tampered: []string{"audit event `gc.get_objects` at `calc/stats.py:3`"},
			feedback: "Your change tampered with the test run",
		},
		{
			name: "events from unchanged files, the reproducing test and the standard library never block",
			run: withAudit(fixed(), testreport.AuditEvent{Event: "gc.get_objects", File: "tests/conftest.py", Line: 9},
				testreport.AuditEvent{Event: "sys._getframe", File: "t/r.py", Line: 2},
				testreport.AuditEvent{Event: "ctypes.dlopen", File: "/usr/lib/python3.11/ctypes/__init__.py", Line: 376, Detail: "libc"}),
			passed: true,
			seen: []string{"audit event `gc.get_objects` at `tests/conftest.py:9`", "audit event `sys._getframe` at `t/r.py:2`",
				"audit event `ctypes.dlopen` at `/usr/lib/python3.11/ctypes/__init__.py:376`: `libc`"},
		},
		{
			name:     "an integrity failure, wherever it points",
			run:      withIntegrity(fixed(), testreport.Integrity{Check: "hooks", Detail: "a pytest_runtest_makereport hook was added", PID: 1}),
			tampered: []string{"integrity check `hooks` failed: `a pytest_runtest_makereport hook was added`"},
			feedback: "Your change tampered with the test run",
		},
		{
			name:   "an integrity failure the untouched tree had too",
			run:    withIntegrity(fixed(), testreport.Integrity{Check: "module", File: "t/own.py", Line: 4, Detail: "0x7f02"}),
			passed: true, seen: []string{"integrity check `module` failed at `t/own.py:4`: `0x7f02`"},
		},
		{
			name: "an event from a changed file in the rerun", run: fixed(), rerun: ptr(withAudit(fixed(), gcWalk)),
			tampered: []string{"audit event `gc.get_objects` at `calc/stats.py:3`"},
		},
		{
			name: "tampering with a regression asks for no rerun",
			run: withAudit(func() Run {
				r := run("t/a.py::test_a failed", "t/r.py::test_repro passed")
				return r
			}(), gcWalk),
			tampered: []string{"audit event `gc.get_objects` at `calc/stats.py:3`"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewBaseline(base)
			if err != nil {
				t.Fatal(err)
			}
			v := Check(b, repro, tc.run, tc.rerun, changed)
			str := func(fs []Finding) []string {
				var out []string
				for _, f := range fs {
					out = append(out, f.String())
				}
				return out
			}
			if v.Passed != tc.passed || !slices.Equal(str(v.Tampered), tc.tampered) || !slices.Equal(str(v.Seen), tc.seen) || len(v.Rerun) > 0 {
				t.Errorf("passed %v, tampered %q, seen %q, rerun %v; want %v, %q, %q, no rerun", v.Passed, str(v.Tampered), str(v.Seen), v.Rerun, tc.passed, tc.tampered, tc.seen)
			}
			if first, _, _ := strings.Cut(v.Feedback(), "\n"); !strings.Contains(first, tc.feedback) {
				t.Errorf("feedback %q, want %q first", v.Feedback(), tc.feedback)
			}
		})
	}
}

// The proof table and the feedback of a tampered attempt, and the line of
// a run whose processes lacked the tripwire.
func TestRenderTampering(t *testing.T) {
	base := run("tests/test_ops.py::test_add passed", "tests/test_stats.py::test_mean failed")
	b, err := NewBaseline(base)
	if err != nil {
		t.Fatal(err)
	}
	targets := []Target{{ID: id("tests/test_stats.py::test_mean"), Before: testreport.Failed}}
	attempt := run("tests/test_ops.py::test_add passed", "tests/test_stats.py::test_mean passed")
	attempt.Report.Audit = []testreport.AuditEvent{
		{Event: "gc.get_objects", File: "calc/stats.py", Line: 3, Detail: "", PID: 1},
		{Event: "object.__setattr__", File: "calc/stats.py", Line: 5, Detail: "capsule_testreport._outcome <script>x</script>", PID: 1},
		{Event: "sys._getframe", File: "tests/conftest.py", Line: 12, PID: 1},
	}
	attempt.Report.Integrity = []testreport.Integrity{{Check: "hooks", Detail: "pytest_runtest_makereport added by calc/stats.py", File: "calc/stats.py", Line: 8, PID: 1}}
	attempt.Report.Processes = append(attempt.Report.Processes, testreport.Process{Name: "pid 9", PID: 9, Ended: true})
	v := Check(b, targets, attempt, nil, []string{"calc/stats.py"})
	if v.Passed || v.Unwatched != 1 || v.Watched != 1 {
		t.Fatalf("verdict %+v: want tampered, one process unwatched", v)
	}
	goldenfile.Check(t, "testdata/feedback-tampered.txt", v.Feedback(), *update)
	goldenfile.Check(t, "testdata/proof-tampered.md", v.ProofTable(), *update)

	unwatched := run("tests/test_ops.py::test_add passed", "tests/test_stats.py::test_mean passed")
	unwatched.Report.Processes[0].Tripwire = false
	v = Check(b, targets, unwatched, nil, nil)
	if !v.Passed || !strings.Contains(v.ProofTable(), "\nTripwire not installed in 1 test process; tampering could not be watched.\n") ||
		strings.Contains(v.ProofTable(), "No tampering seen") {
		t.Errorf("passed %v, proof table:\n%s", v.Passed, v.ProofTable())
	}
}

// TestNewFailures: a test the baseline never ran that fails now blocks,
// as a regression does; one that passes, is skipped, or is a target does
// not count here.
func TestNewFailures(t *testing.T) {
	b, err := NewBaseline(run("t/a.py::test_a passed", "t/a.py::test_old failed"))
	if err != nil {
		t.Fatal(err)
	}
	repro := []Target{{ID: id("t/r.py::test_repro"), Before: testreport.Failed}}
	for _, tc := range []struct {
		name    string
		run     Run
		targets []Target
		want    []ID
	}{
		{"nothing new", run("t/a.py::test_a passed", "t/a.py::test_old failed"), nil, nil},
		{"new tests that pass or skip", run("t/a.py::test_a passed", "t/n.py::test_new passed", "t/n.py::test_skip skipped", "t/n.py::test_x xfailed"), nil, nil},
		{"the programmer's new test fails", run("t/a.py::test_a passed", "t/n.py::test_new failed"), nil, ids("t/n.py::test_new")},
		{"a reproducing file's other test errors", run("t/a.py::test_a passed", "t/r.py::test_repro passed", "t/r.py::test_other error"), repro, ids("t/r.py::test_other")},
		{"a failing target is not a new failure", run("t/a.py::test_a passed", "t/r.py::test_repro failed"), repro, nil},
		{"a test that failed at baseline is not new", run("t/a.py::test_a passed", "t/a.py::test_old failed"), repro, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isTarget := map[ID]bool{}
			for _, x := range tc.targets {
				isTarget[x.ID] = true
			}
			if got := names(newFailures(b, isTarget, tc.run.Report)); !slices.Equal(got, tc.want) {
				t.Errorf("newFailures = %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("in the verdict: blocking, rerun once, cleared when the rerun passes it", func(t *testing.T) {
		attempt := run("t/a.py::test_a passed", "t/a.py::test_old failed", "t/r.py::test_repro passed", "t/r.py::test_other failed")
		v := Check(b, repro, attempt, nil, nil)
		if v.Passed || !slices.Equal(names(v.NewFailures), ids("t/r.py::test_other")) || len(v.Regressions) != 0 || !slices.Equal(v.Rerun, ids("t/r.py::test_other")) {
			t.Fatalf("verdict %+v; want blocked by t/r.py::test_other, rerun asked", v)
		}
		if fb := v.Feedback(); !strings.Contains(fb, "`t/r.py::test_other` did not run before your change and fails now: why t/r.py::test_other") {
			t.Errorf("feedback:\n%s", fb)
		}
		if table := v.ProofTable(); !strings.Contains(table, "1 test that did not run before the change fails now:\n\n- `t/r.py::test_other` fails now") {
			t.Errorf("proof table:\n%s", table)
		}
		again := Check(b, repro, attempt, ptr(run("t/r.py::test_other failed")), nil)
		if again.Passed || len(again.NewFailures) != 1 {
			t.Errorf("confirmed by the rerun: %+v", again)
		}
		flaky := Check(b, repro, attempt, ptr(run("t/r.py::test_other passed")), nil)
		if !flaky.Passed || !flaky.Proven() || len(flaky.NewFailures) != 0 || !slices.Equal(flaky.Flaky, ids("t/r.py::test_other")) {
			t.Errorf("cleared by the rerun: %+v", flaky)
		}
	})
}

// TestWholeFileTarget: a reproducing file that cannot be collected on the
// untouched tree because it imports a name the issue names is accepted
// as one whole-file target, which passes once the file collects and every
// test of it passes; any other collection error is refused.
func TestWholeFileTarget(t *testing.T) {
	const path = "t/test_r.py"
	file := TestFile{Path: path}
	uncollected := func(message string) Run {
		r := run("t/a.py::test_a passed")
		r.Report.Processes[0].CollectErrors = []testreport.CollectError{{Path: path, Message: message}}
		r.Report.Processes[0].ExitStatus = 2
		r.ExitCode = 2
		return r
	}
	const issue = "stats has no mode(); please add it"
	targets, problem := Reproduction(uncollected("ImportError: cannot import name 'mode' from 'pkg.stats'"), file, issue)
	if problem != "" || len(targets) != 1 || targets[0].ID.String() != path || targets[0].Before != testreport.Error {
		t.Fatalf("Reproduction = %+v, %q; want the whole file as the target", targets, problem)
	}
	for _, msg := range []string{"ModuleNotFoundError: No module named 'numpy'", "SyntaxError: invalid syntax",
		"ImportError: cannot import name 'median_of_nothing' from 'pkg.stats'", "ImportError: cannot import name 'mod' from 'pkg.stats'"} {
		if _, problem := Reproduction(uncollected(msg), file, issue); !strings.Contains(problem, "could not be collected") {
			t.Errorf("%s: problem %q, want refused", msg, problem)
		}
	}
	b, err := NewBaseline(run("t/a.py::test_a passed"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		run    Run
		passed bool
		after  Outcome
	}{
		{"every test of the file passes", run("t/a.py::test_a passed", path+"::test_x passed", path+"::test_y passed"), true, testreport.Passed},
		{"one test of the file fails", run("t/a.py::test_a passed", path+"::test_x passed", path+"::test_y failed"), false, testreport.Failed},
		{"the file still does not collect", uncollected("ImportError: cannot import name 'mode' from 'pkg.stats'"), false, testreport.Error},
	} {
		v := Check(b, targets, tc.run, nil, nil)
		if v.Passed != tc.passed || v.Targets[0].After != tc.after {
			t.Errorf("%s: passed %v, target %q; want %v, %q", tc.name, v.Passed, v.Targets[0].After, tc.passed, tc.after)
		}
	}
}
