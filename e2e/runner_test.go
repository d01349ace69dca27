package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/capsulehq/capsule/pipeline/response"
)

// TestDesignerAnswer: the scripted designer writes the real test where
// the latest user message asks for it, else at the case's own path, in
// an answer Capsule's parser reads.
func TestDesignerAnswer(t *testing.T) {
	c := e2eCase{TestFile: "pkg/tests/test_capsule_x.py"}
	test := "def test_x():\n    assert True\n"
	user := func(s string) openai.ChatCompletionMessage {
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: s}
	}
	tests := []struct {
		name string
		msgs []openai.ChatCompletionMessage
		want string
	}{
		{"today's prompt", []openai.ChatCompletionMessage{user("<issue>...</issue>\n\nWrite the test that shows this issue as the new file tests/test_capsule_reproduction.py.")}, "tests/test_capsule_reproduction.py"},
		{"a retry names it again", []openai.ChatCompletionMessage{user("as the new file a/test_capsule_a.py."), {Role: openai.ChatMessageRoleAssistant, Content: "### File: as the new file b/test_b.py"}, user("It failed; write it again.")}, "a/test_capsule_a.py"},
		{"a pattern, not a path", []openai.ChatCompletionMessage{user("Write it as a new file test_capsule_*.py beside the related tests.")}, "pkg/tests/test_capsule_x.py"},
		{"in backticks", []openai.ChatCompletionMessage{user("Write it as the new file `tests/core/test_capsule_y.py`.")}, "tests/core/test_capsule_y.py"},
		{"no path asked for", []openai.ChatCompletionMessage{user("Write a test file next to the related tests.")}, "pkg/tests/test_capsule_x.py"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parsed, err := response.Parse(designerAnswer(openai.ChatCompletionRequest{Messages: tt.msgs}, c, test))
			if err != nil || len(parsed.Files) != 1 || parsed.Files[0].Path != tt.want || parsed.Files[0].Content != test {
				t.Errorf("parsed %+v (%v); want the test at %s", parsed.Files, err, tt.want)
			}
		})
	}
}

// TestProgrammerAnswer: the scripted programmer's answer for a patch is
// SEARCH/REPLACE blocks that turn the base's file into the patched one.
func TestProgrammerAnswer(t *testing.T) {
	repo := t.TempDir()
	old := "def f(x):\n    return x\n\n\ndef g(y):\n    return y\n"
	if err := os.WriteFile(filepath.Join(repo, "m.py"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "m.py"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	base, err := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	patch := filepath.Join(t.TempDir(), "fix.diff")
	diff := "--- a/m.py\n+++ b/m.py\n@@ -1,6 +1,8 @@\n def f(x):\n+    if x is None:\n+        return 0\n     return x\n \n \n def g(y):\n-    return y\n+    return -y\n"
	if err := os.WriteFile(patch, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	answer, err := programmerAnswer(filepath.Join(repo, ".git"), strings.TrimSpace(string(base)), patch, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := response.Parse(answer)
	if err != nil || len(parsed.Files) != 1 || parsed.Files[0].Path != "m.py" || len(parsed.Files[0].Blocks) == 0 {
		t.Fatalf("parsed %+v (%v) from:\n%s", parsed.Files, err, answer)
	}
	got := old
	for _, b := range parsed.Files[0].Blocks {
		if strings.Count(got, b.Search) != 1 {
			t.Fatalf("block %q does not match once in:\n%s", b.Search, got)
		}
		got = strings.Replace(got, b.Search, b.Replace, 1)
	}
	if want := "def f(x):\n    if x is None:\n        return 0\n    return x\n\n\ndef g(y):\n    return -y\n"; got != want {
		t.Errorf("the blocks make:\n%s\nwant:\n%s", got, want)
	}
}

// TestWhy: the table's reason comes from the attempt log.
func TestWhy(t *testing.T) {
	tests := []struct{ name, log, want string }{
		{"no report", `{"reproduction":{"skipped":"the tests give no per-test results"},"attempts":[{"feedback":"The tests failed with ImportError:\nNo module named 'capsule_testreport'\nmore"}]}`,
			"no reproducing test: the tests give no per-test results; attempt: The tests failed with ImportError: No module named 'capsule_testreport'"},
		{"refused test", `{"reproduction":{"tries":[{"problem":"first"},{"problem":"it passes on the untouched tree\nand more"}]}}`,
			"real test refused: it passes on the untouched tree"},
		{"target not run", `{"reproduction":{"accepted":true},"attempts":[{"verdict":{"Targets":[{"ID":{"Name":"test_a"},"Before":"failed","After":""},{"ID":{"Name":"test_b"},"Before":"failed","After":"passed"}],"Regressions":[{}]}}]}`,
			"real test accepted; target test_a failed→not run; 1 regressions, 0 missing"},
		{"untrusted", `{"attempts":[{"verdict":{"Untrusted":"no test process wrote a report"}}]}`, "untrusted: no test process wrote a report"},
		{"unreadable", `not json`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := why([]byte(tt.log)); got != tt.want {
				t.Errorf("why = %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestTable: one row a case, "no" where an answer did not end as it
// should, and why.
func TestTable(t *testing.T) {
	cases := []e2eCase{{ID: "a-1"}, {ID: "b-2"}}
	results := [][]result{
		{{code: 0, took: time.Second}, {code: 1, took: time.Second}, {code: 4, took: time.Second}},
		{{code: 1, reason: "target x failed→not run", took: 2 * time.Second}, {code: 0}, {code: 1}},
	}
	want := `| case | right fix solved? | wrong fix not solved? | no-op not solved? | time | why not |
|---|---|---|---|---|---|
| a-1 | yes, solved | yes, not solved | yes, unproven | 3 s |  |
| b-2 | **no**, not solved | **no**, solved | yes, not solved | 2 s | target x failed→not run; the wrong fix is solved |

1 of 2 right fixes solved; 3 of 4 wrong fixes and no-ops not solved.
`
	if got, right, refused := table(cases, results); got != want || right != 1 || refused != 3 {
		t.Errorf("table (%d right, %d refused):\n%s\nwant (1, 3):\n%s", right, refused, got, want)
	}
}

// TestWorkaround: the environment's PYTHONPATH becomes a root
// conftest.py, and the reproducing file joins the command's files.
func TestWorkaround(t *testing.T) {
	withTests, flat := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(withTests, "tests"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		c              e2eCase
		repo           string
		want, conftest string
	}{
		{e2eCase{Run: "PYTHONPATH=src python3 -m pytest -q", Area: "tests/test_a.py"}, withTests,
			"python3 -m pytest -q tests/test_a.py tests/test_capsule_reproduction.py", `sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))`},
		{e2eCase{Run: "python3 -m pytest -q", Area: "pkg/tests/test_a.py"}, flat, "python3 -m pytest -q pkg/tests/test_a.py test_capsule_reproduction.py", ""},
	}
	for _, tt := range tests {
		got, err := workaround(tt.c, tt.repo)
		if err != nil || got != tt.want {
			t.Errorf("workaround(%q) = %q, %v; want %q", tt.c.testCommand(), got, err, tt.want)
		}
		conftest, _ := os.ReadFile(filepath.Join(tt.repo, "conftest.py"))
		if !strings.Contains(string(conftest), tt.conftest) || (tt.conftest == "") != (len(conftest) == 0) {
			t.Errorf("conftest.py:\n%s\nwant it to hold %q", conftest, tt.conftest)
		}
	}
}
