package attemptlog

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/gate"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func functionLog() *Log {
	return &Log{
		TaskID: "HumanEval/0", Model: "qwen", Solved: true, AttemptIndex: 1, Duration: 1500 * time.Millisecond,
		Attempts: []Attempt{
			{
				Index: 0, Mode: Generate, Messages: []chat.Message{{Role: chat.User, Content: "task"}},
				Answer: "answer", Code: "def add(a, b):\n    return a - b\n\n", Removed: [][2]int{{4, 4}, {6, 8}},
				Run:      &Run{Command: []string{"python3", "capsule_harness.py"}, Image: "capsule-python:1", ExitCode: 1, Reason: "tests failed", Output: "Traceback ...\nAssertionError\n", Duration: 80 * time.Millisecond},
				Feedback: "A test failed at tests.py, line 3:\n    assert add(2, 3) == 5", FeedbackKind: "assertion",
				PromptTokens: 120, CompletionTokens: 30, ModelDuration: 900 * time.Millisecond,
			},
			{
				Index: 1, Mode: Fix, Answer: "fixed", Code: "def add(a, b):\n    return a + b\n",
				Run:          &Run{Command: []string{"python3", "capsule_harness.py"}, Image: "capsule-python:1", Passed: true, Duration: 70 * time.Millisecond},
				PromptTokens: 200, CompletionTokens: 25, ModelDuration: 400 * time.Millisecond,
			},
		},
	}
}

func repoLog() *Log {
	return &Log{
		TaskID: "issue-7", Model: "gpt", AttemptIndex: -1, Duration: 3 * time.Second,
		Stopped:     "No attempt passed within 1 fix attempts.",
		TestCommand: "python3 -m pytest -q", TestReason: "pytest: found tests/test_ops.py",
		Context: &Context{Tokens: 900, Budget: 24000, Included: []string{"calc/ops.py (named in the issue)"}, Omitted: []string{"big.py: over budget"}},
		Setup:   &Run{Command: []string{"sh", "-c", "pip install -e ."}, Image: "capsule-python:1", Passed: true},
		Attempts: []Attempt{
			{Index: 0, Mode: Generate, Answer: "no code here", Feedback: "Your answer contained no code.", FeedbackKind: "format", PromptTokens: 500, CompletionTokens: 10},
			{
				Index: 1, Mode: Fix,
				Changes:  []Change{{Path: "calc/ops.py", Status: "modified", Added: 1, Removed: 1}},
				Refused:  []string{"you may not modify tests/test_ops.py (protected by \"tests/**\"); fix the code, not the tests"},
				Patch:    "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1 +1 @@\n-x | y\n+x ```y```\n",
				Run:      &Run{Command: []string{"sh", "-c", "python3 -m pytest -q"}, Image: "capsule-python:1", ExitCode: 1, Reason: "exit status 1", Output: strings.Repeat("F", 5000), Duration: time.Second},
				Feedback: "1 failed", FeedbackKind: "pytest", PromptTokens: 700, CompletionTokens: 90,
			},
		},
	}
}

// provenLog is a repository-mode log whose second attempt the gate
// passed as a proven fix.
func provenLog() *Log {
	l := repoLog()
	l.Stopped, l.Solved, l.AttemptIndex, l.Outcome = "", true, 1, Solved
	stats := func(name string) gate.ID { return gate.ID{File: "tests/test_stats.py", Name: name} }
	l.Baseline = &Baseline{
		Plan:  "per-test results from pytest, if `python3 -m pytest -q` runs it",
		Runs:  []*Run{{ExitCode: 1, Reason: "exit status 1", Duration: time.Second}, {ExitCode: 1, Reason: "exit status 1", Duration: time.Second}},
		Tests: 9, Failing: []string{"tests/test_ops.py::test_fetch", "tests/test_stats.py::test_mean_empty"},
		Targets: []string{"tests/test_stats.py::test_mean_empty"}, TargetsFrom: "tests the issue names that fail on the untouched tree",
	}
	l.Attempts[1].Run.Passed, l.Attempts[1].Run.Reason = true, "exit status 1, from tests that already failed or are flaky"
	l.Attempts[1].Verdict = &gate.Verdict{
		Passed:         true,
		Targets:        []gate.Change{{ID: stats("test_mean_empty"), Before: testreport.Failed, After: testreport.Passed}},
		AlreadyFailing: []gate.Change{{ID: gate.ID{File: "tests/test_ops.py", Name: "test_fetch"}, Before: testreport.Failed, After: testreport.Failed}},
		Kept:           7,
	}
	return l
}

// budgetLog is a repository-mode log that a money budget stopped, its
// calls priced.
func budgetLog() *Log {
	l := repoLog()
	l.Stopped = "Stopped by the budget: the money budget per job ($0.0500) has $0.0120 left, and the next model call could take up to $0.0310; no further model call was made."
	l.Spend = &Spend{Programmer: Usage{Prompt: 2400, Completion: 310}, Designer: Usage{Prompt: 900, Completion: 120},
		Cost: 0.038, Priced: true, MaxTokens: 200000, MaxCost: 0.05, StoppedBy: "the money budget per job"}
	return l
}

func TestMarkdownGolden(t *testing.T) {
	for name, l := range map[string]*Log{"function": functionLog(), "repo": repoLog(), "proven": provenLog(), "budget": budgetLog()} {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			if err := l.WriteMarkdown(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", name+".md"), b.String())
		})
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	goldenfile.Check(t, path, got, *update)
}

func TestCounts(t *testing.T) {
	l := functionLog()
	if l.ModelCalls() != 2 {
		t.Errorf("ModelCalls() = %d", l.ModelCalls())
	}
	if p, c := l.Tokens(); p != 320 || c != 55 {
		t.Errorf("Tokens() = %d, %d; want 320, 55", p, c)
	}
	if f := l.Final(); f == nil || f.Index != 1 {
		t.Errorf("Final() = %+v", f)
	}
	if got := repoLog().Final(); got == nil || got.Index != 1 {
		t.Errorf("Final() skips attempts without a run: %+v", got)
	}
	if fb := l.Feedback(); len(fb) != 2 || fb[1] != "" {
		t.Errorf("Feedback() = %q", fb)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, l := range []*Log{functionLog(), repoLog(), budgetLog()} {
		data, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		var back Log
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		again, _ := json.Marshal(&back)
		if string(again) != string(data) {
			t.Errorf("JSON changed in a round trip:\n%s\n%s", data, again)
		}
	}
}
