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
	def := func(name string, lines int) string {
		var b strings.Builder
		b.WriteString("def " + name + "(total):\n")
		for k := range lines {
			fmt.Fprintf(&b, "    total = total + amount_%d * 2\n", k)
		}
		return b.String() + "    return total\n\n\n"
	}
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
			dir := writeRepo(t, map[string]string{"pkg/big.py": def("frob", tt.frob) + def("other", tt.other)})
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
