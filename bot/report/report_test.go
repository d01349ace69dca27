package report

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/specialcase"
	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update)
}

var issue = Issue{Owner: "acme", Repo: "calc", Number: 12, Title: "add() subtracts instead of adding"}

const addPatch = `--- a/calc/ops.py
+++ b/calc/ops.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
`

func pytestRun(passed bool, output string) *attemptlog.Run {
	r := &attemptlog.Run{
		Command: []string{"sh", "-c", "python3 -m pytest -q"}, Image: "capsule-python:0.1.0",
		Passed: passed, Output: output, Duration: 1200 * time.Millisecond,
	}
	if !passed {
		r.ExitCode, r.Reason = 1, "exit status 1"
	}
	return r
}

// solvedLog fails at the generation with an assertion and passes at the
// first fix.
func solvedLog() *attemptlog.Log {
	return &attemptlog.Log{
		TaskID: "issue-12", Model: "qwen2.5-coder:7b", Solved: true, AttemptIndex: 1, Duration: 42500 * time.Millisecond,
		TestCommand: "python3 -m pytest -q", TestReason: "pytest: found tests/test_ops.py",
		Context: &attemptlog.Context{Tokens: 850, Budget: 24000, Included: []string{"calc/ops.py (named in the issue)", "tests/test_ops.py (tests)"}},
		Attempts: []attemptlog.Attempt{
			{
				Index: 0, Mode: attemptlog.Generate,
				Changes: []attemptlog.Change{{Path: "calc/ops.py", Status: "modified", Added: 2, Removed: 1}},
				Patch:   "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,2 +1,3 @@\n def add(a, b):\n-    return a - b\n+    # add the numbers\n+    return a - b\n",
				Run: pytestRun(false, "F.\n=================================== FAILURES ===================================\n"+
					"___________________________________ test_add ___________________________________\n"+
					"    def test_add():\n>       assert add(2, 3) == 5\nE       assert -1 == 5\n\ntests/test_ops.py:4: AssertionError\n1 failed, 1 passed in 0.03s\n"),
				Feedback:     "tests/test_ops.py:4: test_add failed:\n    assert add(2, 3) == 5\nE   assert -1 == 5",
				FeedbackKind: "assertion", PromptTokens: 1850, CompletionTokens: 96, ModelDuration: 20 * time.Second,
			},
			{
				Index: 1, Mode: attemptlog.Fix,
				Changes:      []attemptlog.Change{{Path: "calc/ops.py", Status: "modified", Added: 1, Removed: 1}},
				Patch:        addPatch,
				Run:          pytestRun(true, "..\n2 passed in 0.02s\n"),
				PromptTokens: 2105, CompletionTokens: 64, ModelDuration: 15 * time.Second,
			},
		},
	}
}

// failedLog fails at every attempt.
func failedLog() *attemptlog.Log {
	return &attemptlog.Log{
		TaskID: "issue-12", Model: "qwen2.5-coder:7b", AttemptIndex: -1, Duration: 95 * time.Second,
		Stopped:     "No attempt passed within 2 fix attempts.",
		TestCommand: "python3 -m pytest -q", TestReason: "configured in .github/capsule.yml",
		Attempts: []attemptlog.Attempt{
			{
				Index: 0, Mode: attemptlog.Generate, Answer: "I think the bug is in ops.py.",
				Feedback: "Your answer contained no files.", FeedbackKind: "format",
				PromptTokens: 1850, CompletionTokens: 40, ModelDuration: 9 * time.Second,
			},
			{
				Index: 1, Mode: attemptlog.Fix,
				Changes:  []attemptlog.Change{{Path: "calc/ops.py", Status: "modified", Added: 1, Removed: 1}},
				Patch:    "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -2 +2 @@\n-    return a - b\n+    return b - a\n",
				Run:      pytestRun(false, "F.\nE       assert 1 == 5\n1 failed, 1 passed in 0.03s\n"),
				Feedback: "test_add failed: assert 1 == 5", FeedbackKind: "assertion",
				PromptTokens: 2100, CompletionTokens: 70, ModelDuration: 12 * time.Second,
			},
			{
				Index: 2, Mode: attemptlog.Fix,
				Changes: []attemptlog.Change{
					{Path: "calc/ops.py", Status: "modified", Added: 3, Removed: 1},
					{Path: "calc/util.py", Status: "added", Added: 4},
				},
				Patch:    "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -2 +2,3 @@\n-    return a - b\n+    from calc.util import plus\n+    return plus(a, b)\n+\n--- /dev/null\n+++ b/calc/util.py\n@@ -0,0 +1,4 @@\n+def plus(a, b):\n+    return a | b\n+\n+\n",
				Run:      pytestRun(false, "F.\nE       assert 3 == 5\n1 failed, 1 passed in 0.03s\n"),
				Feedback: "test_add failed: assert 3 == 5", FeedbackKind: "assertion",
				PromptTokens: 2300, CompletionTokens: 120, ModelDuration: 14 * time.Second,
			},
		},
	}
}

// specialCasedLog passes at the first fix with a change that reads
// Capsule's run number: unproven, whatever the tests say.
func specialCasedLog() *attemptlog.Log {
	log := solvedLog()
	log.Outcome = attemptlog.Unproven
	log.Attempts[1].SpecialCasing = []specialcase.Finding{
		{File: "calc/ops.py", Line: 3, What: "CAPSULE_RUN", Why: "a variable of Capsule's test environment: code that reads it can tell Capsule's runs from real use"},
	}
	return log
}

// budgetLog is failedLog stopped by its token budget, its calls priced.
func budgetLog() *attemptlog.Log {
	log := failedLog()
	log.Stopped = "Stopped by the budget: the token budget per job (20,000 tokens) has 4,400 tokens left, and the next model call could take up to 10,700 (a prompt of about 2,508 and an answer of up to 8,192); no further model call was made."
	log.Spend = &attemptlog.Spend{Programmer: attemptlog.Usage{Prompt: 6300, Completion: 250}, Designer: attemptlog.Usage{Prompt: 900, Completion: 150},
		Cost: 0.0063, Priced: true, MaxTokens: 20000, StoppedBy: "the token budget per job"}
	return log
}

func TestPullRequestGolden(t *testing.T) {
	for name, log := range map[string]*attemptlog.Log{"solved": solvedLog(), "failed": failedLog(), "special_cased": specialCasedLog(), "budget": budgetLog()} {
		t.Run(name, func(t *testing.T) {
			title, body := PullRequest(issue, log, "0.1.0", 0)
			checkMarkdown(t, body)
			golden(t, "pr_"+name+".md", "Title: "+title+"\n\n"+body)
		})
	}
}

func TestPullRequestHonesty(t *testing.T) {
	title, body := PullRequest(issue, solvedLog(), "0.1.0", 0)
	if title != issue.Title || !strings.HasPrefix(body, "Closes #12.\n") || !strings.Contains(body, "The tests pass (`python3 -m pytest -q`) at attempt 1") {
		t.Errorf("solved: title %q, body:\n%s", title, body)
	}
	title, body = PullRequest(issue, failedLog(), "0.1.0", 0)
	if title != "[not passing] "+issue.Title || !strings.HasPrefix(body, "For #12.\n") {
		t.Errorf("failed: title %q, body starts %q", title, body[:40])
	}
	for _, bad := range []string{"Closes", "Fixes", "Resolves", "The tests pass", "**Tests pass**"} {
		if strings.Contains(body, bad) {
			t.Errorf("a failing body says %q", bad)
		}
	}
	for _, want := range []string{"**The tests do not pass.**", "do not merge it as it is", "No attempt passed within 2 fix attempts."} {
		if !strings.Contains(body, want) {
			t.Errorf("a failing body lacks %q", want)
		}
	}
}

func TestPullRequestTitle(t *testing.T) {
	long := strings.Repeat("é", 300)
	title, _ := PullRequest(Issue{Number: 1, Title: long}, failedLog(), "", 0)
	if n := len([]rune(title)); n != MaxTitle || !strings.HasPrefix(title, "[not passing] ") || !strings.HasSuffix(title, "…") {
		t.Errorf("title of %d runes: %q", n, title)
	}
	title, _ = PullRequest(Issue{Number: 7, Title: " two\nlines "}, solvedLog(), "", 0)
	if title != "two lines" {
		t.Errorf("title = %q", title)
	}
	title, _ = PullRequest(Issue{Number: 7}, solvedLog(), "", 0)
	if title != "Fix #7" {
		t.Errorf("title = %q", title)
	}
	_, body := PullRequest(Issue{Number: 7}, nil, "", 0)
	if !strings.HasPrefix(body, "For #7.") || strings.Contains(body, "The tests pass") {
		t.Errorf("nil log: %s", body)
	}
	checkMarkdown(t, body)
}

func TestStatusCommentGolden(t *testing.T) {
	failedDraft := failedLog()
	for name, s := range map[string]Status{
		"queued":        {State: work.Queued},
		"starting":      {State: work.Running, Attempt: -1},
		"running":       {State: work.Running, Attempt: 2, Of: 5, LastResult: "3 failed, 12 passed"},
		"done":          {State: work.Done, LastResult: "tests pass (2 passed)", PullRequestURL: "https://github.com/acme/calc/pull/13", Log: solvedLog(), RunURL: "https://github.com/acme/calc/actions/runs/99"},
		"failed_config": {State: work.Failed, Reason: ".github/capsule.yml: line 3: unknown key `max_attemps`"},
		"failed_draft":  {State: work.Failed, Reason: failedDraft.Stopped, LastResult: "tests fail: exit status 1 (1 failed, 1 passed)", PullRequestURL: "https://github.com/acme/calc/pull/14", DraftPullRequest: true, Log: failedDraft},
		"failed_env":    {State: work.Failed, Reason: environmentLog().Stopped, Log: environmentLog()},
		"skipped":       {State: work.Skipped, Reason: `label "bug" is not the trigger label "capsule"`},
		"busy":          {State: work.Running, Attempt: 1, Of: 5, LastResult: "no code", Busy: true},
	} {
		t.Run(name, func(t *testing.T) {
			got := StatusComment(s)
			if !strings.HasPrefix(got, Marker+"\n") {
				t.Errorf("the marker does not open the comment")
			}
			checkMarkdown(t, got)
			golden(t, "status_"+name+".md", got)

			if !s.Busy {
				busy := s
				busy.Busy = true
				added, ok := AddBusy(got)
				if !ok || added != StatusComment(busy) {
					t.Errorf("AddBusy = %v:\n%s\nwant\n%s", ok, added, StatusComment(busy))
				}
				if again, ok := AddBusy(added); ok || again != added {
					t.Errorf("AddBusy added the line twice")
				}
			}
		})
	}
}

func TestStatusHonesty(t *testing.T) {
	got := StatusComment(Status{State: work.Done, PullRequestURL: "https://x/pull/1", DraftPullRequest: true, Log: failedLog()})
	if strings.Contains(got, "The tests pass") || !strings.Contains(got, "not passing") || !strings.Contains(got, "do not merge") {
		t.Errorf("done with a failing log:\n%s", got)
	}
	got = StatusComment(Status{State: work.Done, PullRequestURL: "https://x/pull/1"})
	if strings.Contains(got, "tests pass") || strings.Contains(got, "tests do not pass") {
		t.Errorf("done without a log claims an outcome:\n%s", got)
	}
}

func TestStatusLongTexts(t *testing.T) {
	huge := strings.Repeat("é", 3*MaxBody)
	log := hugeLog(6, 30000, 0, false)
	for _, s := range []Status{
		{State: work.Failed, Reason: huge, Log: log},
		{State: work.Failed, Reason: "a\n<b>\n" + huge, LastResult: huge, PullRequestURL: huge, RunURL: huge, Log: log, Busy: true},
		{State: work.Done, Log: hugeLog(200, 2000, 2000, true)},
	} {
		got := StatusComment(s)
		if n := len([]rune(got)); n > MaxBody {
			t.Errorf("status comment of %d characters", n)
		}
		checkMarkdown(t, got)
		if added, _ := AddBusy(got); len([]rune(added)) > MaxBody {
			t.Errorf("AddBusy made %d characters", len([]rune(added)))
		}
	}
}

func TestPermissionDeniedGolden(t *testing.T) {
	got := PermissionDenied("octocat", "read", "write", "capsule") + "\n---\n\n" + PermissionDenied("octocat", "", "maintain", "")
	if strings.HasPrefix(got, Marker) {
		t.Error("the permission comment carries the status marker")
	}
	golden(t, "permission.md", got)
}

func TestStepSummaryGolden(t *testing.T) {
	golden(t, "summary_solved.md", StepSummary(issue, solvedLog(), "https://github.com/acme/calc/pull/13"))
	golden(t, "summary_failed.md", StepSummary(issue, failedLog(), ""))
}

func TestStepSummaryLimit(t *testing.T) {
	got := StepSummary(issue, hugeLog(60, 30000, 30000, false), "https://github.com/acme/calc/pull/14")
	if len(got) > MaxStepSummary {
		t.Errorf("step summary of %d bytes", len(got))
	}
	if !strings.Contains(got, "the 1 MiB limit of a job summary") || strings.Contains(got, "The tests pass") {
		t.Errorf("step summary note or verdict wrong")
	}
	checkMarkdown(t, got)
}

// environmentLog is a job stopped before any model call: its test
// command was not found.
func environmentLog() *attemptlog.Log {
	e := &attemptlog.Environment{Phase: "baseline", What: "`pytest` was not found (exit status 127)", Command: "pytest -q",
		Tail: "sh: 1: pytest: not found", Fix: "install it in the set-up (`setup:` in .github/capsule.yml)"}
	return &attemptlog.Log{TaskID: "issue-12", AttemptIndex: -1, TestCommand: "pytest -q", TestReason: "from .github/capsule.yml",
		Outcome: attemptlog.NotSolved, Environment: e, Stopped: e.Text(), Duration: 1500 * time.Millisecond,
		Baseline: &attemptlog.Baseline{Plan: "per-test results from the pytest session of `pytest -q`", Outcomes: map[string]int{},
			Runs: []*attemptlog.Run{{Command: []string{"sh", "-c", "pytest -q"}, Image: "capsule-python:1", ExitCode: 127, Reason: "exit status 127", Output: "sh: 1: pytest: not found\n"}}}}
}
