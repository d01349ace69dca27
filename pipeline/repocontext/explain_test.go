package repocontext

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// explainCase is one file, or lines of it, explained in a context.
type explainCase struct {
	name string
	// repo is a fixture directory; when empty, baseRepo plus extra.
	repo        string
	extra       map[string]string
	title, body string
	opts        Options
	target      Target

	rank   int
	tier   string // a prefix
	why    string
	status string // "whole", "in part", or Omitted's prefix; "" when not ranked
	// seen are substrings, each of some note in Seen.
	seen []string
	// before are the paths of Explanation.Before, in order; skipped is
	// Explanation.Skipped.
	before  []string
	skipped int
	// shown are Explanation.Shown as "3-9 (why)".
	shown []string
	// leftOut are Explanation.LeftOut as "3-9".
	leftOut []string
	// widened are the paths of Explanation.Widened.
	widened []string
	// left is Explanation.Left; -1 when not checked.
	left int
}

// hugeRepoFile is a Python file too large to show whole, of 400 small
// functions.
var hugeRepoFile = func() string {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "def huge_fn_%d(x):\n    return x + %d\n\n\n", i, i)
	}
	return b.String()
}()

func TestExplain(t *testing.T) {
	divide := "`divide` by zero"
	tight, err := readGoldenIssue("divide_tight")
	if err != nil {
		t.Fatal(err)
	}
	restock, err := readGoldenIssue("restock_tight")
	if err != nil {
		t.Fatal(err)
	}
	plugins := map[string]string{}
	for i := 1; i <= 5; i++ {
		plugins[fmt.Sprintf("plug/p%d.py", i)] = "def frobnicate():\n    pass\n"
	}
	tests := []explainCase{
		{
			name: "seed shown whole", title: divide, target: Target{Path: "calc/ops.py"},
			rank: 1, tier: "tier 1", why: "defines divide", status: "whole",
			shown: []string{"1-6 (whole file)"}, left: -1,
		},
		{
			name: "lines of a seed shown whole", title: divide, target: Target{Path: "calc/ops.py", Start: 5, End: 6},
			rank: 1, tier: "tier 1", why: "defines divide", status: "whole",
			shown: []string{"5-6 (whole file)"}, left: -1,
		},
		{
			name: "neighbour after the seeds", title: divide, target: Target{Path: "calc/util.py"},
			rank: 6, tier: "tier 3", why: "imported by calc/ops.py", status: "whole",
			before: []string{"calc/ops.py", "calc/__init__.py", "calc/sub/deep.py", "calc/cli.py", "calc/errors.py"}, shown: []string{"1-2 (whole file)"}, left: -1,
		},
		{
			name: "file nothing ranked", title: divide, target: Target{Path: "calc/fmt.py"},
			seen: []string{"uses none of the issue's words"},
			before: []string{"calc/ops.py", "calc/__init__.py", "calc/sub/deep.py", "calc/cli.py", "calc/errors.py",
				"calc/util.py", "tests/test_ops.py", "README.md", "setup.py"},
			left: -1,
		},
		{
			name: "a test nothing ranked", title: divide, target: Target{Path: "tests/test_fmt.py"},
			seen: []string{"a test: not scored"}, left: -1,
			before: []string{"calc/ops.py", "calc/__init__.py", "calc/sub/deep.py", "calc/cli.py", "calc/errors.py",
				"calc/util.py", "tests/test_ops.py", "README.md", "setup.py"},
		},
		{
			name: "left out over budget after the files before it",
			repo: "testdata/repo", title: tight.Title, body: tight.Body,
			opts:   Options{Budget: 432, Protected: protectTests},
			target: Target{Path: "tests/test_ops.py"},
			rank:   6, tier: "tier 4", why: "test that imports calc/ops.py and mentions divide",
			status: "over budget: needs 61 tokens, 60 left",
			before: []string{"calc/ops.py", "calc/cli.py", "calc/errors.py", "calc/__init__.py"}, skipped: 1,
			left: 60,
		},
		{
			name:  "a name defined in too many files",
			extra: plugins, title: "`frobnicate` crashes", target: Target{Path: "plug/p1.py"},
			seen: []string{
				"defines names of the issue: frobnicate (defined in 5 files)",
				"rank 1 of 5 files by the issue's words (BM25), using frobnicate; retrieval wants at least 2",
			},
			before: []string{"README.md", "setup.py"}, left: -1,
		},
		{
			name:  "a file the walk skips",
			extra: map[string]string{"node_modules/lib/calc.js": "module.exports = 1\n"}, title: divide,
			target: Target{Path: "node_modules/lib/calc.js", Start: 1, End: 1},
			seen:   []string{"a directory the context never walks"},
			before: []string{"calc/ops.py", "calc/__init__.py", "calc/sub/deep.py", "calc/cli.py", "calc/errors.py",
				"calc/util.py", "tests/test_ops.py", "README.md", "setup.py"},
			left: -1,
		},
		{
			name: "lines a large file shows",
			repo: "testdata/large", title: restock.Title, body: restock.Body,
			opts:   Options{Budget: 2200, Protected: protectTests},
			target: Target{Path: "inventory/store.py", Start: 330, End: 340},
			rank:   1, tier: "tier 1", why: "named in the issue", status: "in part",
			shown: []string{"330-340 (among the functions holding the issue's words best: quantity, negative, refuse, stock; line 336 in the traceback; uses StockError; line 355 in the traceback)"},
			left:  -1,
		},
		{
			name: "lines a large file does not show",
			repo: "testdata/large", title: restock.Title, body: restock.Body,
			opts:   Options{Budget: 2200, Protected: protectTests},
			target: Target{Path: "inventory/store.py", Start: 210, End: 240},
			rank:   1, tier: "tier 1", why: "named in the issue", status: "in part",
			left: -1,
		},
		{
			name: "lines a large file shows in part, spans over them left out",
			repo: "testdata/large", title: restock.Title, body: restock.Body,
			opts:   Options{Budget: 500, Protected: protectTests},
			target: Target{Path: "inventory/store.py", Start: 321, End: 359},
			rank:   1, tier: "tier 1", why: "named in the issue", status: "in part",
			shown:   []string{"321-341 (among the functions holding the issue's words best: quantity, negative, refuse, stock; line 336 in the traceback)", "348-359 (line 355 in the traceback)"},
			leftOut: []string{"338-351"},
			left:    -1,
		},
		{
			name:  "a file shown whole once every ranked file was placed",
			extra: map[string]string{"calc/huge.py": hugeRepoFile}, title: "`huge_fn_7` fails",
			opts:   Options{Budget: 8000}, // the whole file over a third of it: shown in part first
			target: Target{Path: "calc/huge.py", Start: 100, End: 101},
			rank:   1, tier: "tier 1", why: "defines huge_fn_7", status: "whole",
			shown:   []string{"100-101 (whole file: the budget left room)"},
			widened: []string{"calc/huge.py"}, left: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkExplain(t, tt) })
	}
}

// readGoldenIssue reads testdata/golden/NAME.issue: the first line is
// the title, the rest the body.
func readGoldenIssue(name string) (Issue, error) {
	raw, err := os.ReadFile(filepath.Join("testdata", "golden", name+".issue"))
	if err != nil {
		return Issue{}, err
	}
	title, body, _ := strings.Cut(string(raw), "\n")
	return Issue{Title: title, Body: body}, nil
}

// checkExplain builds the context of one case with and without the
// explanation and checks both.
func checkExplain(t *testing.T, tt explainCase) {
	t.Helper()
	dir := tt.repo
	if dir == "" {
		files := maps.Clone(baseRepo)
		maps.Copy(files, tt.extra)
		dir = writeRepo(t, files)
	}
	issue := Issue{Title: tt.title, Body: tt.body}
	plain, err := Build(dir, issue, tt.opts)
	if err != nil {
		t.Fatal(err)
	}
	opts := tt.opts
	opts.Explain = &tt.target
	ctx, err := Build(dir, issue, opts)
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Text != plain.Text || !reflect.DeepEqual(ctx.Included, plain.Included) || !reflect.DeepEqual(ctx.Omitted, plain.Omitted) {
		t.Errorf("explaining changed the context")
	}
	e := ctx.Explanation
	if e == nil {
		t.Fatal("no explanation")
	}
	if e.Rank != tt.rank || !strings.HasPrefix(e.Tier, tt.tier) || e.Why != tt.why {
		t.Errorf("rank %d, %q, %q; want %d, %q..., %q", e.Rank, e.Tier, e.Why, tt.rank, tt.tier, tt.why)
	}
	if got := explainStatus(e); tt.status == "" && got != "" || !strings.HasPrefix(got, tt.status) {
		t.Errorf("status %q, want %q", got, tt.status)
	}
	for _, want := range tt.seen {
		if !containsSubstring(e.Seen, want) {
			t.Errorf("no note %q in %q", want, e.Seen)
		}
	}
	if got := usePaths(e.Before); !reflect.DeepEqual(got, tt.before) || e.Skipped != tt.skipped {
		t.Errorf("before: %q and %d skipped; want %q and %d", got, e.Skipped, tt.before, tt.skipped)
	}
	if got := usePaths(e.Widened); !reflect.DeepEqual(got, tt.widened) {
		t.Errorf("widened: %q, want %q", got, tt.widened)
	}
	var shown []string
	for _, s := range e.Shown {
		shown = append(shown, fmt.Sprintf("%s (%s)", lineRange{s.Start, s.End}, s.Why))
	}
	if !reflect.DeepEqual(shown, tt.shown) {
		t.Errorf("shown: %q, want %q", shown, tt.shown)
	}
	var leftOut []string
	for _, s := range e.LeftOut {
		leftOut = append(leftOut, lineRange{s.Start, s.End}.String())
		if !strings.HasPrefix(s.Why, "over budget") {
			t.Errorf("left out: %s, not over budget", s)
		}
	}
	if !reflect.DeepEqual(leftOut, tt.leftOut) {
		t.Errorf("left out: %q, want %q", leftOut, tt.leftOut)
	}
	checkBudget(t, e, tt.left)
	checkTokens(t, e, tt.target)
}

// explainStatus is "whole", "in part", Omitted, or "" for a file nothing
// ranked.
func explainStatus(e *Explanation) string {
	switch {
	case e.Included != nil && e.Included.Whole():
		return "whole"
	case e.Included != nil:
		return "in part"
	}
	return e.Omitted
}

// checkBudget checks that the issue, the tree, the files before and what
// was left add up to the budget.
func checkBudget(t *testing.T, e *Explanation, left int) {
	t.Helper()
	if left >= 0 && e.Left != left {
		t.Errorf("left %d, want %d", e.Left, left)
	}
	sum := e.IssueTokens + e.TreeTokens + e.HeadingTokens + e.Left
	for _, u := range e.Before {
		if u.Tokens <= 0 || u.Rank <= 0 || u.Rank >= e.Rank && e.Rank > 0 {
			t.Errorf("before: %+v", u)
		}
		sum += u.Tokens
	}
	if e.Left > 0 && sum != e.Budget {
		t.Errorf("issue %d + tree %d + heading %d + before + left %d = %d, not the budget %d", e.IssueTokens, e.TreeTokens, e.HeadingTokens, e.Left, sum, e.Budget)
	}
	if e.Unused > e.Left && len(e.Widened) == 0 && e.Rank > 0 {
		t.Errorf("%d unused at the end, more than the %d left at the file's turn", e.Unused, e.Left)
	}
}

// checkTokens checks what the file and its lines would take.
func checkTokens(t *testing.T, e *Explanation, target Target) {
	t.Helper()
	if e.Lines == 0 || e.WholeTokens <= 0 {
		t.Errorf("%d lines, %d tokens whole", e.Lines, e.WholeTokens)
	}
	switch {
	case target.Start == 0 && e.SpanTokens != 0:
		t.Errorf("%d span tokens with no lines asked", e.SpanTokens)
	case target.Start > 0 && (e.SpanTokens <= 0 || e.Lines > 50 && e.SpanTokens >= e.WholeTokens):
		t.Errorf("%d span tokens, %d whole", e.SpanTokens, e.WholeTokens)
	}
}

// usePaths lists the paths of uses.
func usePaths(uses []Use) []string {
	var out []string
	for _, u := range uses {
		out = append(out, u.Path)
	}
	return out
}

// containsSubstring reports whether some element of list contains s.
func containsSubstring(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

func TestExplainTargetErrors(t *testing.T) {
	dir := writeRepo(t, baseRepo)
	outside := filepath.Join(t.TempDir(), "x.py")
	tests := []struct {
		name   string
		target Target
		want   string
	}{
		{"no path", Target{}, "no file named"},
		{"relative path outside", Target{Path: "../x.py"}, "../x.py is outside the repository"},
		{"path climbing out", Target{Path: "calc/../../x.py"}, "is outside the repository"},
		{"absolute path outside", Target{Path: outside}, outside + " is outside the repository"},
		{"the repository itself", Target{Path: "."}, "is the repository, not a file in it"},
		{"missing file", Target{Path: "calc/nope.py"}, "calc/nope.py: no such file in the repository"},
		{"directory", Target{Path: "calc"}, "calc is a directory, not a file"},
		{"lines past the end", Target{Path: "calc/ops.py", Start: 5, End: 900}, "lines 5-900 of calc/ops.py: the file has 6 lines"},
		{"lines in the wrong order", Target{Path: "calc/ops.py", Start: 5, End: 3}, "lines 5-3: want 1 <= START <= END"},
		{"line zero", Target{Path: "calc/ops.py", Start: 0, End: 3}, "lines 0-3: want 1 <= START <= END"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(dir, Issue{Title: "`divide` by zero"}, Options{Explain: &tt.target})
			if !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrTarget with %q", err, tt.want)
			}
		})
	}
}

// TestExplainAbsolutePath explains a file named by its absolute path
// inside the repository.
func TestExplainAbsolutePath(t *testing.T) {
	dir := writeRepo(t, baseRepo)
	ctx, err := Build(dir, Issue{Title: "`divide` by zero"}, Options{Explain: &Target{Path: filepath.Join(dir, "calc", "ops.py")}})
	if err != nil {
		t.Fatal(err)
	}
	if e := ctx.Explanation; e == nil || e.Path != "calc/ops.py" || e.Rank != 1 {
		t.Errorf("explanation %+v, want calc/ops.py at rank 1", e)
	}
}
