package repo_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/gate"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
	openai "github.com/sashabaranov/go-openai"
)

// rightAnswer is the example's right fix.
var rightAnswer = calculatortest.Answer("calc/stats.py", calculatortest.RightStats)

// noOpAnswer only adds a comment to calc/stats.py.
func noOpAnswer(t *testing.T) string {
	return calculatortest.Answer("calc/stats.py", "# Looked at the empty-list case.\n"+calculatortest.Files(t)["calc/stats.py"])
}

// calculator writes the example repository with changes: a path mapped
// to "" is removed.
func calculator(t testing.TB, changes map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files := calculatortest.Files(t)
	for name, content := range changes {
		files[name] = content
	}
	for name, content := range files {
		if content == "" {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// solveIssue runs dir mode on the example's issue, which names
// tests/test_stats.py, with pytest as the test command.
func solveIssue(t *testing.T, dir string, answers ...string) *repo.Outcome {
	t.Helper()
	return solveTask(t, issueTask(t, dir), answers...)
}

// issueTask is the example's issue on dir, with pytest as the test
// command.
func issueTask(t testing.TB, dir string) repo.Plan {
	return repo.Plan{Task: repo.Task{ID: t.Name(), Title: calculatortest.IssueTitle, Body: calculatortest.IssueBody, Dir: dir},
		TestCommand: "python3 -m pytest -q", Limits: sandbox.Limits{Timeout: time.Minute}}
}

// solveTask runs dir mode on task against the real sandbox and a scripted
// model answering answers in turn, one call per answer (the test
// designer's first, when it is asked).
func solveTask(t testing.TB, task repo.Plan, answers ...string) *repo.Outcome {
	t.Helper()
	_, out := solveScripted(t, task, answers...)
	return out
}

// solveScripted is solveTask, also returning the model's server.
func solveScripted(t testing.TB, task repo.Plan, answers ...string) (*fakeopenai.Server, *repo.Outcome) {
	t.Helper()
	return solveTuned(t, task, nil, answers...)
}

// solveTuned is solveScripted with the default settings changed by tune.
func solveTuned(t testing.TB, task repo.Plan, tune func(*pipeline.Settings), answers ...string) (*fakeopenai.Server, *repo.Outcome) {
	t.Helper()
	eng := sandboxtest.Engine(t)
	box, err := eng.NewSession(context.Background(), sandboxtest.SpecWith(task.Dir, testreport.HelperFiles()))
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	replies := make([]fakeopenai.Response, len(answers))
	for i, a := range answers {
		replies[i] = fakeopenai.Reply(a)
	}
	srv := fakeopenai.New(t, fakeopenai.Sequence(replies...))
	client, err := programmer.New(programmer.Config{BaseURL: srv.URL(), Model: "scripted", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	s := pipeline.DefaultSettings()
	s.MaxAttempts = len(answers) - 1
	if tune != nil {
		tune(&s)
	}
	task.Settings = s
	out, err := repo.Solve(context.Background(), client, box, task)
	if err != nil {
		t.Fatal(err)
	}
	return srv, out
}

// ids formats test identities.
func ids(xs []gate.ID) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.String()
	}
	return out
}

// changesOf lists the tests of changes.
func changesOf(cs []gate.Change) []gate.ID {
	out := make([]gate.ID, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func TestGateOnNamedFailingTests(t *testing.T) {
	t.Run("a no-op is not solved, the right fix that follows is", testNoOpThenFix)
	t.Run("a test that needs the network is already failing and never blocks", testAlreadyFailingNeverBlocks)
	t.Run("a regression is named in the feedback, and a later right attempt passes", testRegressionNamed)
	t.Run("a flaky test is reported flaky and does not block", testFlakyDoesNotBlock)
	t.Run("a run that exits 0 before reporting the baseline's tests fails", testExitBeforeReport)
}

func TestGateWithoutReproduction(t *testing.T) {
	t.Run("passing tests with reproduce off are unproven", testReproduceOffUnproven)
	t.Run("a command without per-test results falls back to the exit status and says so", testExitStatusFallback)
}

// reproAnswer is the test designer's answer with a test file at the
// reproducing test's path in the example.
func reproAnswer(test string) string {
	return "The empty list must give 0.0.\n\n### File: tests/test_capsule_reproduction.py\n```python\n" + test + "```\n"
}

// The test designer's tests: right (fails on the untouched tree), one
// that is not collected, and one that passes there.
const (
	reproRight = `from calc import mean, median


def test_mean_of_empty_list_is_zero():
    assert mean([]) == 0.0


def test_median_of_empty_list_is_zero():
    assert median([]) == 0.0
`
	reproBroken = "from calc import mean_of_nothing\n\n\ndef test_it():\n    assert mean_of_nothing() == 0.0\n"
	reproPasses = "from calc import mean\n\n\ndef test_mean():\n    assert mean([1, 2]) == 1.5\n"
)

func TestReproduction(t *testing.T) {
	t.Run("a no-op is never solved, the right fix that follows is", testReproNoOpThenFix)
	t.Run("a test that is not collected goes back to the designer", testReproNotCollected)
	t.Run("a test that passes on the untouched tree is refused", testReproPassingRefused)
	t.Run("the programmer cannot edit the accepted test", testReproKept)
	t.Run("a wrong test the programmer keeps failing alone is revised once", testReproRevised)
	t.Run("required with no reproduction is not solved, with the reason", testReproRequired)
}

// filed is the repository as it is when the issue is filed: nothing tests
// the empty list, and every test passes.
func filed(t *testing.T) string {
	return calculator(t, map[string]string{"tests/test_stats.py": calculatortest.WithoutEmptyListTests(t)})
}

// reproTargets are the target tests of the right reproducing test.
var reproTargets = []string{"tests/test_capsule_reproduction.py::test_mean_of_empty_list_is_zero", "tests/test_capsule_reproduction.py::test_median_of_empty_list_is_zero"}

// testNoOpThenFix: a no-op is not solved, the right fix that follows is.
func testNoOpThenFix(t *testing.T) {
	dir := calculator(t, nil)
	out := solveIssue(t, dir,
		noOpAnswer(t), rightAnswer)
	log := out.Log
	if got := log.Baseline.Targets; !slices.Equal(got, []string{
		"tests/test_stats.py::test_mean_of_nothing_is_zero", "tests/test_stats.py::test_median_of_nothing_is_zero"}) {
		t.Fatalf("targets %q; baseline %+v", got, log.Baseline)
	}
	if len(log.Attempts) != 2 || log.Attempts[0].Run.Passed || !log.Attempts[1].Run.Passed {
		t.Fatalf("attempts: want the no-op to fail and the fix to pass: %+v", log.Attempts)
	}
	if fb := log.Attempts[0].Feedback; !strings.Contains(fb, "`tests/test_stats.py::test_mean_of_nothing_is_zero` shows the issue and fails now") {
		t.Errorf("the no-op's feedback does not lead with the target test:\n%s", fb)
	}
	if out.Outcome() != attemptlog.Solved || log.AttemptIndex != 1 {
		t.Errorf("outcome %q at attempt %d, want solved at 1", out.Outcome(), log.AttemptIndex)
	}
	var md strings.Builder
	log.WriteMarkdown(&md)
	if !strings.Contains(md.String(), "| `tests/test_stats.py::test_mean_of_nothing_is_zero` | failed | passed |") ||
		!strings.Contains(md.String(), "6 tests passed before and after, 0 regressions.") {
		t.Errorf("the log does not carry the proof:\n%s", md.String())
	}
}

// testAlreadyFailingNeverBlocks: a test that needs the network is already failing and never blocks.
func testAlreadyFailingNeverBlocks(t *testing.T) {
	ops := calculatortest.Files(t)["tests/test_ops.py"] + `

def test_fetch_rates():
    import socket
    socket.create_connection(("pypi.org", 443), timeout=2)
`
	dir := calculator(t, map[string]string{"tests/test_ops.py": ops})
	out := solveIssue(t, dir, rightAnswer)
	if out.Outcome() != attemptlog.Solved || out.Log.AttemptIndex != 0 {
		t.Fatalf("outcome %q at attempt %d, want solved at 0: %+v", out.Outcome(), out.Log.AttemptIndex, out.Log.Attempts)
	}
	v := out.Log.Proof()
	if got := ids(changesOf(v.AlreadyFailing)); !slices.Equal(got, []string{"tests/test_ops.py::test_fetch_rates"}) {
		t.Errorf("already failing %q", got)
	}
	if got := out.Log.Baseline.Failing; len(got) != 3 {
		t.Errorf("baseline failing %q, want the network test and the two targets", got)
	}
}

// testRegressionNamed: a regression is named in the feedback, and a later right attempt passes.
func testRegressionNamed(t *testing.T) {
	dir := calculator(t, nil)
	out := solveIssue(t, dir,
		calculatortest.Answer("calc/stats.py", calculatortest.RightStats,
			"calc/ops.py", strings.Replace(calculatortest.Files(t)["calc/ops.py"], "return a / b", "return a // b", 1)), rightAnswer)
	log := out.Log
	first := log.Attempts[0]
	if first.Run.Passed || first.Verdict == nil || !slices.Contains(ids(changesOf(first.Verdict.Regressions)), "tests/test_ops.py::test_divide") {
		t.Fatalf("attempt 0 should regress test_divide: %+v", first.Verdict)
	}
	if !strings.Contains(first.Feedback, "`tests/test_ops.py::test_divide` passed before your change and fails now") {
		t.Errorf("feedback does not name the regression:\n%s", first.Feedback)
	}
	if out.Outcome() != attemptlog.Solved || log.AttemptIndex != 1 {
		t.Errorf("outcome %q at attempt %d, want solved at 1", out.Outcome(), log.AttemptIndex)
	}
}

// testFlakyDoesNotBlock: a flaky test is reported flaky and does not block.
func testFlakyDoesNotBlock(t *testing.T) {
	// Fails on the first run of the job (the baseline's first) and
	// on the fourth (the first attempt's), passes on the others.
	flaky := `import os


def test_sometimes():
    assert int(os.environ["CAPSULE_RUN"]) not in (1, 3)


def test_later():
    assert int(os.environ["CAPSULE_RUN"]) != 3
`
	dir := calculator(t, map[string]string{"tests/test_flaky.py": flaky})
	_, out := solveTuned(t, issueTask(t, dir), func(s *pipeline.Settings) { s.RunNumber = true }, rightAnswer)
	if got := out.Log.Baseline.Flaky; !slices.Equal(got, []string{"tests/test_flaky.py::test_sometimes"}) {
		t.Errorf("baseline flaky %q", got)
	}
	// The baseline reruns only the tests that failed, not the suite,
	// through the command's own prefix and options.
	if runs := out.Log.Baseline.Runs; len(runs) != 2 || runs[1].Command[2] != "python3 -m pytest "+
		"tests/test_flaky.py::test_sometimes tests/test_stats.py::test_mean_of_nothing_is_zero tests/test_stats.py::test_median_of_nothing_is_zero -q" {
		t.Errorf("baseline runs %+v, want the failing tests rerun by node id", runs)
	}
	if out.Outcome() != attemptlog.Solved || out.Log.AttemptIndex != 0 {
		t.Fatalf("outcome %q at attempt %d, want solved at 0: %+v", out.Outcome(), out.Log.AttemptIndex, out.Log.Attempts)
	}
	if got := ids(out.Log.Proof().Flaky); !slices.Equal(got, []string{"tests/test_flaky.py::test_later", "tests/test_flaky.py::test_sometimes"}) {
		t.Errorf("verdict flaky %q, want test_later (its rerun passed) and test_sometimes", got)
	}
}

// testExitBeforeReport: a run that exits 0 before reporting the baseline's tests fails.
func testExitBeforeReport(t *testing.T) {
	dir := calculator(t, nil)
	exits := "import os\nos._exit(0)\n" + calculatortest.RightStats
	out := solveIssue(t, dir, calculatortest.Answer("calc/stats.py", exits), rightAnswer)
	first := out.Log.Attempts[0]
	if first.Run.ExitCode != 0 || first.Run.Passed || !strings.Contains(first.Run.Reason, "cannot be trusted") {
		t.Errorf("attempt 0: exit %d, passed %v, reason %q; want exit 0 refused by the gate", first.Run.ExitCode, first.Run.Passed, first.Run.Reason)
	}
	if out.Outcome() != attemptlog.Solved || out.Log.AttemptIndex != 1 {
		t.Errorf("outcome %q at attempt %d, want solved at 1", out.Outcome(), out.Log.AttemptIndex)
	}
}

// testReproduceOffUnproven: passing tests with reproduce off are unproven.
func testReproduceOffUnproven(t *testing.T) {
	dir := calculator(t, map[string]string{"tests/test_stats.py": calculatortest.WithoutEmptyListTests(t)})
	task := issueTask(t, dir)
	task.Reproduce = repo.ReproduceOff
	out := solveTask(t, task, noOpAnswer(t))
	if out.Outcome() != attemptlog.Unproven || !out.Solved() {
		t.Errorf("a no-op on passing tests: outcome %q, want unproven", out.Outcome())
	}
}

// testExitStatusFallback: a command without per-test results falls back to the exit status and says so.
func testExitStatusFallback(t *testing.T) {
	out := solveTask(t, repo.Plan{Task: repo.Task{ID: "fallback", Title: calculatortest.IssueTitle, Body: calculatortest.IssueBody, Dir: calculator(t, nil)},
		TestCommand: `python3 -c "from calc import mean; assert mean([]) == 0.0"`, Limits: sandbox.Limits{Timeout: time.Minute}},
		rightAnswer)
	if !strings.Contains(out.Log.Baseline.Fallback, "no per-test report: ") || !strings.Contains(out.Log.Baseline.Fallback, "only the exit status counts") {
		t.Errorf("fallback %q", out.Log.Baseline.Fallback)
	}
	if out.Outcome() != attemptlog.Unproven || out.Log.Attempts[0].Verdict != nil {
		t.Errorf("outcome %q, want unproven by the exit status alone", out.Outcome())
	}
	var md strings.Builder
	out.Log.WriteMarkdown(&md)
	if !strings.Contains(md.String(), "**Only the exit status counts:** no per-test report") {
		t.Errorf("the log does not say only the exit status counts:\n%s", md.String())
	}
}

// testReproNoOpThenFix: a no-op is never solved, the right fix that follows is.
func testReproNoOpThenFix(t *testing.T) {
	out := solveIssue(t, filed(t), reproAnswer(reproRight), noOpAnswer(t), rightAnswer)
	log := out.Log
	if r := log.Reproduction; r == nil || !r.Accepted || len(r.Tries) != 1 || !slices.Equal(log.Baseline.Targets, reproTargets) {
		t.Fatalf("reproduction %+v, reproTargets %q", r, log.Baseline.Targets)
	}
	if len(log.Attempts) != 2 {
		t.Fatalf("%d attempts, want 2", len(log.Attempts))
	}
	noOp, fix := log.Attempts[0], log.Attempts[1]
	if noOp.Run.Passed || noOp.Verdict.Targets[0].After != testreport.Failed || noOp.Verdict.Proven() {
		t.Errorf("the no-op: passed %v, verdict %+v; want its target failing", noOp.Run.Passed, noOp.Verdict)
	}
	if !fix.Run.Passed || !fix.Verdict.Proven() || out.Outcome() != attemptlog.Solved || log.AttemptIndex != 1 {
		t.Errorf("the fix: outcome %q at attempt %d, verdict %+v; want solved at 1", out.Outcome(), log.AttemptIndex, fix.Verdict)
	}
	// The change carries the reproducing test as a new file.
	if !strings.Contains(out.Patch, "+++ b/tests/test_capsule_reproduction.py") || !strings.Contains(out.Patch, "+++ b/calc/stats.py") {
		t.Errorf("the patch lacks the test or the fix:\n%s", out.Patch)
	}
	if log.DesignCalls() != 1 || log.ModelCalls() != 3 {
		t.Errorf("%d designer calls of %d, want 1 of 3", log.DesignCalls(), log.ModelCalls())
	}
}

// testReproNotCollected: a test that is not collected goes back to the designer.
func testReproNotCollected(t *testing.T) {
	task := issueTask(t, filed(t))
	srv, out := solveScripted(t, task, reproAnswer(reproBroken), reproAnswer(reproRight), rightAnswer)
	r := out.Log.Reproduction
	if len(r.Tries) != 2 || !strings.Contains(r.Tries[0].Problem, "could not be collected") || !r.Accepted {
		t.Fatalf("reproduction %+v", r)
	}
	retry := srv.Requests()[1].Messages
	if last := retry[len(retry)-1].Content; !strings.Contains(last, "could not be collected") || !strings.Contains(last, "mean_of_nothing") {
		t.Errorf("the designer's retry does not say why:\n%s", last)
	}
	assertBlind(t, retry)
	if out.Outcome() != attemptlog.Solved {
		t.Errorf("outcome %q, want solved", out.Outcome())
	}
}

// testReproPassingRefused: a test that passes on the untouched tree is refused.
func testReproPassingRefused(t *testing.T) {
	out := solveIssue(t, filed(t), reproAnswer(reproPasses), reproAnswer(reproRight), rightAnswer)
	r := out.Log.Reproduction
	if len(r.Tries) != 2 || !strings.Contains(r.Tries[0].Problem, "pass on the untouched tree: they reproduce nothing") {
		t.Fatalf("reproduction %+v", r)
	}
	if out.Outcome() != attemptlog.Solved {
		t.Errorf("outcome %q, want solved", out.Outcome())
	}
}

// testReproKept: the programmer cannot edit the accepted test.
func testReproKept(t *testing.T) {
	cheat := calculatortest.Answer("tests/test_capsule_reproduction.py", "def test_nothing():\n    pass\n")
	out := solveIssue(t, filed(t), reproAnswer(reproRight), cheat, rightAnswer)
	first := out.Log.Attempts[0]
	if first.Run != nil || len(first.Refused) != 1 || !strings.Contains(first.Refused[0], "it is the test that shows the issue") {
		t.Fatalf("attempt 0: run %v, refused %q", first.Run, first.Refused)
	}
	if out.Outcome() != attemptlog.Solved || out.Log.AttemptIndex != 1 {
		t.Errorf("outcome %q at %d, want solved at 1", out.Outcome(), out.Log.AttemptIndex)
	}
}

// testReproRevised: a wrong test the programmer keeps failing alone is revised once.
func testReproRevised(t *testing.T) {
	wrong := "from calc import mean\n\n\ndef test_mean_of_empty_list_is_none():\n    assert mean([]) is None\n"
	task := issueTask(t, filed(t))
	srv, out := solveScripted(t, task, reproAnswer(wrong), rightAnswer, rightAnswer, reproAnswer(reproRight), rightAnswer)
	log := out.Log
	r := log.Reproduction
	if len(r.Tries) != 2 || !r.Tries[1].Revision || r.Tries[1].Problem != "" || r.Content != reproRight {
		t.Fatalf("reproduction tries %+v", r.Tries)
	}
	if out.Outcome() != attemptlog.Solved || log.AttemptIndex != 2 || !slices.Equal(log.Baseline.Targets, reproTargets) {
		t.Errorf("outcome %q at attempt %d, reproTargets %q; want solved at 2 on the revised test", out.Outcome(), log.AttemptIndex, log.Baseline.Targets)
	}
	if !strings.Contains(log.Attempts[1].Feedback, "was revised by the test designer") {
		t.Errorf("attempt 1's feedback does not say the test changed:\n%s", log.Attempts[1].Feedback)
	}
	ask := srv.Requests()[3].Messages
	if last := ask[len(ask)-1].Content; !strings.Contains(last, "passed every other test but not yours") || !strings.Contains(last, "is None") {
		t.Errorf("the revision request:\n%s", last)
	}
	assertBlind(t, ask)
}

// testReproRequired: required with no reproduction is not solved, with the reason.
func testReproRequired(t *testing.T) {
	task := issueTask(t, filed(t))
	task.Reproduce, task.ReproduceTries = repo.ReproduceRequired, 2
	out := solveTask(t, task, reproAnswer(reproPasses))
	log := out.Log
	if len(log.Attempts) != 0 || out.Outcome() != attemptlog.NotSolved || len(log.Reproduction.Tries) != 2 ||
		!strings.Contains(log.Stopped, "reproduce: required, and no test shows the issue (no reproducing test was accepted in 2 tries)") {
		t.Errorf("outcome %q, %d attempts, %d designer tries, stopped %q", out.Outcome(), len(log.Attempts), len(log.Reproduction.Tries), log.Stopped)
	}
}

// assertBlind fails when the test designer's messages show the
// programmer's fix.
func assertBlind(t *testing.T, msgs []openai.ChatCompletionMessage) {
	t.Helper()
	for _, m := range msgs {
		if strings.Contains(m.Content, "if not values") {
			t.Error("the designer saw the programmer's code")
		}
	}
}
