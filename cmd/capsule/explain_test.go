package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/repocontext"
	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

// smallRepo is repocontext's fixture of small files.
var smallRepo = filepath.Join("..", "..", "pipeline", "repocontext", "testdata", "repo")

// TestContextExplain prints the explanation of a file, or lines of it,
// for the cases a miss has: lines of a large file it does not show, a
// file left out over budget after others, a file nothing ranked; each is
// compared with its golden file.
func TestContextExplain(t *testing.T) {
	restock := filepath.Join("testdata", "context", "restock.md")
	divide := filepath.Join("testdata", "context", "divide.md")
	tests := []struct {
		golden string
		args   []string
	}{
		{"explain-lines", []string{"--repo", largeRepo, "--issue", restock, "--budget", "2200", "--lines", "inventory/store.py:100-140"}},
		{"explain-shown-lines", []string{"--repo", largeRepo, "--issue", restock, "--budget", "2200", "--lines", "inventory/store.py:330-362"}},
		{"explain-over-budget", []string{"--repo", smallRepo, "--issue", divide, "--budget", "432", "--file", "tests/test_ops.py"}},
		{"explain-unranked", []string{"--repo", smallRepo, "--issue", divide, "--budget", "450", "--file", "calc/fmt.py"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			code, stdout, stderr := capsule(t, append([]string{"context"}, tt.args...)...)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			goldenfile.Check(t, filepath.Join("testdata", "context", tt.golden+".golden"), stdout, *update)
		})
	}
}

// TestContextExplainDocumented checks that docs/solve.md shows the
// explanation of lines as capsule context prints it.
func TestContextExplainDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "solve.md"))
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "context", "explain-lines.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```text\n"+string(golden)+"```\n") {
		t.Errorf("docs/solve.md does not show testdata/context/explain-lines.golden as printed")
	}
}

func TestContextExplainUsage(t *testing.T) {
	issue := filepath.Join("testdata", "context", "restock.md")
	outside, err := filepath.Abs(filepath.Join("testdata", "context", "restock.md"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"both flags", []string{"--file", "inventory/store.py", "--lines", "inventory/store.py:1-2"}, "give --file or --lines, not both"},
		{"no range", []string{"--lines", "inventory/store.py"}, "want PATH:START-END"},
		{"no path", []string{"--lines", ":1-2"}, "want PATH:START-END"},
		{"words for lines", []string{"--lines", "inventory/store.py:a-b"}, `"a-b" is not a range of lines`},
		{"open range", []string{"--lines", "inventory/store.py:3-"}, `"3-" is not a range of lines`},
		{"lines in the wrong order", []string{"--lines", "inventory/store.py:9-3"}, "lines 9-3: want 1 <= START <= END"},
		{"line zero", []string{"--lines", "inventory/store.py:0-3"}, "lines 0-3: want 1 <= START <= END"},
		{"lines past the end", []string{"--lines", "inventory/money.py:5-90"}, "lines 5-90 of inventory/money.py: the file has 8 lines"},
		{"path outside the repository", []string{"--file", "../large.py"}, "../large.py is outside the repository"},
		{"absolute path outside the repository", []string{"--file", outside}, outside + " is outside the repository"},
		{"missing file", []string{"--file", "inventory/nope.py"}, "inventory/nope.py: no such file in the repository"},
		{"directory", []string{"--file", "inventory"}, "inventory is a directory, not a file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"context", "--repo", largeRepo, "--issue", issue}, tt.args...)
			code, stdout, stderr := capsule(t, args...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, exitUsage, tt.want)
			}
		})
	}
}

// TestWriteBeforeSummarises lists a long run of files placed before the
// explained one by its first and last files and a line for the others.
func TestWriteBeforeSummarises(t *testing.T) {
	e := &repocontext.Explanation{Rank: 21, Skipped: 1}
	for i := 1; i <= 20; i++ {
		e.Before = append(e.Before, repocontext.Use{Rank: i, Path: fmt.Sprintf("f%02d.py", i), Why: "why", Tokens: 10 * i, Whole: i%2 == 0})
	}
	var b strings.Builder
	writeBefore(&b, e)
	want := `Before it: 20 files took 2100 tokens (1 ranked before it left out, taking none):
  1. f01.py (why): 10 tokens, in part
  2. f02.py (why): 20 tokens, whole
  3. f03.py (why): 30 tokens, in part
  4. f04.py (why): 40 tokens, whole
  5. f05.py (why): 50 tokens, in part
  6. f06.py (why): 60 tokens, whole
  7. f07.py (why): 70 tokens, in part
  8. f08.py (why): 80 tokens, whole
  … 10 more files, ranks 9-18, 1350 tokens
  19. f19.py (why): 190 tokens, in part
  20. f20.py (why): 200 tokens, whole
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
