package repocontext

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestBudgetInvariants builds the fixture's context at many budgets and
// checks what callers rely on: the budget holds, the tree takes about a
// sixteenth of it, every included file is in the text whole, and building
// twice gives the same context.
func TestBudgetInvariants(t *testing.T) {
	issue := Issue{Title: "`divide` should raise CalcError", Body: "See calc/cli.py and `calc.ops.divide(1, 0)`."}
	issueTokens := EstimateTokens(issue.Title + "\n\n" + issue.Body)
	for budget := 1; budget < 1200; budget += 13 {
		ctx, err := Build("testdata/repo", issue, Options{Budget: budget, Protected: protectTests})
		if err != nil {
			t.Fatal(err)
		}
		if ctx.Tokens != issueTokens+EstimateTokens(ctx.Text) {
			t.Errorf("budget %d: Tokens = %d, want the issue's %d plus the text's %d", budget, ctx.Tokens, issueTokens, EstimateTokens(ctx.Text))
		}
		if ctx.Tokens > max(budget, issueTokens) {
			t.Errorf("budget %d: Tokens = %d", budget, ctx.Tokens)
		}
		if tree := EstimateTokens(ctx.Tree); tree > budget/treeShare {
			t.Errorf("budget %d: the tree takes %d tokens", budget, tree)
		}
		for _, in := range ctx.Included {
			if !strings.Contains(ctx.Text, "\n### "+in.Path+" (") {
				t.Errorf("budget %d: %s included but not in the text", budget, in.Path)
			}
		}
		again, err := Build("testdata/repo", issue, Options{Budget: budget, Protected: protectTests})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ctx, again) {
			t.Errorf("budget %d: two builds differ", budget)
		}
	}
}

func TestFileSection(t *testing.T) {
	tests := []struct {
		name, path, why string
		readOnly        bool
		content, want   string
	}{
		{
			name: "python", path: "calc/ops.py", why: "defines divide",
			content: "def divide(a, b):\n    return a / b\n",
			want:    "\n### calc/ops.py (defines divide)\n```python\ndef divide(a, b):\n    return a / b\n```\n",
		},
		{
			name: "read-only without a final newline", path: "tests/test_ops.py", why: "test", readOnly: true,
			content: "assert True",
			want:    "\n### tests/test_ops.py (read-only) (test)\n```python\nassert True\n```\n",
		},
		{
			name: "fences inside", path: "README.md", why: "project README",
			content: "Run:\n\n```sh\nmake\n```\n",
			want:    "\n### README.md (project README)\n````markdown\nRun:\n\n```sh\nmake\n```\n````\n",
		},
		{
			name: "unknown extension", path: "LICENSE", why: "named in the issue",
			content: "MIT\n",
			want:    "\n### LICENSE (named in the issue)\n```\nMIT\n```\n",
		},
		{
			name: "empty", path: "calc/__init__.py", why: "imports calc/ops.py",
			want: "\n### calc/__init__.py (imports calc/ops.py)\n```python\n```\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fileSection(tt.path, tt.why, tt.readOnly, tt.content); got != tt.want {
				t.Errorf("fileSection:\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestFirstFileWhole checks that the first file is shown whole at its
// turn when the spans chosen in it already take two thirds of what it
// takes whole, and in part when they take less (shown whole only at the
// end, when the budget leaves room).
func TestFirstFileWhole(t *testing.T) {
	tests := []struct {
		name        string
		frob, other int
		want        string
	}{
		{name: "the named def is most of the file", frob: 300, other: 40, want: "whole file"},
		{name: "the named def is a small part", frob: 20, other: 300, want: "whole file: the budget left room"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeRepo(t, map[string]string{"pkg/big.py": longDef("frob", tt.frob) + longDef("other", tt.other)})
			ctx, err := Build(dir, Issue{Title: "`frob` crashes"}, Options{Budget: 6000})
			if err != nil {
				t.Fatal(err)
			}
			if len(ctx.Included) == 0 || ctx.Included[0].Path != "pkg/big.py" {
				t.Fatalf("included %v, want pkg/big.py first", includedPaths(ctx))
			}
			in := ctx.Included[0]
			if len(in.Spans) != 1 || in.Spans[0] != (Span{Start: 1, End: in.Lines, Why: tt.want}) {
				t.Errorf("spans %v, want lines 1-%d (%s)", in.Spans, in.Lines, tt.want)
			}
			if in.Tokens <= 6000/3 {
				t.Errorf("the file takes %d tokens, want more than a third of the budget, which is shown whole anyway", in.Tokens)
			}
		})
	}
}

// TestWidenBeforeTests checks that a file shown in part is shown whole,
// when the budget has room for it, before a test takes that room, and
// that a test shown in part is still shown whole when every file is
// placed and room is left.
func TestWidenBeforeTests(t *testing.T) {
	test := "from pkg.big import frob\n\n\n" + longDef("test_frob", 60)
	dir := writeRepo(t, map[string]string{
		"pkg/__init__.py":    "",
		"pkg/big.py":         longDef("frob", 20) + longDef("other", 300),
		"tests/test_big.py":  test,
		"tests/test_huge.py": "from pkg.big import frob\n\n\n" + longDef("test_frob_more", 400),
	})
	issue := Issue{Title: "`frob` crashes"}
	roomy, err := Build(dir, issue, Options{Budget: 50000})
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string]int{}
	for _, in := range roomy.Included {
		if !in.Whole() {
			t.Fatalf("at 50000 tokens %s is shown in part", in.Path)
		}
		tokens[in.Path] = in.Tokens
	}
	if tokens["pkg/big.py"] == 0 || tokens["tests/test_big.py"] == 0 {
		t.Fatalf("at 50000 tokens included %v, want pkg/big.py and tests/test_big.py", includedPaths(roomy))
	}
	tests := []struct {
		name      string
		budget    int
		wantWhole map[string]bool // path: shown whole; absent: not included
	}{
		{
			name:      "room for the file whole but not for the test too",
			budget:    roomy.Tokens - tokens["tests/test_big.py"] - tokens["tests/test_huge.py"] + 10,
			wantWhole: map[string]bool{"pkg/big.py": true},
		},
		{
			name:      "room for all",
			budget:    roomy.Tokens + 10,
			wantWhole: map[string]bool{"pkg/big.py": true, "tests/test_big.py": true, "tests/test_huge.py": true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, err := Build(dir, issue, Options{Budget: tt.budget})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, in := range ctx.Included {
				if in.Path != "pkg/__init__.py" {
					got[in.Path] = in.Whole()
				}
			}
			if !reflect.DeepEqual(got, tt.wantWhole) {
				t.Errorf("budget %d: included (path: whole) %v, want %v", tt.budget, got, tt.wantWhole)
			}
		})
	}
}

// longDef returns a Python function name of lines statements.
func longDef(name string, lines int) string {
	var b strings.Builder
	b.WriteString("def " + name + "(total):\n")
	for k := range lines {
		fmt.Fprintf(&b, "    total = total + amount_%d * 2\n", k)
	}
	return b.String() + "    return total\n\n\n"
}
