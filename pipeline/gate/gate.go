// Package gate decides whether an attempt proves a fix, from per-test
// reports (package testreport): every target test, the test that
// reproduces the issue, passes, and no test that passed on the untouched
// tree fails now. Tests that already failed there, and tests whose outcome
// changes between runs of the same tree (flaky), never block. A run whose
// report lacks tests the baseline ran, and nothing explains why, cannot be
// trusted and fails, as does one whose exit statuses disagree with its
// report. Audit events the tripwire saw raised from files the attempt
// added or changed, and failed integrity checks, make the attempt
// tampered: it fails, whatever its tests say.
//
// The package is pure: the caller runs the tests, reruns them when a
// [Verdict] asks for it, and shows the verdict.
package gate

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/capsulehq/capsule/pipeline/testreport"
)

// ID is a test's identity.
type ID = testreport.ID

// Outcome is how a test ended; the empty Outcome means it did not run.
type Outcome = testreport.Outcome

// Run is one run of the test command: its per-test report and its exit
// status.
type Run struct {
	Report   *testreport.Report
	ExitCode int
	// Plain reports that the command is one plain invocation
	// (testreport.Plain): its exit status is then its one session's.
	Plain bool
	// PartDisagrees, for a run read as one from several invocations (the
	// test command, then the targets it left out), is the first
	// Disagreement of one of them, which their joined statuses may hide.
	PartDisagrees string
}

// Untrusted says why the run's report cannot stand for the run, or is
// empty: it is missing or incomplete, or the exit statuses disagree with
// the results recorded (see [Run.Disagreement]).
func (r Run) Untrusted() string {
	switch {
	case r.Report == nil || len(r.Report.Processes) == 0:
		return "no test process wrote a per-test report"
	case !r.Report.Complete():
		return r.Report.Incomplete()
	}
	return r.Disagreement()
}

// Disagreement says how the exit statuses disagree with the results the
// report recorded, or is empty. A status a session reported of itself is
// written by the process that runs the code under test: it never explains
// the command's. So:
//   - a non-zero command status needs a failing or erroring test, or a
//     collection error, in the report;
//   - a session that recorded a failing result and reported status 0, or
//     reported a non-zero status with no failing result, collection error,
//     early stop, or (status 5) no test at all, is not believed;
//   - a plain command (Run.Plain) whose first session (its own runner's:
//     sessions that tests or child processes start come later) recorded
//     failing results must not exit 0. Compound commands (`pytest ||
//     true`, several invocations) are compared session by session only.
func (r Run) Disagreement() string {
	if r.PartDisagrees != "" {
		return r.PartDisagrees
	}
	rep := r.Report
	failing := failingResult(rep)
	if r.ExitCode != 0 && failing == nil && len(rep.CollectErrors()) == 0 {
		return fmt.Sprintf("the command exited with status %d, but its test report shows no failure", r.ExitCode)
	}
	for _, p := range rep.Processes {
		switch {
		case !p.Ended:
		case p.Failing > 0 && p.ExitStatus == 0:
			return fmt.Sprintf("%s recorded %s but reported exit status 0", p.Name, count(p.Failing, "failing result"))
		case p.ExitStatus != 0 && p.Failing == 0 && len(p.CollectErrors) == 0 && p.Stopped == "" && !(p.ExitStatus == 5 && p.Collected == 0):
			return fmt.Sprintf("%s reported exit status %d but recorded no failure", p.Name, p.ExitStatus)
		}
	}
	if len(rep.Processes) > 0 && r.Plain && rep.Processes[0].Failing > 0 && r.ExitCode == 0 {
		first := rep.Processes[0]
		return fmt.Sprintf("the command exited with status 0, but its test session (%s) recorded %s",
			first.Name, count(first.Failing, "failing result"))
	}
	return ""
}

// failingResult returns a failing or erroring test of the report, the
// first in order, or nil.
func failingResult(rep *testreport.Report) *testreport.Result {
	for _, id := range rep.IDs() {
		if res := rep.Tests[id]; res.Outcome.Failing() {
			return &res
		}
	}
	return nil
}

// Baseline is the per-test outcome of the untouched tree.
type Baseline struct {
	results       map[ID]testreport.Result
	flaky         map[ID]bool
	collectErrors map[string]bool
	// integrity holds the integrity failures of the untouched tree, by
	// check and place: the repository's own tests cause them.
	integrity map[Finding]bool
}

// NewBaseline reads one or two runs of the test command on the untouched
// tree (the second reruns the first when it had failures). A test whose
// outcome differs between them, or that only one of them ran, is flaky.
// It fails when a run's report cannot be trusted: the gate then has
// nothing to compare with.
func NewBaseline(runs ...Run) (*Baseline, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("a baseline needs a run")
	}
	b := &Baseline{results: map[ID]testreport.Result{}, flaky: map[ID]bool{}, collectErrors: map[string]bool{}, integrity: map[Finding]bool{}}
	for i, run := range runs {
		if why := run.Untrusted(); why != "" {
			return nil, fmt.Errorf("the baseline's run %d cannot be trusted: %s", i+1, why)
		}
		for _, e := range run.Report.CollectErrors() {
			b.collectErrors[e.Path] = true
		}
		for _, f := range run.Report.Integrity {
			b.integrity[integrityKey(f)] = true
		}
	}
	maps.Copy(b.results, runs[0].Report.Tests)
	for _, run := range runs[1:] {
		for id, res := range run.Report.Tests {
			first, ok := b.results[id]
			if !ok {
				b.results[id] = res
			}
			if !ok || class(first.Outcome) != class(res.Outcome) {
				b.flaky[id] = true
			}
		}
		for id := range b.results {
			if _, ok := run.Report.Tests[id]; !ok {
				b.flaky[id] = true
			}
		}
	}
	return b, nil
}

// class groups outcomes into passing, failing and neither (skipped).
func class(o Outcome) int {
	switch {
	case o.Passing():
		return 1
	case o.Failing():
		return 2
	}
	return 0
}

// Len is the number of tests the baseline ran.
func (b *Baseline) Len() int { return len(b.results) }

// Result returns a test's baseline result.
func (b *Baseline) Result(id ID) (testreport.Result, bool) {
	res, ok := b.results[id]
	return res, ok
}

// Failing lists the tests that fail at baseline and are not flaky, in
// order: the issue's own failing tests are among them.
func (b *Baseline) Failing() []ID {
	var ids []ID
	for id, res := range b.results {
		if res.Outcome.Failing() && !b.flaky[id] {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, ID.Compare)
	return ids
}

// Flaky lists the tests whose outcome differed between the baseline's
// runs, in order.
func (b *Baseline) Flaky() []ID {
	return slices.SortedFunc(maps.Keys(b.flaky), ID.Compare)
}

// Target is a test that must pass: a reproducing test, or a test the
// issue names that fails at baseline. Before is its outcome on the
// untouched tree.
type Target struct {
	ID     ID
	Before Outcome
}

// Named returns, as targets, the tests failing at baseline (and not flaky)
// that the issue names: by file ("tests/test_stats.py"), by node id
// ("tests/test_stats.py::test_mean_empty"), or by the node id of a class
// or of a parametrized test without its parameters. Other failing tests
// are already failing, never targets.
func (b *Baseline) Named(names ...string) []Target {
	var targets []Target
	for _, id := range b.Failing() {
		full := id.String()
		bare := ID{File: id.File, Class: id.Class, Name: id.Name}.String()
		for _, n := range names {
			if n == id.File || n == full || n == bare || strings.HasPrefix(full, n+"::") {
				targets = append(targets, Target{ID: id, Before: b.results[id].Outcome})
				break
			}
		}
	}
	return targets
}

// Targets returns the baseline's results of the tests the issue names.
func (b *Baseline) Targets(ids ...ID) []Target {
	targets := make([]Target, len(ids))
	for i, id := range ids {
		targets[i] = Target{ID: id, Before: b.results[id].Outcome}
	}
	return targets
}

// TestFile is a new test file's place in a run's report: its path and,
// for a Go test file, its package and the tests it declares, since go
// test reports a test by package, not by file; for a Rust integration test
// of a workspace member, the name cargo gives its test binary; for a JUnit
// class, the suite Surefire's reports name in place of the file.
type TestFile struct {
	// Path is the file's path in the repository.
	Path string
	// Binary is the name a cargo test report gives the file's tests when
	// it is not Path: cargo names a test binary by its source's path in
	// its crate, so crates/calc/tests/x.rs reports as tests/x.rs.
	Binary string
	// Package is a Go test file's package import path; empty for pytest,
	// whose report names each test's file.
	Package string
	// Tests are the top-level test functions a Go test file declares.
	Tests []string
	// Suite is a JUnit class's fully qualified name, which Surefire's
	// reports give as the file of each of its tests (its nested classes'
	// too); empty for other files.
	Suite string
}

// Owns reports whether a report's test is one of the file's.
func (f TestFile) Owns(id ID) bool {
	if f.Package == "" {
		return id.File == f.reported()
	}
	top, _, _ := strings.Cut(id.Name, "/")
	return id.File == f.Package && slices.Contains(f.Tests, top)
}

// coveredBy reports whether a collection error at path stopped the file's
// tests: for a Go file, a build failure of its package.
func (f TestFile) coveredBy(path string) bool {
	if f.Package != "" {
		return path == f.Package
	}
	return covers(path, f.reported())
}

// reported is the file as a report names it.
func (f TestFile) reported() string {
	return cmp.Or(f.Binary, f.Suite, f.Path)
}

// Reproduction checks a run on the untouched tree of a new test file,
// meant to reproduce the issue: its failing tests become the targets. It
// refuses (problem non-empty) a run that cannot be trusted, a file that
// was not collected (or whose package did not build), a test that errors
// before it runs, and a file none of whose tests fail. A pytest file that
// was not collected only because it imports a name the issue's text
// (issue) names, which the tree lacks, is one whole-file target.
func Reproduction(run Run, file TestFile, issue string) (targets []Target, problem string) {
	if why := run.Untrusted(); why != "" {
		return nil, "the run of the reproducing test cannot be trusted: " + why
	}
	for _, e := range run.Report.CollectErrors() {
		if file.coveredBy(e.Path) {
			if name := missingName(e.Message); name != "" && file.Package == "" && e.Path == file.Path && mentions(issue, name) {
				// The test imports what the issue asks for and the tree
				// lacks: the whole file is the target.
				return []Target{{ID: ID{File: file.Path}, Before: testreport.Error}}, ""
			}
			return nil, fmt.Sprintf("%s could not be collected: %s", file.Path, e.Message)
		}
	}
	var passing int
	for _, id := range run.Report.IDs() {
		res := run.Report.Tests[id]
		switch {
		case !file.Owns(id):
		case res.Outcome == testreport.Error:
			return nil, fmt.Sprintf("%s errors in %s before the test runs: %s", id, res.Phase, res.Message)
		case res.Outcome == testreport.Failed:
			targets = append(targets, Target{ID: id, Before: res.Outcome})
		case res.Outcome.Passing():
			passing++
		}
	}
	switch {
	case len(targets) > 0:
		return targets, ""
	case passing > 0:
		return nil, fmt.Sprintf("the tests of %s pass on the untouched tree: they reproduce nothing", file.Path)
	}
	return nil, fmt.Sprintf("no test of %s ran", file.Path)
}

// missingName returns the name a collection error says could not be
// imported from a module that exists ("ImportError: cannot import name
// 'mode' from 'pkg.stats'"), or "". A missing module is not one (it may
// be the environment's).
func missingName(message string) string {
	rest, ok := strings.CutPrefix(message, "ImportError: cannot import name '")
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, "'")
	if !ok {
		return ""
	}
	return name
}

// mentions reports whether text names name as a word: a test of a
// function the issue asks for, which the untouched tree lacks.
func mentions(text, name string) bool {
	for i := strings.Index(text, name); i >= 0; {
		end := i + len(name)
		if (i == 0 || !isWordByte(text[i-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		next := strings.Index(text[i+1:], name)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// fileOutcome is the outcome of a whole-file target in a run: an error
// when the file could not be collected, else the worst of its tests'
// outcomes, or none when none of them ran.
func fileOutcome(rep *testreport.Report, collectErrors []testreport.CollectError, file string) (Outcome, string) {
	for _, e := range collectErrors {
		if covers(e.Path, file) {
			return testreport.Error, "could not be collected: " + e.Message
		}
	}
	var worst testreport.Result
	for _, id := range rep.IDs() {
		res := rep.Tests[id]
		if id.File == file && (worst.Outcome == "" || rank(res.Outcome) > rank(worst.Outcome)) {
			worst = res
		}
	}
	return worst.Outcome, worst.Message
}

// rank orders outcomes from best to worst.
func rank(o Outcome) int {
	switch {
	case o == testreport.Error:
		return 3
	case o.Failing():
		return 2
	case o.Passing():
		return 0
	}
	return 1 // skipped, xfailed: not a pass
}

// covers reports whether a collection error at path (a file, a directory,
// a package, or "" for the whole session) stands in for the tests of file.
func covers(path, file string) bool {
	return path == "" || path == "." || path == file || strings.HasPrefix(file, path+"/")
}

// Change is a test's outcome before and after an attempt.
type Change struct {
	ID            ID
	Before, After Outcome
	// Message says why the test does not pass now, when it does not.
	Message string
}

// Verdict is the gate's decision on one attempt.
type Verdict struct {
	// Passed reports that every target passes and nothing regressed, in a
	// run whose report can be trusted.
	Passed bool
	// Untrusted says why the run's report cannot stand for the run.
	Untrusted string
	// Targets holds every target test, before and after.
	Targets []Change
	// Regressions are tests that passed at baseline and do not pass now.
	Regressions []Change
	// NewFailures are tests the baseline did not run that fail now: the
	// change's new tests, the reproducing file's other tests, tests out of
	// the baseline's scope. They block as regressions do (newFailures).
	NewFailures []Change
	// Rerun, when set, lists the regressions to confirm by running the
	// tests once more: pass that run to Check as its rerun. It is set only
	// when regressions alone fail the attempt.
	Rerun []ID
	// CollectErrors are the files or packages that could not be collected
	// in this run and could at baseline.
	CollectErrors []testreport.CollectError
	// Missing are baseline tests the run did not report and no collection
	// error accounts for; Stopped says why the run stopped early, when it
	// did (pytest -x), which accounts for them.
	Missing []ID
	Stopped string
	// AlreadyFailing are tests that failed at baseline: they never block.
	AlreadyFailing []Change
	// Flaky are tests whose outcome changed between runs of the same tree,
	// at baseline or on the rerun: they never block.
	Flaky []ID
	// Kept counts the tests that passed before and after.
	Kept int
	// Tampered lists the signs that the attempt tampered with the test
	// run: audit events raised from the files it added or changed, and
	// integrity failures the untouched tree did not have. Any fails the
	// attempt.
	Tampered []Finding
	// Seen lists the audit events raised from other code (the
	// repository's unchanged files, the standard library) and the
	// integrity failures the untouched tree had too: shown, never
	// blocking.
	Seen []Finding
	// Watched and Unwatched count the test processes of the run that had
	// the tripwire and that did not: tampering in the latter could not be
	// seen.
	Watched, Unwatched int
}

// Finding is a sign of tampering with a test run.
type Finding struct {
	// Kind is "audit", an event a tripwire recorded, or "integrity", a
	// failed integrity check of a session.
	Kind string
	// Event is the audit event's name, or the integrity check's.
	Event string
	// File, relative to the workspace when inside it, and Line say where
	// it came from, when known.
	File   string
	Line   int
	Detail string
}

// The kinds of findings.
const (
	KindAudit     = "audit"
	KindIntegrity = "integrity"
)

// integrityKey is an integrity failure as the baseline knows it: its
// check and place, not its detail, which may name changing objects.
func integrityKey(f testreport.Integrity) Finding {
	return Finding{Kind: KindIntegrity, Event: f.Check, File: f.File, Line: f.Line}
}

// watch sorts the audit events and integrity failures of runs into
// signs of tampering and findings that never block, and counts the
// processes with and without the tripwire (of the first run). changed
// holds the files the attempt added or changed.
func (v *Verdict) watch(b *Baseline, changed map[string]bool, runs ...*Run) {
	seen := map[Finding]bool{}
	add := func(f Finding, tampered bool) {
		if seen[f] {
			return
		}
		seen[f] = true
		if tampered {
			v.Tampered = append(v.Tampered, f)
		} else {
			v.Seen = append(v.Seen, f)
		}
	}
	for i, run := range runs {
		if run == nil || run.Report == nil {
			continue
		}
		rep := run.Report
		if i == 0 {
			v.Unwatched = rep.Unwatched()
			v.Watched = len(rep.Processes) - v.Unwatched
		}
		for _, f := range rep.Integrity {
			add(Finding{Kind: KindIntegrity, Event: f.Check, File: f.File, Line: f.Line, Detail: f.Detail}, !b.integrity[integrityKey(f)])
		}
		for _, e := range rep.Audit {
			add(Finding{Kind: KindAudit, Event: e.Event, File: e.File, Line: e.Line, Detail: e.Detail}, changed[e.File])
		}
	}
}

// Proven reports that the attempt passed with at least one target test:
// the issue was reproduced and is now fixed.
func (v Verdict) Proven() bool { return v.Passed && len(v.Targets) > 0 }

// Check decides on an attempt's run. rerun is nil on the first call; when
// the verdict lists tests to Rerun, the caller runs the tests again on the
// same tree and calls Check with that run: a regression that passes there
// is flaky. changed lists the files, relative to the workspace, that the
// attempt added or changed (not the accepted reproducing test, which is
// the designer's): an audit event raised from one of them, in the run or
// the rerun, is tampering, as is an integrity failure the untouched tree
// did not have; either fails the attempt.
func Check(b *Baseline, targets []Target, run Run, rerun *Run, changed []string) Verdict {
	v := Verdict{Untrusted: run.Untrusted()}
	isChanged := map[string]bool{}
	for _, f := range changed {
		isChanged[f] = true
	}
	v.watch(b, isChanged, &run, rerun)
	rep := run.Report
	if rep == nil {
		rep = &testreport.Report{}
	}
	v.Stopped = rep.Stopped()
	v.CollectErrors = newCollectErrors(b, rep)
	after := outcomes{rep: rep, collectErrors: v.CollectErrors}
	isTarget, targetsPass := v.checkTargets(targets, after)
	candidates := append(v.sortBaseline(b, isTarget, after), newFailures(b, isTarget, rep)...)
	v.distrustMissing()
	v.settle(candidates, rerun, targetsPass)
	v.Regressions, v.NewFailures = splitNew(v.Regressions)
	v.Passed = targetsPass && v.clean() && len(v.Regressions) == 0 && len(v.NewFailures) == 0
	return v
}

// newCollectErrors lists the collection errors of a run that the
// baseline did not have.
func newCollectErrors(b *Baseline, rep *testreport.Report) []testreport.CollectError {
	var out []testreport.CollectError
	for _, e := range rep.CollectErrors() {
		if !b.collectErrors[e.Path] {
			out = append(out, e)
		}
	}
	return out
}

// outcomes reads the outcome of a test in a run, and its message.
type outcomes struct {
	rep *testreport.Report
	// collectErrors are the run's collection errors the baseline did not
	// have.
	collectErrors []testreport.CollectError
}

// of is the outcome of the test id in the run: a whole file's from its
// tests (fileOutcome), a test's own, or an error when a new collection
// error covers its file; "" when the run did not report it.
func (o outcomes) of(id ID) (Outcome, string) {
	if id.Name == "" {
		return fileOutcome(o.rep, o.rep.CollectErrors(), id.File)
	}
	if res, ok := o.rep.Tests[id]; ok {
		return res.Outcome, res.Message
	}
	for _, e := range o.collectErrors {
		if covers(e.Path, id.File) {
			return testreport.Error, "could not be collected: " + e.Message
		}
	}
	return "", ""
}

// checkTargets records the target tests' outcomes in the run and reports
// which tests are targets and whether all of them pass.
func (v *Verdict) checkTargets(targets []Target, after outcomes) (map[ID]bool, bool) {
	isTarget := map[ID]bool{}
	pass := true
	for _, t := range targets {
		isTarget[t.ID] = true
		o, msg := after.of(t.ID)
		v.Targets = append(v.Targets, Change{ID: t.ID, Before: t.Before, After: o, Message: msg})
		pass = pass && o.Passing()
	}
	return isTarget, pass
}

// sortBaseline sorts the baseline's tests that are not targets by their
// outcome in the run: flaky, missing, already failing, kept, or a test
// that passed and does not now, which it returns: a candidate regression.
func (v *Verdict) sortBaseline(b *Baseline, isTarget map[ID]bool, after outcomes) []Change {
	var candidates []Change
	for _, id := range slices.SortedFunc(maps.Keys(b.results), ID.Compare) {
		before := b.results[id].Outcome
		o, msg := after.of(id)
		switch {
		case isTarget[id]:
		case b.flaky[id]:
			v.Flaky = append(v.Flaky, id)
		case o == "":
			v.Missing = append(v.Missing, id)
		case before.Failing():
			v.AlreadyFailing = append(v.AlreadyFailing, Change{ID: id, Before: before, After: o, Message: msg})
		case before.Passing() && o.Passing():
			v.Kept++
		case before.Passing():
			candidates = append(candidates, Change{ID: id, Before: before, After: o, Message: msg})
		}
	}
	return candidates
}

// distrustMissing makes a report that lacks baseline tests untrusted,
// unless the run says why: it stopped early, or files could not be
// collected.
func (v *Verdict) distrustMissing() {
	explained := v.Stopped != "" || len(v.CollectErrors) > 0
	if len(v.Missing) > 0 && !explained && v.Untrusted == "" {
		v.Untrusted = fmt.Sprintf("the report lacks %s the baseline ran, such as %s", count(len(v.Missing), "test"), v.Missing[0])
	}
}

// settle decides on the candidate regressions: with a trusted rerun, a
// candidate that passes there is flaky and the others regressed; without
// one, all of them regressed, and when they are all that keeps the
// attempt from passing (on the first call), they are to be rerun.
func (v *Verdict) settle(candidates []Change, rerun *Run, targetsPass bool) {
	if rerun != nil && rerun.Untrusted() == "" {
		for _, c := range candidates {
			if rerun.Report.Tests[c.ID].Outcome.Passing() {
				v.Flaky = append(v.Flaky, c.ID)
			} else {
				v.Regressions = append(v.Regressions, c)
			}
		}
		slices.SortFunc(v.Flaky, ID.Compare)
		return
	}
	v.Regressions = candidates
	if rerun == nil && targetsPass && v.clean() {
		for _, c := range candidates {
			v.Rerun = append(v.Rerun, c.ID)
		}
	}
}

// clean reports a run that can be trusted, reported every baseline test,
// collected every file and shows no tampering: all a passing attempt
// needs besides its target tests passing and no test failing anew.
func (v *Verdict) clean() bool {
	return v.Untrusted == "" && len(v.Missing) == 0 && len(v.CollectErrors) == 0 && len(v.Tampered) == 0
}

// newFailures is the rule that nothing failing goes unseen: the tests of
// a run that the baseline did not run at all and that are not targets,
// but fail (or error) now, with Before empty. A job is solved only if
// every test that ran passed, failed at baseline too, or is flaky; so
// these block as regressions do, and, like them, are rerun once to tell
// flaky ones.
func newFailures(b *Baseline, isTarget map[ID]bool, rep *testreport.Report) []Change {
	var out []Change
	for _, id := range rep.IDs() {
		res := rep.Tests[id]
		if _, ran := b.results[id]; !ran && !isTarget[id] && res.Outcome.Failing() {
			out = append(out, Change{ID: id, After: res.Outcome, Message: res.Message})
		}
	}
	return out
}

// splitNew parts changes into those of tests the baseline ran and those
// of tests it did not (newFailures).
func splitNew(changes []Change) (seen, unseen []Change) {
	for _, c := range changes {
		if c.Before == "" {
			unseen = append(unseen, c)
		} else {
			seen = append(seen, c)
		}
	}
	return seen, unseen
}
