package repocontext

import (
	"reflect"
	"strings"
	"testing"
)

// TestBudgetInvariants builds the fixture's context at many budgets and
// checks what callers rely on: the budget holds, the tree takes about a
// tenth of it, every included file is in the text whole, and building
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
		if tree := EstimateTokens(ctx.Tree); tree > budget/10 {
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
