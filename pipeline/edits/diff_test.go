package edits

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// numbered returns lines "prefix 1\n" to "prefix n\n".
func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.String()
}

// replaceLine replaces line n (from 1) of s.
func replaceLine(s string, n int, with string) string {
	lines := strings.SplitAfter(s, "\n")
	lines[n-1] = with
	return strings.Join(lines, "")
}

var tenThousand = numbered("line", 10000)

// slow is how long a diff may take before a test calls it too slow.
const slow = 10 * time.Second

// diffCases are the patches checked against golden files and git apply.
var diffCases = []struct {
	name  string
	files map[string]file
	edits []Edit
}{
	{
		name:  "modify_middle",
		files: map[string]file{"calc.py": {content: numbered("x =", 20)}},
		edits: []Edit{{Path: "calc.py", Content: replaceLine(numbered("x =", 20), 10, "x = ten\n")}},
	},
	{
		name:  "append",
		files: map[string]file{"a.txt": {content: numbered("a", 5)}},
		edits: []Edit{{Path: "a.txt", Content: numbered("a", 5) + "more\nand more\n"}},
	},
	{
		name:  "prepend",
		files: map[string]file{"a.txt": {content: numbered("a", 5)}},
		edits: []Edit{{Path: "a.txt", Content: "#!/usr/bin/env python3\n" + numbered("a", 5)}},
	},
	{
		name:  "remove_lines",
		files: map[string]file{"a.txt": {content: numbered("a", 12)}},
		edits: []Edit{{Path: "a.txt", Content: "a 1\na 2\na 6\na 7\na 8\na 9\na 10\n"}},
	},
	{
		name:  "whole_rewrite",
		files: map[string]file{"m.py": {content: "def f():\n    return 1\n"}},
		edits: []Edit{{Path: "m.py", Content: "import math\n\n\ndef g(x):\n    return math.sqrt(x)\n"}},
	},
	{
		name:  "two_hunks",
		files: map[string]file{"a.txt": {content: numbered("a", 30)}},
		edits: []Edit{{Path: "a.txt", Content: replaceLine(replaceLine(numbered("a", 30), 3, "three\n"), 25, "twenty-five\n")}},
	},
	{
		name:  "gap_of_six_shares_a_hunk",
		files: map[string]file{"a.txt": {content: numbered("a", 20)}},
		edits: []Edit{{Path: "a.txt", Content: replaceLine(replaceLine(numbered("a", 20), 5, "five\n"), 12, "twelve\n")}},
	},
	{
		name:  "gap_of_seven_splits",
		files: map[string]file{"a.txt": {content: numbered("a", 20)}},
		edits: []Edit{{Path: "a.txt", Content: replaceLine(replaceLine(numbered("a", 20), 5, "five\n"), 13, "thirteen\n")}},
	},
	{
		name:  "empty_to_content",
		files: map[string]file{"pkg/__init__.py": {content: ""}},
		edits: []Edit{{Path: "pkg/__init__.py", Content: "from .core import run\n"}},
	},
	{
		name:  "content_to_empty",
		files: map[string]file{"pkg/__init__.py": {content: "from .core import run\n"}},
		edits: []Edit{{Path: "pkg/__init__.py", Content: ""}},
	},
	{
		name:  "add_final_newline",
		files: map[string]file{"a.txt": {content: "one\ntwo"}},
		edits: []Edit{{Path: "a.txt", Content: "one\ntwo\n"}},
	},
	{
		name:  "remove_final_newline",
		files: map[string]file{"a.txt": {content: "one\ntwo\n"}},
		edits: []Edit{{Path: "a.txt", Content: "one\ntwo"}},
	},
	{
		name:  "no_final_newline_before_and_after",
		files: map[string]file{"a.txt": {content: "one\ntwo\nthree"}},
		edits: []Edit{{Path: "a.txt", Content: "one\n2\nthree"}},
	},
	{
		name:  "no_final_newline_last_line_changed",
		files: map[string]file{"a.txt": {content: "one\ntwo"}},
		edits: []Edit{{Path: "a.txt", Content: "one\n2"}},
	},
	{
		name:  "new_file_in_new_directory",
		files: map[string]file{"README.md": {content: "# demo\n"}},
		edits: []Edit{{Path: "src/demo/util.py", Content: "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n"}},
	},
	{
		name:  "new_file_without_final_newline",
		files: map[string]file{},
		edits: []Edit{{Path: "VERSION", Content: "1.2.3"}},
	},
	{
		name:  "new_empty_file",
		files: map[string]file{"pkg/core.py": {content: "x = 1\n"}},
		edits: []Edit{{Path: "pkg/__init__.py", Content: ""}},
	},
	{
		name:  "deletion",
		files: map[string]file{"old.py": {content: "print('bye')\n"}, "keep.py": {content: "x = 1\n"}},
		edits: []Edit{{Path: "old.py", Delete: true}},
	},
	{
		name:  "delete_empty_and_unterminated",
		files: map[string]file{"empty.py": {content: ""}, "tail.txt": {content: "a\nb"}},
		edits: []Edit{{Path: "empty.py", Delete: true}, {Path: "tail.txt", Delete: true}},
	},
	{
		name:  "crlf",
		files: map[string]file{"win.bat": {content: "@echo off\r\nset X=1\r\necho %X%\r\n"}},
		edits: []Edit{{Path: "win.bat", Content: "@echo off\r\nset X=2\r\necho %X%\r\nexit /b 0\r\n"}},
	},
	{
		name:  "large_file_one_line",
		files: map[string]file{"big.txt": {content: tenThousand}},
		edits: []Edit{{Path: "big.txt", Content: replaceLine(tenThousand, 5000, "the middle\n")}},
	},
	{
		name: "unicode",
		files: map[string]file{
			"docs/café.md": {content: "# Café\n\nCrème brûlée, 日本語, 🙂\n"},
			"i18n.py":      {content: "GREETING = 'hello'\n"},
		},
		edits: []Edit{
			{Path: "docs/café.md", Content: "# Café\n\nCrème brûlée, 日本語, 🙂🙂\n"},
			{Path: "i18n.py", Content: "GREETING = 'grüß dich'\n"},
		},
	},
	{
		name: "executable",
		files: map[string]file{
			"bin/run.sh":  {content: "#!/bin/sh\necho run\n", mode: 0o755},
			"bin/gone.sh": {content: "#!/bin/sh\n", mode: 0o755},
		},
		edits: []Edit{
			{Path: "bin/run.sh", Content: "#!/bin/sh\nset -e\necho run\n"},
			{Path: "bin/gone.sh", Delete: true},
		},
	},
	{
		name: "names_with_space_and_quote",
		files: map[string]file{
			"my notes.txt": {content: "a\n"},
		},
		edits: []Edit{
			{Path: "my notes.txt", Content: "b\n"},
			{Path: `say "hi".txt`, Content: "hi\n"},
		},
	},
	{
		name: "several_files_sorted_unchanged_skipped_last_wins",
		files: map[string]file{
			"b.py":    {content: "b = 1\n"},
			"a.py":    {content: "a = 1\n"},
			"same.py": {content: "same\n"},
		},
		edits: []Edit{
			{Path: "b.py", Content: "b = 2\n"},
			{Path: "same.py", Content: "same\n"},
			{Path: "a.py", Content: "a = 2\n"},
			{Path: "b.py", Content: "b = 3\n"},
			{Path: "missing.py", Delete: true},
		},
	},
}

// TestDiffGitApply renders each case, compares the patch with its golden
// file, applies it with git apply and with the test's own strict patcher,
// and checks that both, and Apply, produce the expected files.
func TestDiffGitApply(t *testing.T) {
	for _, tc := range diffCases {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			writeTree(t, repo, tc.files)
			want := expected(tc.files, tc.edits)

			start := time.Now()
			patch, err := Diff(repo, tc.edits)
			if err != nil {
				t.Fatal(err)
			}
			// Milliseconds in practice; the bound only catches a blow-up,
			// with room for a loaded machine and the race detector.
			if elapsed := time.Since(start); elapsed > slow {
				t.Errorf("Diff took %v", elapsed)
			}
			golden(t, tc.name, patch)

			gitDir, got := gitApply(t, tc.files, patch)
			compareTrees(t, "git apply", got, want)

			old := expected(tc.files, nil)
			mine, err := patchApply(old, patch)
			if err != nil {
				t.Fatalf("strict apply: %v", err)
			}
			compareTrees(t, "strict apply", mine, want)

			applied := t.TempDir()
			writeTree(t, applied, tc.files)
			if err := Apply(applied, tc.edits); err != nil {
				t.Fatal(err)
			}
			compareTrees(t, "Apply", readTree(t, applied), want)
			compareExecBits(t, applied, gitDir, want)

			compareSummary(t, Summary(tc.edits, repo), gitDir, patch)
		})
	}
}

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name+".golden"), got, *update)
}

// compareExecBits checks that Apply and git leave the same files executable.
func compareExecBits(t *testing.T, applied, gitDir string, files map[string]string) {
	t.Helper()
	for p := range files {
		a, err := os.Stat(filepath.Join(applied, p))
		if err != nil {
			t.Fatal(err)
		}
		g, err := os.Stat(filepath.Join(gitDir, p))
		if err != nil {
			t.Fatal(err)
		}
		if a.Mode()&0o100 != g.Mode()&0o100 {
			t.Errorf("%s: Apply left mode %v, git apply %v", p, a.Mode(), g.Mode())
		}
	}
}

// compareSummary checks Summary against git apply --numstat and --summary.
func compareSummary(t *testing.T, got []FileChange, dir, patch string) {
	t.Helper()
	var want []FileChange
	for _, l := range strings.Split(strings.TrimSpace(git(t, dir, patch, "apply", "--numstat", "-z", "-")), "\x00") {
		if l == "" {
			continue
		}
		var fc FileChange
		parts := strings.SplitN(l, "\t", 3)
		fmt.Sscan(parts[0], &fc.Added)
		fmt.Sscan(parts[1], &fc.Removed)
		fc.Path, fc.Status = parts[2], StatusModified
		want = append(want, fc)
	}
	summary := git(t, dir, patch, "apply", "--summary", "-")
	for i := range want {
		switch {
		case strings.Contains(summary, " create mode "+modeOf(summary, want[i].Path)):
			want[i].Status = StatusAdded
		case strings.Contains(summary, " delete mode "+modeOf(summary, want[i].Path)):
			want[i].Status = StatusDeleted
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Summary = %+v\ngit says  %+v", got, want)
	}
}

// modeOf returns "mode path" as git apply --summary prints it for path.
func modeOf(summary, path string) string {
	for _, l := range strings.Split(summary, "\n") {
		if f := strings.Fields(l); len(f) >= 4 && strings.HasSuffix(l, " "+path) {
			return f[2] + " " + path
		}
	}
	return "\x00"
}

// TestDiffRandomGitApply diffs many random files in one tree and applies the
// single patch with git.
func TestDiffRandomGitApply(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	files := make(map[string]file)
	var edits []Edit
	for i := range 150 {
		p := fmt.Sprintf("dir%d/f%03d.txt", i%7, i)
		old, new := randomText(r), randomText(r)
		switch i % 10 {
		case 0: // added
			edits = append(edits, Edit{Path: p, Content: new})
			continue
		case 1: // deleted
			files[p] = file{content: old}
			edits = append(edits, Edit{Path: p, Delete: true})
			continue
		}
		files[p] = file{content: old}
		edits = append(edits, Edit{Path: p, Content: new})
	}
	repo := t.TempDir()
	writeTree(t, repo, files)
	patch, err := Diff(repo, edits)
	if err != nil {
		t.Fatal(err)
	}
	_, got := gitApply(t, files, patch)
	compareTrees(t, "git apply", got, expected(files, edits))
}

// randomText returns up to 40 lines drawn from a few, so that they repeat,
// with or without a final newline and sometimes with CRLF endings.
func randomText(r *rand.Rand) string {
	vocabulary := []string{"a\n", "b\n", "c\n", "\n", "}\n", "    return x\n", "ü\r\n"}
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(vocabulary[r.IntN(len(vocabulary))])
	}
	s := b.String()
	if r.IntN(4) == 0 {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

func TestDiffNoChanges(t *testing.T) {
	repo := t.TempDir()
	writeTree(t, repo, map[string]file{"a.txt": {content: "a\n"}})
	patch, err := Diff(repo, []Edit{{Path: "a.txt", Content: "a\n"}, {Path: "gone.txt", Delete: true}})
	if err != nil || patch != "" {
		t.Fatalf("Diff = %q, %v; want an empty patch", patch, err)
	}
	if got := Summary(nil, repo); len(got) != 0 {
		t.Errorf("Summary(nil) = %v", got)
	}
}

// TestDiffRefusesUncheckedEdits makes sure Diff reads nothing outside the
// repository, nothing through a symbolic link and no binary file.
func TestDiffRefusesUncheckedEdits(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	writeTree(t, base, map[string]file{"secret.txt": {content: "secret\n"}, "repo/bin.dat": {content: "a\x00b"}, "repo/src/a.py": {content: "a\n"}})
	symlink(t, "..", filepath.Join(repo, "up"))
	symlink(t, "src", filepath.Join(repo, "lib"))
	for _, e := range []Edit{
		{Path: "../secret.txt", Content: "x\n"},
		{Path: "/etc/passwd", Content: "x\n"},
		{Path: "up/secret.txt", Content: "x\n"},
		{Path: "lib/a.py", Content: "b\n"},
		{Path: "bin.dat", Content: "text\n"},
		{Path: "new.txt", Content: "nul\x00\n"},
		{Path: "src", Content: "x\n"},
	} {
		if patch, err := Diff(repo, []Edit{e}); err == nil {
			t.Errorf("Diff(%q) = %q, want an error", e.Path, patch)
		}
	}
	if _, err := Diff(filepath.Join(base, "missing"), nil); err == nil {
		t.Error("Diff of a missing directory succeeded")
	}
}

// TestDiffRewriteSpeed times a worst case: a large file whose lines all
// change, except for repeated blank and brace lines the algorithm must align.
func TestDiffRewriteSpeed(t *testing.T) {
	var old, new strings.Builder
	for i := range 10000 {
		if i%3 == 0 {
			old.WriteString("}\n")
			new.WriteString("\n")
		} else {
			fmt.Fprintf(&old, "old %d\n", i)
			fmt.Fprintf(&new, "new %d\n", i)
		}
	}
	start := time.Now()
	c, err := newChange("f", StatusModified, old.String(), new.String(), "100644")
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > slow {
		t.Errorf("diffing 10,000 changed lines took %v", elapsed)
	}
	var w strings.Builder
	c.write(&w)
	got, err := patchApply(map[string]string{"f": old.String()}, w.String())
	if err != nil {
		t.Fatal(err)
	}
	if got["f"] != new.String() {
		t.Error("the patch does not reproduce the new content")
	}
}

func BenchmarkDiffOneLine(b *testing.B) {
	old, new := splitLines(tenThousand), splitLines(replaceLine(tenThousand, 5000, "x\n"))
	for b.Loop() {
		diffLines(old, new)
	}
}

func BenchmarkDiffScattered(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	newText := tenThousand
	for range 200 {
		newText = replaceLine(newText, 1+r.IntN(10000), "changed\n")
	}
	old, new := splitLines(tenThousand), splitLines(newText)
	for b.Loop() {
		diffLines(old, new)
	}
}

// symlink creates a symbolic link or fails the test.
func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

func TestBlobIDMatchesGit(t *testing.T) {
	dir := t.TempDir()
	for _, content := range []string{"", "a\n", "no newline", "ü\r\n", tenThousand} {
		want := git(t, dir, content, "hash-object", "--stdin")
		if got := blobID(content); !strings.HasPrefix(want, got) {
			t.Errorf("blobID(%.20q) = %s, git says %s", content, got, want)
		}
	}
}
