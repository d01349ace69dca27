package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox/agent"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// filedRepo is the example as it was when the issue was filed (no test of
// the empty list), with the test command test and changes laid over it:
// a path mapped to "" is removed.
func filedRepo(t *testing.T, test string, changes map[string]string) string {
	t.Helper()
	repo := exampleRepo(t, "test: "+test+"\ntimeout: 1m\nmax_attempts: 2\n")
	changes = mergeMaps(map[string]string{"tests/test_stats.py": calculatortest.WithoutEmptyListTests(t)}, changes)
	for name, content := range changes {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if content == "" {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

func mergeMaps(a, b map[string]string) map[string]string {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// designed is the test designer's answer: test as the file at path.
func designed(path, test string) string {
	return "The empty list must give 0.0.\n\n### File: " + path + "\n```python\n" + test + "```\n"
}

// readLog reads attempts.json of a solve run.
func readLog(t *testing.T, out string) attemptlog.Log {
	t.Helper()
	var l attemptlog.Log
	if err := json.Unmarshal([]byte(readOut(t, out, attemptsJSONFile)), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

const (
	emptyMeanTest = "from calc import mean\n\n\ndef test_mean_of_empty_list_is_zero():\n    assert mean([]) == 0.0\n"
	noOpComment   = "# Looked at the empty-list case.\n"
)

// TestSolveProofWhereTestsRun: the proof runs where and how the
// repository's tests run (issue 23), through `capsule solve`.
func TestSolveProofWhereTestsRun(t *testing.T) {
	sandboxtest.Engine(t)
	noOp := calculatortest.Answer("calc/stats.py", noOpComment+calculatortest.Files(t)["calc/stats.py"])
	right := calculatortest.Answer("calc/stats.py", calculatortest.RightStats)

	t.Run("a scoped command runs the reproducing test in every attempt", func(t *testing.T) {
		t.Parallel()
		repo := filedRepo(t, "python3 -m pytest -q tests/test_ops.py", nil)
		const file = "tests/test_capsule_reproduction.py"
		r := solveWith(t, repo, []string{designed(file, emptyMeanTest), noOp, right})
		if r.code != exitOK {
			t.Fatalf("exit %d, want solved\n%s", r.code, r.stderr)
		}
		l := readLog(t, r.out)
		if len(l.Attempts) != 2 {
			t.Fatalf("%d attempts, want the no-op then the fix", len(l.Attempts))
		}
		for i, a := range l.Attempts {
			want := []testreport.Outcome{testreport.Failed, testreport.Passed}[i]
			if a.Verdict == nil || len(a.Verdict.Targets) != 1 || a.Verdict.Targets[0].After != want {
				t.Errorf("attempt %d: verdict %+v, want its target %s", i, a.Verdict, want)
			}
			if cmd := a.Run.Command[2]; cmd != "python3 -m pytest "+file+" -q tests/test_ops.py" {
				t.Errorf("attempt %d ran %q, want the reproducing file added to the command", i, cmd)
			}
		}
		if try := l.Reproduction.Tries[0]; try.Run.Command[2] != "python3 -m pytest "+file+" -q tests/test_ops.py" {
			t.Errorf("the acceptance run ran %q, want the command with the file", try.Run.Command[2])
		}
		if md := readOut(t, r.out, attemptsMDFile); !strings.Contains(md, "| `"+file+"::test_mean_of_empty_list_is_zero` | failed | passed |") {
			t.Errorf("attempts.md lacks the proof:\n%s", md)
		}
	})

	// Commands that leave the reproducing test out: it runs by node id
	// through the command's pytest invocation, and the log says why.
	for _, tc := range []struct{ name, cmd, why string }{
		{"a command that deselects the reproducing test", "python3 -m pytest -q -k 'not empty'", "its -k option may deselect them"},
		{"a command of several commands", "python3 -c 'import calc' && python3 -m pytest -q tests/test_ops.py", "it is not one plain pytest invocation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo := filedRepo(t, tc.cmd, nil)
			const file = "tests/test_capsule_reproduction.py"
			r := solveWith(t, repo, []string{designed(file, emptyMeanTest), right})
			if r.code != exitOK {
				t.Fatalf("exit %d, want solved\n%s", r.code, r.stderr)
			}
			if also := readLog(t, r.out).Attempts[0].Run.Also; also != "`python3 -m pytest "+file+" -q`, because the test command left out "+file+": "+tc.why {
				t.Errorf("the attempt's second invocation: %q", also)
			}
		})
	}

	t.Run("a test placed beside the conftest.py whose fixture it uses is accepted", func(t *testing.T) {
		t.Parallel()
		conftest := "import pytest\n\n\n@pytest.fixture\ndef nothing():\n    return []\n"
		repo := filedRepo(t, "python3 -m pytest -q", map[string]string{
			"tests/test_stats.py": "", "tests/unit/test_stats.py": calculatortest.WithoutEmptyListTests(t), "tests/unit/conftest.py": conftest,
		})
		const file = "tests/unit/test_capsule_reproduction.py"
		test := "from calc import mean\n\n\ndef test_mean_of_empty_list_is_zero(nothing):\n    assert mean(nothing) == 0.0\n"
		r := solveWith(t, repo, []string{designed(file, test), right})
		l := readLog(t, r.out)
		if r.code != exitOK || l.Reproduction.File != file || !l.Reproduction.Accepted {
			t.Fatalf("exit %d, reproduction %+v; want %s accepted and solved\n%s", r.code, l.Reproduction, file, r.stderr)
		}
		if ask := r.server.Requests()[0].Messages; !strings.Contains(ask[len(ask)-1].Content, "tests/unit/conftest.py:\n```python\n"+strings.TrimRight(conftest, "\n")) {
			t.Errorf("the designer was not shown the conftest.py near its file")
		}
	})

	t.Run("a src layout with PYTHONPATH in the command", func(t *testing.T) {
		t.Parallel()
		// Until the plugin is loaded another way than PYTHONPATH, the
		// command keeps its directory on the path.
		cmd := "PYTHONPATH=src:" + agent.PluginDir + " python3 -m pytest -q tests/test_ops.py"
		files := calculatortest.Files(t)
		repo := filedRepo(t, cmd, map[string]string{
			"calc/__init__.py": "", "calc/ops.py": "", "calc/stats.py": "",
			"src/calc/__init__.py": files["calc/__init__.py"], "src/calc/ops.py": files["calc/ops.py"], "src/calc/stats.py": files["calc/stats.py"],
		})
		const file = "tests/test_capsule_reproduction.py"
		r := solveWith(t, repo, []string{designed(file, emptyMeanTest), calculatortest.Answer("src/calc/stats.py", calculatortest.RightStats)})
		l := readLog(t, r.out)
		if r.code != exitOK || l.Baseline.Tests == 0 || !l.Reproduction.Accepted {
			t.Fatalf("exit %d, %d baseline tests, reproduction %+v; want solved\n%s", r.code, l.Baseline.Tests, l.Reproduction, r.stderr)
		}
		if got := l.Attempts[0].Run.Command[2]; !strings.HasPrefix(got, "PYTHONPATH=src:") {
			t.Errorf("the attempt ran %q", got)
		}
	})

	t.Run("an answer is not solved when another test of the reproducing file fails after it", func(t *testing.T) {
		t.Parallel()
		// The answer only adds calc/notes.py: the first test fails
		// without it and passes with it, the second the other way round,
		// as a change that fixes one and breaks the other would.
		test := "import os\n\nNOTES = os.path.exists('calc/notes.py')\n\n\ndef test_shows_issue():\n    assert NOTES\n\n\ndef test_other():\n    assert not NOTES\n"
		repo := filedRepo(t, "python3 -m pytest -q", nil)
		const file = "tests/test_capsule_reproduction.py"
		r := solveWith(t, repo, []string{designed(file, test), calculatortest.Answer("calc/notes.py", "# Notes on the statistics.\n")}, "--max-attempts", "0")
		if r.code == exitOK || r.code == exitUnproven {
			t.Fatalf("exit %d, want not solved\n%s", r.code, r.stderr)
		}
		v := readLog(t, r.out).Attempts[0].Verdict
		if v == nil || len(v.NewFailures) != 1 || v.NewFailures[0].ID.String() != file+"::test_other" || !v.Targets[0].After.Passing() {
			t.Errorf("verdict %+v; want its target passing and %s::test_other blocking", v, file)
		}
		if md := readOut(t, r.out, attemptsMDFile); !strings.Contains(md, "did not run before") {
			t.Errorf("attempts.md does not name the new failure:\n%s", md)
		}
	})
}
