package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/response"
)

// answerRepo is a repository with a module that has an entry point.
func answerRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"app/cli.py": "import sys\n\n\ndef main(argv):\n    return len(argv)\n\n\nif __name__ == \"__main__\":\n    sys.exit(main(sys.argv))\n",
		"app/big.py": strings.Repeat("# filler line of a large module\n", 400) + "LIMIT = 10\n",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func parseFiles(t *testing.T, answer string) []edits.FileEdit {
	t.Helper()
	r, err := response.Parse(answer)
	if err != nil {
		t.Fatal(err)
	}
	return r.Files
}

// TestPlaceAnswerKeepsWhatMatched: a partly applicable answer changes
// nothing, its feedback names the block that failed and the parts kept,
// and the next answer sends only the corrected block.
func TestPlaceAnswerKeepsWhatMatched(t *testing.T) {
	repo := answerRepo(t)
	var kept []edits.FileEdit
	var a attemptlog.Attempt
	first := "### File: app/cli.py\n```python\n<<<<<<< SEARCH\n    return len(argv)\n=======\n    return len(argv) - 1\n>>>>>>> REPLACE\n" +
		"<<<<<<< SEARCH\ndef mian(argv):\n=======\ndef main(argv: list) -> int:\n>>>>>>> REPLACE\n```\n" +
		"### File: tests/test_cli.py\n```python\ndef test_main():\n    pass\n```\n"
	got, ok, err := placeAnswer(&a, repo, &kept, parseFiles(t, first))
	if err != nil || ok || got != nil {
		t.Fatalf("placeAnswer = %v, %v, %v; want a refusal", got, ok, err)
	}
	for _, want := range []string{"- Block 2 (app/cli.py): the SEARCH text is not in the file", "    4| def main(argv):",
		"do not send them again: block 1 (app/cli.py), the whole content of tests/test_cli.py."} {
		if !strings.Contains(a.Feedback, want) {
			t.Errorf("feedback lacks %q:\n%s", want, a.Feedback)
		}
	}
	if a.FeedbackKind != "unmatched" || len(a.Refused) != 1 {
		t.Errorf("kind %q, refused %q", a.FeedbackKind, a.Refused)
	}

	a = attemptlog.Attempt{}
	second := "### File: app/cli.py\n```python\n<<<<<<< SEARCH\ndef main(argv):\n=======\ndef main(argv: list) -> int:\n>>>>>>> REPLACE\n```\n"
	got, ok, err = placeAnswer(&a, repo, &kept, parseFiles(t, second))
	if err != nil || !ok {
		t.Fatalf("placeAnswer = %v, %v; want the kept parts and the new block placed", ok, err)
	}
	if len(got) != 2 || !strings.Contains(got[0].Content, "def main(argv: list) -> int:\n    return len(argv) - 1\n") || got[1].Path != "tests/test_cli.py" {
		t.Errorf("edits = %+v", got)
	}
	if kept != nil {
		t.Errorf("kept = %v after a placed answer", kept)
	}
	if strings.Count(a.Code, "<<<<<<< SEARCH") != 2 || !strings.Contains(a.Code, "### File: tests/test_cli.py") {
		t.Errorf("the attempt's code shows the answer as placed, kept parts included:\n%s", a.Code)
	}
}

func TestPlaceAnswerWholeFiles(t *testing.T) {
	repo := answerRepo(t)
	var kept []edits.FileEdit
	var a attemptlog.Attempt
	small := "### File: app/cli.py\n```python\nimport sys\n```\n"
	if _, ok, err := placeAnswer(&a, repo, &kept, parseFiles(t, small)); !ok || err != nil {
		t.Errorf("a small file given whole: %v, %v: %s", ok, err, a.Feedback)
	}
	large := "### File: app/big.py\n```python\nLIMIT = 20\n```\n"
	if _, ok, _ := placeAnswer(&a, repo, &kept, parseFiles(t, large)); ok || !strings.Contains(a.Feedback, "too large to be rewritten whole") {
		t.Errorf("a large file given whole: %v: %s", ok, a.Feedback)
	}
}

// TestExampleCallsOfTheModuleStay: a one-line edit to a module with a
// __main__ block leaves the block in the file and out of the patch, while
// an example call the answer adds is removed.
func TestExampleCallsOfTheModuleStay(t *testing.T) {
	repo := answerRepo(t)
	answer := "### File: app/cli.py\n```python\n<<<<<<< SEARCH\n    return len(argv)\n=======\n    return len(argv) - 1\n\n\nprint(main([]))\n>>>>>>> REPLACE\n```\n"
	var kept []edits.FileEdit
	var a attemptlog.Attempt
	proposed, ok, err := placeAnswer(&a, repo, &kept, parseFiles(t, answer))
	if !ok || err != nil {
		t.Fatalf("placeAnswer: %v, %v: %s", ok, err, a.Feedback)
	}
	cleaned, notes := stripExampleCalls(repo, proposed)
	if !strings.Contains(cleaned[0].Content, "if __name__ == \"__main__\":\n    sys.exit(main(sys.argv))\n") || strings.Contains(cleaned[0].Content, "print(main([]))") {
		t.Errorf("cleaned module:\n%s", cleaned[0].Content)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "app/cli.py: removed top-level example calls at lines 8-8") {
		t.Errorf("notes = %q", notes)
	}
	patch, err := edits.Diff(repo, cleaned)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(patch, "-if __name__") || strings.Contains(patch, "-    sys.exit") {
		t.Errorf("the patch removes the entry point:\n%s", patch)
	}
}

func TestUnmatchedSummary(t *testing.T) {
	a := attemptlog.Attempt{FeedbackKind: "unmatched", Refused: []string{"block 2 (a.py): not found"}}
	if got := attemptSummary(a); got != "1 blocks not placed" {
		t.Errorf("attemptSummary = %q", got)
	}
}

// TestPlaceAnswerDivider: a SEARCH that ends with a numpy docstring's
// underline (issue 23, cause 6) and one that quotes a merge marker of a
// test fixture are placed whole; no divider lands in the file.
func TestPlaceAnswerDivider(t *testing.T) {
	repo := answerRepo(t)
	doc := "def mean(xs):\n    \"\"\"Average.\n\n    Examples\n    ========\n    >>> mean([1])\n    1\n    \"\"\"\n    return sum(xs) / len(xs)\n"
	conflict := "first\n<<<<<<< HEAD\nfirst\n=======\nsecond\n>>>>>>> topic\n"
	for p, c := range map[string]string{"app/stats.py": doc, "tests/data/conflict.txt": conflict} {
		if err := os.MkdirAll(filepath.Join(repo, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	answer := "### File: app/stats.py\n```python\n<<<<<<< SEARCH\n    \"\"\"Average.\n\n    Examples\n    ========\n=======\n    \"\"\"Average of xs.\n\n    Examples\n    ========\n>>>>>>> REPLACE\n```\n" +
		"### File: tests/data/conflict.txt\n```\n<<<<<<< SEARCH\nfirst\n=======\nsecond\n=======\nthird\n>>>>>>> REPLACE\n```\n"
	var kept []edits.FileEdit
	var a attemptlog.Attempt
	got, ok, err := placeAnswer(&a, repo, &kept, parseFiles(t, answer))
	if err != nil || !ok {
		t.Fatalf("placeAnswer = %v, %v: %s", ok, err, a.Feedback)
	}
	want := map[string]string{
		"app/stats.py":            strings.Replace(doc, "Average.", "Average of xs.", 1),
		"tests/data/conflict.txt": "first\n<<<<<<< HEAD\nthird\n>>>>>>> topic\n",
	}
	for _, e := range got {
		if e.Content != want[e.Path] {
			t.Errorf("%s = %q, want %q", e.Path, e.Content, want[e.Path])
		}
	}
}
