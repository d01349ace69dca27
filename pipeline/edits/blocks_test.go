package edits

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// difflibRepo returns a repository holding the vendored difflib.py (2,056
// lines, with a __main__ block) as pkg/difflib.py, and its content.
func difflibRepo(t *testing.T) (string, string) {
	t.Helper()
	data, err := os.ReadFile("testdata/difflib/difflib.py")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg", "difflib.py"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, string(data)
}

func TestResolveBlocks(t *testing.T) {
	const (
		oneLine     = "        return _calculate_ratio(min(la, lb), la + lb)\n"
		oneLineNew  = "        return _calculate_ratio(max(la, lb), la + lb)\n"
		realQuick   = "    def real_quick_ratio(self):\n"
		realQuickTo = "    def real_quick_ratio(self, *, strict=False):\n"
	)
	tests := []struct {
		name            string
		search, replace string
		from, to        string // the change expected in the file
	}{
		{"exact one line", oneLine, oneLineNew, oneLine, oneLineNew},
		{"exact with padding blank lines", "\n" + oneLine + "\n", "\n" + oneLineNew + "\n", oneLine, oneLineNew},
		{"indentation shifted left", strings.TrimLeft(oneLine, " "), strings.TrimLeft(oneLineNew, " "), oneLine, oneLineNew},
		{"indentation shifted right, two lines",
			"          la, lb = len(self.a), len(self.b)\n          # can't have more matches than the number of elements in the\n" +
				"          # shorter sequence\n          return _calculate_ratio(min(la, lb), la + lb)\n",
			"          la, lb = len(self.a), len(self.b)\n          if not la:\n              return 0.0\n" +
				"          return _calculate_ratio(min(la, lb), la + lb)\n",
			"        la, lb = len(self.a), len(self.b)\n        # can't have more matches than the number of elements in the\n" +
				"        # shorter sequence\n        return _calculate_ratio(min(la, lb), la + lb)\n",
			"        la, lb = len(self.a), len(self.b)\n        if not la:\n            return 0.0\n" +
				"        return _calculate_ratio(min(la, lb), la + lb)\n"},
		{"trailing spaces", strings.TrimSuffix(realQuick, "\n") + "   \n", realQuickTo, realQuick, realQuickTo},
		{"elided SEARCH",
			realQuick + "    ...\n" + oneLine,
			realQuickTo + "        \"\"\"An upper bound on ratio().\"\"\"\n" + oneLineNew,
			"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, orig := difflibRepo(t)
			got, err := Resolve(dir, []FileEdit{{Path: "pkg/difflib.py", Blocks: []Block{{N: 1, Search: tt.search, Replace: tt.replace}}}}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Path != "pkg/difflib.py" {
				t.Fatalf("edits = %v", got)
			}
			want := strings.Replace(orig, tt.from, tt.to, 1)
			if tt.from == "" {
				start := strings.Index(orig, realQuick)
				end := strings.Index(orig, oneLine) + len(oneLine)
				want = orig[:start] + tt.replace + orig[end:]
			}
			if got[0].Content != want {
				t.Errorf("content differs from the expected change:\n%s", firstDifference(got[0].Content, want))
			}
			patch, err := Diff(dir, got)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(patch, "__main__") {
				t.Errorf("the patch touches the __main__ block:\n%s", patch)
			}
		})
	}
}

// firstDifference shows the first line where two texts differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return "line " + itoa(i+1) + ":\n got " + g[i] + "\nwant " + w[i]
		}
	}
	return "lengths " + itoa(len(g)) + " and " + itoa(len(w))
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestResolveRefusals(t *testing.T) {
	const applies = "        return _calculate_ratio(min(la, lb), la + lb)\n"
	tests := []struct {
		name    string
		blocks  []Block
		reasons []string // one per failed block, in order: substrings
		matched int      // blocks reported as matched
	}{
		{"missing SEARCH shows the closest lines", []Block{
			{N: 1, Search: "    def real_quick_ratio(self, strict):\n        \"\"\"Return an upper bound on ratio() very fast.\n", Replace: "x\n"}},
			[]string{"not in the file (2056 lines). The most similar lines are 651-652:\n    651|     def real_quick_ratio(self):\n    652|         \"\"\"Return an upper bound on ratio() very quickly."}, 0},
		{"ambiguous SEARCH names every place", []Block{
			{N: 1, Search: "        return _calculate_ratio(matches, len(self.a) + len(self.b))\n", Replace: "        return 0.0\n"}},
			[]string{"occurs 2 times in the file, at lines 620, 649; quote more lines"}, 0},
		{"partly applicable answer", []Block{
			{N: 1, Search: applies, Replace: "        return 1.0\n"},
			{N: 2, Search: "    def no_such_method(self):\n", Replace: "x\n"}},
			[]string{"not in the file"}, 1},
		{"REPLACE with an elision", []Block{
			{N: 1, Search: "    def real_quick_ratio(self):\n", Replace: "    def real_quick_ratio(self):\n        ...\n        return 1.0\n"}},
			[]string{`the REPLACE part contains a "..." line`}, 0},
		{"elided SEARCH with an ambiguous piece", []Block{
			{N: 1, Search: "    def quick_ratio(self):\n    ...\n        return _calculate_ratio(matches, len(self.a) + len(self.b))\n", Replace: "x\n"}},
			[]string{"piece 2 of the SEARCH part (between \"...\" lines): the SEARCH text occurs 2 times"}, 0},
		{"elided SEARCH out of order", []Block{
			{N: 1, Search: "    def real_quick_ratio(self):\n    ...\n    def quick_ratio(self):\n", Replace: "x\n"}},
			[]string{"before the piece above it ends"}, 0},
		{"elided SEARCH ending with the elision", []Block{
			{N: 1, Search: "    def real_quick_ratio(self):\n    ...\n", Replace: "x\n"}},
			[]string{"starts or ends with a \"...\" line"}, 0},
		{"empty SEARCH on an existing file", []Block{{N: 1, Search: "\n", Replace: "x = 1\n"}}, []string{"the SEARCH part is empty"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := difflibRepo(t)
			got, err := Resolve(dir, []FileEdit{{Path: "pkg/difflib.py", Blocks: tt.blocks}}, 0)
			var me *MatchError
			if !errors.As(err, &me) {
				t.Fatalf("Resolve = %v, %v; want a *MatchError", got, err)
			}
			if got != nil {
				t.Errorf("edits = %v; an answer applies all or nothing", got)
			}
			if len(me.Failed) != len(tt.reasons) {
				t.Fatalf("failed = %+v, want %d", me.Failed, len(tt.reasons))
			}
			for i, r := range tt.reasons {
				if !strings.Contains(me.Failed[i].Reason, r) {
					t.Errorf("reason %d =\n%s\nwant it to contain\n%s", i, me.Failed[i].Reason, r)
				}
			}
			n := 0
			for _, f := range me.Matched {
				n += len(f.Blocks)
			}
			if n != tt.matched {
				t.Errorf("matched %d blocks, want %d", n, tt.matched)
			}
		})
	}
}

func TestMatchErrorMessage(t *testing.T) {
	err := &MatchError{Total: 3,
		Failed:  []BlockFailure{{N: 2, Path: "a.py", Reason: "the SEARCH text is not in the file"}},
		Matched: []FileEdit{{Path: "a.py", Blocks: []Block{{N: 1}}}, {Path: "c.py", Whole: true}, {Path: "b.py", Blocks: []Block{{N: 3}}}}}
	want := "Nothing was applied: 1 of the 3 blocks of your answer could not be placed, and an answer applies all or nothing.\n" +
		"- Block 2 (a.py): the SEARCH text is not in the file\n" +
		"These parts of your answer could be placed and are kept for your next answer; do not send them again: block 1 (a.py), the whole content of c.py, block 3 (b.py). " +
		"Answer with corrected versions of the blocks above, quoting the file's lines exactly."
	if got := err.Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}
}

func TestResolveFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crlf.py"), []byte("a = 1\r\nb = 2\r\nc = 3\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stub.py"), []byte("class P:\n    def f(self):\n        ...\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		file FileEdit
		want string
	}{
		{"CRLF kept", FileEdit{Path: "crlf.py", Blocks: []Block{{N: 1, Search: "b = 2\n", Replace: "b = 20\nb2 = 4\n"}}}, "a = 1\r\nb = 20\r\nb2 = 4\r\nc = 3\r\n"},
		{"new file from an empty SEARCH", FileEdit{Path: "new.py", Blocks: []Block{{N: 1, Replace: "x = 1\n"}}}, "x = 1\n"},
		{"whole file then blocks", FileEdit{Path: "crlf.py", Whole: true, Content: "a = 1\nb = 2\n", Blocks: []Block{{N: 1, Search: "b = 2", Replace: "b = 3"}}}, "a = 1\nb = 3\n"},
		{"whole file alone", FileEdit{Path: "w.py", Whole: true, Content: "w = 1\n"}, "w = 1\n"},
		{"a literal ... line is code", FileEdit{Path: "stub.py", Blocks: []Block{{N: 1, Search: "    def f(self):\n        ...\n", Replace: "    def f(self):\n        ...\n\n    def g(self):\n        ...\n"}}},
			"class P:\n    def f(self):\n        ...\n\n    def g(self):\n        ...\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(dir, []FileEdit{tt.file}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Content != tt.want {
				t.Errorf("edits = %+v, want content %+v", got, tt.want)
			}
		})
	}
	_, err := Resolve(dir, []FileEdit{{Path: "missing.py", Blocks: []Block{{N: 1, Search: "x = 1\n", Replace: "x = 2\n"}}}}, 0)
	if err == nil || !strings.Contains(err.Error(), "the file does not exist; to create it") {
		t.Errorf("blocks on a missing file: %v", err)
	}
	_, err = Resolve(dir, []FileEdit{{Path: "../x.py", Blocks: []Block{{N: 1, Search: "x\n", Replace: "y\n"}}}}, 0)
	if err == nil || !strings.Contains(err.Error(), "leaves the repository") {
		t.Errorf("blocks outside the repository: %v", err)
	}
}

func TestAddedLines(t *testing.T) {
	dir, orig := difflibRepo(t)
	e := Edit{Path: "pkg/difflib.py", Content: strings.Replace(orig, "    return doctest.testmod(difflib)\n", "    return doctest.testmod(difflib)  # all\n", 1)}
	added, err := AddedLines(dir, e)
	if err != nil {
		t.Fatal(err)
	}
	var at []int
	for i, a := range added {
		if a {
			at = append(at, i+1)
		}
	}
	if len(at) != 1 || at[0] != 2053 {
		t.Errorf("added lines %v, want [2053]", at)
	}
}

func TestResolveWholeFileLimit(t *testing.T) {
	dir, orig := difflibRepo(t)
	small := FileEdit{Path: "new.py", Whole: true, Content: "x = 1\n"}
	large := FileEdit{Path: "pkg/difflib.py", Whole: true, Content: orig + "x = 1\n"}
	if _, err := Resolve(dir, []FileEdit{small, large}, len(orig)); err != nil {
		t.Errorf("a file of the limit's size: %v", err)
	}
	_, err := Resolve(dir, []FileEdit{small, large}, len(orig)-1)
	var me *MatchError
	if !errors.As(err, &me) || len(me.Failed) != 1 || me.Failed[0].N != 0 ||
		!strings.Contains(me.Failed[0].Reason, "the file has 2056 lines") || !strings.Contains(err.Error(), "- The whole content of pkg/difflib.py: ") {
		t.Errorf("a file over the limit: %v", err)
	}
	del := FileEdit{Path: "pkg/difflib.py", Whole: true, Content: DeleteMarker}
	if out, err := Resolve(dir, []FileEdit{del}, 10); err != nil || len(out) != 1 || !out[0].Delete || out[0].Content != "" {
		t.Errorf("deleting a large file: %+v, %v; want one edit that deletes", out, err)
	}
}

func TestBlocksFor(t *testing.T) {
	_, orig := difflibRepo(t)
	news := map[string]string{
		"one line": strings.Replace(orig, "return _calculate_ratio(min(la, lb), la + lb)", "return _calculate_ratio(max(la, lb), la + lb)", 1),
		"a line that occurs twice": strings.Replace(orig, "        return _calculate_ratio(matches, len(self.a) + len(self.b))\n",
			"        return _calculate_ratio(matches, len(self.a) + len(self.b) + 0)\n", 2),
		"insert and delete blank lines": strings.Replace(strings.Replace(orig, "\n\n\n", "\n\n", 3), "import", "\nimport", 2),
		"append":                        orig + "\nX = 1\n",
		"prepend":                       "# header\n" + orig,
		"delete the end":                orig[:strings.Index(orig, "def _test():")],
		"everything":                    "x = 1\n",
	}
	for name, new := range news {
		t.Run(name, func(t *testing.T) {
			dir, _ := difflibRepo(t)
			blocks := BlocksFor(orig, new)
			got, err := Resolve(dir, []FileEdit{{Path: "pkg/difflib.py", Blocks: blocks}}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got[0].Content != new {
				t.Errorf("the blocks do not give the new content:\n%s", firstDifference(got[0].Content, new))
			}
		})
	}
	one := BlocksFor(orig, news["one line"])
	if len(one) != 1 || strings.Count(one[0].Search, "\n") != 1 {
		t.Errorf("a one-line change = %+v, want one block of one line", one)
	}
}

// TestBlocksForRandom checks that BlocksFor's blocks give the new content
// back for random changes to a file of few distinct lines, where a SEARCH
// is hardest to make match once. (A file of blank lines only has no line a
// SEARCH can hold on to.)
func TestBlocksForRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := []string{"a\n", "b\n", "\n", "    c\n", "d\n"}
	random := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = pool[rng.IntN(len(pool))]
		}
		return out
	}
	dir := t.TempDir()
	for range 1000 {
		oldLines := random(1 + rng.IntN(30))
		newLines := slices.Clone(oldLines)
		for range 1 + rng.IntN(4) {
			at := rng.IntN(len(newLines) + 1)
			switch rng.IntN(3) {
			case 0:
				newLines = slices.Insert(newLines, at, random(1+rng.IntN(3))...)
			case 1:
				if at < len(newLines) {
					newLines = slices.Delete(newLines, at, min(len(newLines), at+1+rng.IntN(3)))
				}
			default:
				if at < len(newLines) {
					newLines[at] = "x" + newLines[at]
				}
			}
		}
		old, new := strings.Join(oldLines, ""), strings.Join(newLines, "")
		if old == new || new == "" || strings.TrimSpace(old) == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, "f.py"), []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Resolve(dir, []FileEdit{{Path: "f.py", Blocks: BlocksFor(old, new)}}, 0)
		if err != nil {
			t.Fatalf("%q -> %q: %v", old, new, err)
		}
		if got[0].Content != new {
			t.Fatalf("%q -> %q: the blocks give %q", old, new, got[0].Content)
		}
	}
}

// TestMatchErrorGolden pins the feedback on an answer to the real difflib.py
// that has a block that applies, one that quotes the file wrongly, one
// that matches twice and one that elides in REPLACE.
func TestMatchErrorGolden(t *testing.T) {
	dir, _ := difflibRepo(t)
	_, err := Resolve(dir, []FileEdit{{Path: "pkg/difflib.py", Blocks: []Block{
		{N: 1, Search: "        return _calculate_ratio(min(la, lb), la + lb)\n", Replace: "        return _calculate_ratio(max(la, lb), la + lb)\n"},
		{N: 2, Search: "    def get_opcodes(self):\n        \"\"\"Return list of 5-tuples describing how to turn a into b.\n\n        Each tuple is of the form (tag, i1, i2, j1, j2).\n", Replace: "x\n"},
		{N: 3, Search: "        return _calculate_ratio(matches, len(self.a) + len(self.b))\n", Replace: "        return 0.0\n"},
		{N: 4, Search: "    def quick_ratio(self):\n", Replace: "    def quick_ratio(self):\n        ...\n"},
	}}}, 0)
	if err == nil {
		t.Fatal("Resolve placed every block")
	}
	golden(t, "match_error", err.Error()+"\n")
}

// readings splits a block's text at each line "=======" in turn, as the
// answer parser does: the block's Search and Replace are the first
// reading, and Splits all of them when there are several.
func readings(n int, body string) Block {
	lines := strings.SplitAfter(body, "\n")
	bl := Block{N: n}
	for i, l := range lines {
		if l == "=======\n" {
			bl.Splits = append(bl.Splits, Split{Search: strings.Join(lines[:i], ""), Replace: strings.Join(lines[i+1:], "")})
		}
	}
	if len(bl.Splits) > 0 {
		bl.Search, bl.Replace = bl.Splits[0].Search, bl.Splits[0].Replace
	}
	if len(bl.Splits) < 2 {
		bl.Splits = nil
	}
	return bl
}

func TestDividerChoice(t *testing.T) {
	const (
		numpy = "def f():\n    \"\"\"Do it.\n\n    Examples\n    ========\n    >>> f()\n    1\n    \"\"\"\n    return 2\n"
		// A test fixture holding a merge conflict, and a line "x" that
		// is in it and elsewhere.
		merge = "x\ny = 0\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> topic\n"
		rst   = "Title\n=======\n\nIntro.\n\nUsage\n-----\n"
	)
	tests := []struct {
		name, file, body string
		want             string // the file after the block, or "" when refused
		why              string // a substring of the refusal
	}{
		{"numpy underline is quoted, one divider", numpy,
			"    Examples\n    ========\n    >>> f()\n    1\n=======\n    Examples\n    ========\n    >>> f()\n    2\n",
			strings.Replace(numpy, "    1\n", "    2\n", 1), ""},
		{"merge marker: only the second reading matches once", merge,
			"x\n=======\ny\n=======\nz\n",
			"x\ny = 0\n<<<<<<< HEAD\nz\n>>>>>>> topic\n", ""},
		{"merge marker: the first reading is the only one", merge,
			"y = 0\n=======\ny = 1\n=======\n",
			"x\ny = 1\n=======\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> topic\n", ""},
		{"RST heading: both readings match once", rst,
			"Title\n=======\n\nIntro.\n=======\nTitle\n=======\n\nMore.\n",
			"", "with the 1st or the 2nd as the divider"},
		{"no reading matches", rst,
			"Nothing\n=======\nhere\n=======\nat all\n",
			"", "with none of them as the divider"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := placeBlock(tt.file, readings(1, tt.body))
			switch {
			case tt.why == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.why == "" && got != tt.want:
				t.Fatalf("got %q, want %q", got, tt.want)
			case tt.why != "" && err == nil:
				t.Fatalf("placed as %q, want a refusal", got)
			case tt.why != "" && !strings.Contains(err.Error(), tt.why):
				t.Fatalf("refusal %q does not say %q", err, tt.why)
			}
		})
	}
}
