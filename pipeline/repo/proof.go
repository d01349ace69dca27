package repo

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/gate"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/agent"
)

// RunNumberEnv names the variable a test run of a job gets when
// pipeline.Settings.RunNumber asks for it: the run's number in the job,
// counting from 1 (the baseline's first run). Nothing of a run survives into the
// next, so a test that must behave differently between runs of the same
// tree (a flaky test in Capsule's own tests) reads it. It is not given
// otherwise: code under test must not tell Capsule's runs from others.
const RunNumberEnv = "CAPSULE_RUN"

// proof is the gate of one job: how the per-test results of the test
// command are collected, the outcome of each test on the untouched tree,
// and the target tests that must pass.
type proof struct {
	plan testreport.Plan
	// baseline is nil when the untouched tree's run gave no per-test
	// report that can be trusted: then only the exit status counts.
	baseline *gate.Baseline
	targets  []gate.Target
	// repro is the test designer's accepted test file, or nil; design is
	// its conversation.
	repro  *edits.Edit
	design *design
	// last is the last attempt's run.
	last gate.Run
	runs int // test runs so far
	// timeout bounds one test run: the operator's maximum for the
	// baseline, then attemptTimeout.
	timeout time.Duration
	// testFiles are the files of the tests the baseline ran, in order.
	testFiles []string
	// runNumber gives every run RunNumberEnv.
	runNumber bool
	// withoutTripwire runs the tests without the tripwire (tests only).
	withoutTripwire bool
}

// keepRepro refuses the programmer's edits of the accepted reproducing
// test, which no answer may change, and returns the others.
func (p *proof) keepRepro(proposed []edits.Edit) ([]edits.Edit, []edits.Refusal) {
	if p.repro == nil {
		return proposed, nil
	}
	var kept []edits.Edit
	var refused []edits.Refusal
	for _, e := range proposed {
		if path.Clean(e.Path) == p.repro.Path {
			refused = append(refused, edits.Refusal{Path: e.Path, Reason: fmt.Sprintf(
				"you may not modify %s: it is the test that shows the issue; fix the code, not the test", p.repro.Path)})
			continue
		}
		kept = append(kept, e)
	}
	return kept, refused
}

// testRun is one run of the tests: as the gate sees it, and as the
// sandbox reported it.
type testRun struct {
	gate gate.Run
	res  sandbox.Result
	cmd  []string
	// also is the second invocation of the run, when one was needed: its
	// command and why (see runTargets).
	also string
}

// record renders the run for the attempt log.
func (tr testRun) record(image string) *attemptlog.Run {
	r := runRecord(tr.cmd, image, tr.res)
	r.Also = tr.also
	return r
}

// run runs the test command over the pristine tree with files laid over it
// and deleted removed, with the per-test report asked for.
func (p *proof) run(ctx context.Context, box Sandbox, plan Plan, files map[string][]byte, deleted []string) (testRun, error) {
	return p.runCommand(ctx, box, plan, p.plan.Command, files, deleted)
}

// runCommand is run with another command, whose results are read as the
// plan's.
func (p *proof) runCommand(ctx context.Context, box Sandbox, plan Plan, command string, files map[string][]byte, deleted []string) (testRun, error) {
	p.runs++
	cmd := []string{"sh", "-c", command}
	env := append(testreport.Env(agent.PluginDir, agent.ChannelSocket), testreport.SetupUserBaseEnv+"="+agent.UserBase)
	if p.runNumber {
		env = append(env, fmt.Sprintf("%s=%d", RunNumberEnv, p.runs))
	}
	if p.withoutTripwire {
		env = append(env, testreport.TripwireOff)
	}
	res, err := box.Run(ctx, sandbox.Run{Cmd: cmd, Env: env, Files: files, Delete: deleted, Timeout: p.timeout, TestReport: !p.plan.GoJSON, ReportFiles: p.plan.Reports})
	if err != nil {
		return testRun{}, fmt.Errorf("run tests: %w", err)
	}
	rep := p.plan.Parse(testreport.Output{Channel: res.TestReport, Stdout: res.Stdout, Stderr: res.Stderr, ReportFiles: res.ReportFiles, ReportFilesCut: res.ReportFilesCut}, agent.Workspace)
	// A report cut by the sandbox is incomplete: for go test, its events
	// are the capped standard output; for cargo test, libtest's lines are,
	// and cargo's names of the test binaries on the standard error.
	if res.TestReportBytes > int64(len(res.TestReport)) || p.plan.GoJSON && res.StdoutBytes > int64(len(res.Stdout)) ||
		p.plan.Cargo && res.Truncated() {
		rep.Truncated = true
	}
	return testRun{gate: gate.Run{Report: rep, ExitCode: res.ExitCode, Plain: testreport.Plain(command)}, res: res, cmd: cmd}, nil
}

// newProof chooses how per-test results are collected and runs the tests
// on the untouched tree: once, and once more when some failed, to tell
// flaky tests from failing ones. The tests the issue names that fail there
// are the targets. It records all of it in log.Baseline.
func newProof(ctx context.Context, box Sandbox, plan Plan, log *attemptlog.Log) (*proof, error) {
	p := &proof{plan: testreport.NewPlan(plan.TestCommand, isFileIn(plan.Dir)).WithReports(plan.ReportGlobs, plan.ReportsReason), timeout: cmp.Or(plan.MaxTestTimeout, plan.Limits.Timeout), runNumber: plan.Settings.RunNumber, withoutTripwire: plan.withoutTripwire}
	rec := &attemptlog.Baseline{Plan: p.plan.Note}
	log.Baseline = rec
	first, err := p.run(ctx, box, plan, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	rec.Runs = append(rec.Runs, runRecord(first.cmd, plan.Settings.Image, first.res))
	rec.Outcomes = outcomeCounts(first.gate.Report)
	if env := baselineFailure(plan, p.plan.Runner, first, ownModules(plan.Dir)); env != nil {
		log.Environment = env
		return p, nil
	}
	if p.plan.Command == plan.TestCommand && !p.plan.Native() {
		rec.Plan = observedPlan(plan.TestCommand, first.gate.Report)
	}
	defer func() { p.timeout, rec.Timeout = attemptTimeout(plan, first.res) }()
	runs := []gate.Run{first.gate}
	if once, err := gate.NewBaseline(first.gate); err == nil && len(once.Failing()) > 0 {
		second, err := p.rerun(ctx, box, plan, nil, nil, once.Failing())
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		rec.Runs = append(rec.Runs, runRecord(second.cmd, plan.Settings.Image, second.res))
		// The rerun's outcomes over the first run's: a test that changed
		// is flaky. A rerun that cannot be trusted tells nothing.
		if second.gate.Untrusted() == "" {
			runs = append(runs, overlaid(first.gate, second.gate, once.Failing()))
		}
	}
	b, err := gate.NewBaseline(runs...)
	if err != nil {
		rec.Fallback = fmt.Sprintf("no per-test report: %v; only the exit status counts, so a passing run cannot show that the issue is fixed", err)
		return p, nil
	}
	p.baseline = b
	p.testFiles = testFiles(first.gate.Report)
	p.targets = b.Named(namedTests(plan.Title + "\n" + plan.Body)...)
	rec.Tests = b.Len()
	for _, id := range b.Failing() {
		rec.Failing = append(rec.Failing, id.String())
	}
	for _, id := range b.Flaky() {
		rec.Flaky = append(rec.Flaky, id.String())
	}
	for _, t := range p.targets {
		rec.Targets = append(rec.Targets, t.ID.String())
	}
	if len(p.targets) > 0 {
		rec.TargetsFrom = "tests the issue names that fail on the untouched tree"
	}
	return p, nil
}

// observedPlan says how a command that was not rewritten gave its
// per-test results, once its first run shows it: from the pytest sessions
// that reported, or from none (only the exit status counts).
func observedPlan(command string, rep *testreport.Report) string {
	n := 0
	if rep != nil {
		n = len(rep.Processes)
	}
	switch {
	case n == 1 && rep.RunnerWritten != "":
		return fmt.Sprintf("per-test results from the %s report file of `%s` (a runner-written report: the tripwire watches no runner but pytest)", rep.RunnerWritten, command)
	case n > 0 && rep.RunnerWritten != "":
		return fmt.Sprintf("per-test results from %d %s report files of `%s` (a runner-written report: the tripwire watches no runner but pytest)", n, rep.RunnerWritten, command)
	case n == 0:
		return "no per-test results: `" + command + "` ran no pytest session that reported, so only the exit status counts"
	case n == 1:
		return "per-test results from the pytest session of `" + command + "`"
	}
	return fmt.Sprintf("per-test results from the %d pytest sessions of `%s`", n, command)
}

// check runs the tests over an attempt's files and decides on them: with
// a baseline, through the gate (rerunning once the tests that regressed, to
// tell flaky ones), else by the exit status. The verdict is nil without a
// baseline.
func (p *proof) check(ctx context.Context, box Sandbox, plan Plan, files map[string][]byte, deleted []string) (testRun, *gate.Verdict, error) {
	file := ""
	if p.repro != nil {
		file = p.repro.Path
	}
	var ids []gate.ID
	for _, t := range p.targets {
		ids = append(ids, t.ID)
	}
	tr, err := p.runTargets(ctx, box, plan, files, deleted, file, ids)
	if err != nil || p.baseline == nil {
		return tr, nil, err
	}
	p.last = tr.gate
	changed := p.changed(files)
	v := gate.Check(p.baseline, p.targets, tr.gate, nil, changed)
	if len(v.Rerun) > 0 {
		again, err := p.rerun(ctx, box, plan, files, deleted, v.Rerun)
		if err != nil {
			return tr, nil, err
		}
		v = gate.Check(p.baseline, p.targets, tr.gate, &again.gate, changed)
	}
	return tr, &v, nil
}

// changed lists the files an attempt's overlay adds or changes, but the
// accepted reproducing test, which is the designer's: the gate takes the
// tripwire's events from them as tampering.
func (p *proof) changed(files map[string][]byte) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if p.repro == nil || path.Clean(name) != p.repro.Path {
			out = append(out, path.Clean(name))
		}
	}
	return out
}

// maxRerunIDs bounds the tests a rerun names on its command line; more
// rerun the whole command.
const maxRerunIDs = 100

// rerun runs the tests ids again over the same files: with pytest, only
// them, by node id through the command's own prefix (testreport.TestsCommand),
// so that a rerun costs their time and not the suite's; with go test, a
// JUnit XML runner (testreport.Plan.WholeRuns), or too many of them, the
// whole command.
func (p *proof) rerun(ctx context.Context, box Sandbox, plan Plan, files map[string][]byte, deleted []string, ids []gate.ID) (testRun, error) {
	if p.plan.WholeRuns() || len(ids) > maxRerunIDs {
		return p.run(ctx, box, plan, files, deleted)
	}
	cmd, _ := testreport.TestsCommand(p.plan.Command, idStrings(ids), isPathIn(plan.Dir), agent.Workspace)
	return p.runCommand(ctx, box, plan, cmd, files, deleted)
}

// runTargets runs the test command over files with the tests that must
// run whatever its scope: the tests of file (the reproducing test's file)
// when it is not empty, and the tests ids. They are added to the
// command's pytest invocation when it can take them
// (testreport.WithTests); those its run still left out then run by node
// id in a second invocation through the command's prefix and environment
// (testreport.TestsCommand), and the two reports are read as one run.
func (p *proof) runTargets(ctx context.Context, box Sandbox, plan Plan, files map[string][]byte, deleted []string, file string, ids []gate.ID) (testRun, error) {
	var want []string
	if file != "" {
		want = append(want, file)
	}
	for _, id := range ids {
		if id.File != file {
			want = append(want, id.String())
		}
	}
	if p.plan.WholeRuns() || len(want) == 0 {
		return p.run(ctx, box, plan, files, deleted)
	}
	tg := testreport.WithTests(p.plan.Command, want, isPathIn(plan.Dir))
	first, err := p.runCommand(ctx, box, plan, tg.Command, files, deleted)
	if err != nil || first.res.TimedOut || first.res.OOMKilled {
		return first, err
	}
	left := leftOut(first.gate.Report, file, ids)
	if len(left) == 0 {
		return first, nil
	}
	cmd, note := testreport.TestsCommand(p.plan.Command, left, isPathIn(plan.Dir), agent.Workspace)
	second, err := p.runCommand(ctx, box, plan, cmd, files, deleted)
	if err != nil {
		return testRun{}, err
	}
	why := cmp.Or(tg.Why, "they did not run in it")
	if note != "" {
		why += "; " + note
	}
	return joinRuns(first, second, fmt.Sprintf("`%s`, because the test command left out %s: %s", cmd, strings.Join(left, ", "), why)), nil
}

// leftOut lists what a run's report lacks of the tests that had to run:
// file, when none of its tests ran and no collection error covers it, and
// the tests ids it did not report.
func leftOut(rep *testreport.Report, file string, ids []gate.ID) []string {
	if rep == nil {
		rep = &testreport.Report{}
	}
	collected := func(f string) bool {
		for _, e := range rep.CollectErrors() {
			if e.Path == "" || e.Path == "." || e.Path == f || strings.HasPrefix(f, e.Path+"/") {
				return true
			}
		}
		return false
	}
	var left []string
	if file != "" && !collected(file) && !slices.ContainsFunc(rep.IDs(), func(id gate.ID) bool { return id.File == file }) {
		left = append(left, file)
	}
	ran := func(id gate.ID) bool {
		if id.Name == "" { // a whole-file target
			return slices.ContainsFunc(rep.IDs(), func(x gate.ID) bool { return x.File == id.File })
		}
		_, ok := rep.Tests[id]
		return ok
	}
	for _, id := range ids {
		if !ran(id) && !collected(id.File) && (len(left) == 0 || left[0] != id.File) {
			left = append(left, id.String())
		}
	}
	return left
}

// joinRuns reads the two invocations of one run as one: both reports (a
// test both ran keeps its worst outcome), the first failing exit status,
// both outputs, the sum of their times.
func joinRuns(first, second testRun, also string) testRun {
	a, b := first.gate.Report, second.gate.Report
	rep := &testreport.Report{Tests: map[gate.ID]testreport.Result{}}
	for _, r := range []*testreport.Report{a, b} {
		if r == nil {
			continue
		}
		for id, res := range r.Tests {
			if old, ok := rep.Tests[id]; !ok || severity(res.Outcome) > severity(old.Outcome) {
				rep.Tests[id] = res
			}
		}
		rep.Processes = append(rep.Processes, r.Processes...)
		rep.Audit = append(rep.Audit, r.Audit...)
		rep.Integrity = append(rep.Integrity, r.Integrity...)
		rep.Malformed = append(rep.Malformed, r.Malformed...)
		rep.MalformedLines += r.MalformedLines
		rep.Truncated = rep.Truncated || r.Truncated
	}
	res := first.res
	header := fmt.Sprintf("\n$ %s\n", also)
	res.Stdout = slices.Concat(res.Stdout, []byte(header), second.res.Stdout)
	res.Stderr = slices.Concat(res.Stderr, second.res.Stderr)
	res.StdoutBytes += int64(len(header)) + second.res.StdoutBytes
	res.StderrBytes += second.res.StderrBytes
	res.ExitCode = cmp.Or(res.ExitCode, second.res.ExitCode)
	res.Duration += second.res.Duration
	res.TimedOut = res.TimedOut || second.res.TimedOut
	res.OOMKilled = res.OOMKilled || second.res.OOMKilled
	joined := gate.Run{Report: rep, ExitCode: cmp.Or(first.gate.ExitCode, second.gate.ExitCode)}
	for _, part := range []gate.Run{first.gate, second.gate} {
		if part.Report != nil && joined.PartDisagrees == "" {
			joined.PartDisagrees = part.Disagreement()
		}
	}
	return testRun{gate: joined, res: res, cmd: first.cmd, also: also}
}

// severity orders outcomes from best to worst, for a test two
// invocations of one run both ran.
func severity(o testreport.Outcome) int {
	switch {
	case o == testreport.Error:
		return 4
	case o.Failing():
		return 3
	case o.Passing():
		return 2
	case o == testreport.XFailed:
		return 1
	}
	return 0
}

// idStrings formats test identities as node ids.
func idStrings(ids []gate.ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

// testFiles lists the files of a report's tests, in order.
func testFiles(rep *testreport.Report) []string {
	var files []string
	for _, id := range rep.IDs() {
		if len(files) == 0 || files[len(files)-1] != id.File {
			files = append(files, id.File)
		}
	}
	return files
}

// Bounds of the time of an attempt's test run, from the baseline's: the
// multiple of the baseline's time it gets.
const attemptTimeFactor = 3

// attemptTimeout is the time one test run of the attempts (and of the
// test designer's) may take: attemptTimeFactor times the baseline's first
// run, at least the repository's timeout and at most the operator's
// maximum; and a note saying so for the log.
func attemptTimeout(plan Plan, baseline sandbox.Result) (time.Duration, string) {
	most := cmp.Or(plan.MaxTestTimeout, plan.Limits.Timeout)
	t := max(plan.Limits.Timeout, (attemptTimeFactor * baseline.Duration).Round(time.Second))
	if most > 0 && t > most {
		t = most
	}
	return t, fmt.Sprintf("each later run may take %s: %d times the baseline's %s, at least the timeout of %s, at most the operator's %s",
		t, attemptTimeFactor, baseline.Duration.Round(time.Millisecond), plan.Limits.Timeout, most)
}

// overlaid is run with the outcomes of the tests ids taken from rerun,
// which ran only them: the whole run as the rerun saw it. A test the rerun
// did not report stays as run had it. Its exit status is the rerun's, the
// status of the only tests that may fail in it (ids are the run's
// failing tests), and it is no plain command's: its sessions are the
// run's, each compared with what it recorded.
func overlaid(run, rerun gate.Run, ids []gate.ID) gate.Run {
	rep := *run.Report
	rep.Tests = maps.Clone(run.Report.Tests)
	for _, id := range ids {
		if res, ok := rerun.Report.Tests[id]; ok {
			rep.Tests[id] = res
		}
	}
	return gate.Run{Report: &rep, ExitCode: rerun.ExitCode}
}

// namedTest matches a Python test file, or a pytest node id, in an issue's
// text.
var namedTest = regexp.MustCompile(`[\w./-]*\.py(?:::[\w.\[\]-]+)*`)

// namedTests lists the test files and node ids an issue names.
func namedTests(text string) []string {
	var names []string
	for _, m := range namedTest.FindAllString(text, -1) {
		m = strings.TrimPrefix(strings.TrimRight(m, ".:"), "./")
		if !slices.Contains(names, m) {
			names = append(names, m)
		}
	}
	return names
}

// isPathIn returns a function that reports whether a slash-separated path
// relative to dir exists: a file or a directory.
func isPathIn(dir string) func(string) bool {
	return func(p string) bool {
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			return p == "."
		}
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		return err == nil
	}
}

// isFileIn returns a function that reports whether a slash-separated path
// relative to dir is a regular file.
func isFileIn(dir string) func(string) bool {
	return func(p string) bool {
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			return false
		}
		info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		return err == nil && info.Mode().IsRegular()
	}
}
