package repocontext

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenCases are the repository and budget of each golden case; a zero
// budget is the default.
var goldenCases = map[string]struct {
	repo   string
	budget int
}{
	"divide":        {"testdata/repo", 0},
	"divide_tight":  {"testdata/repo", 450},
	"vague":         {"testdata/repo", 0},
	"restock":       {"testdata/large", 0},
	"restock_tight": {"testdata/large", 2200},
}

// protectTests protects tests and .github, as repo mode does by default.
func protectTests(p string) bool {
	return strings.HasPrefix(p, "tests/") || strings.HasPrefix(p, ".github/")
}

// TestGolden builds the context of a fixture repository for each issue in
// testdata/golden/*.issue (first line the title, the rest the body) and
// compares a summary and the rendered text with the .golden file; run with
// -update to rewrite them.
func TestGolden(t *testing.T) {
	issues, err := filepath.Glob("testdata/golden/*.issue")
	if err != nil || len(issues) == 0 {
		t.Fatalf("no issues in testdata/golden: %v", err)
	}
	for _, path := range issues {
		name := strings.TrimSuffix(filepath.Base(path), ".issue")
		t.Run(name, func(t *testing.T) {
			gc, ok := goldenCases[name]
			if !ok {
				t.Fatalf("add %s to goldenCases", name)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			title, body, _ := strings.Cut(string(raw), "\n")
			ctx, err := Build(gc.repo, Issue{Title: title, Body: body}, Options{Budget: gc.budget, Protected: protectTests})
			if err != nil {
				t.Fatal(err)
			}
			got := goldenText(ctx)
			golden := strings.TrimSuffix(path, ".issue") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("context differs from %s (run go test -update):\n%s", golden, got)
			}
		})
	}
}

// goldenText is a summary of ctx followed by its text, exactly.
func goldenText(ctx Context) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Tokens: %d\nSymbols: %q\nIncluded:\n", ctx.Tokens, ctx.Symbols)
	for _, in := range ctx.Included {
		fmt.Fprintf(&b, "  %s (%d tokens, read-only %v): %s\n", in.Path, in.Tokens, in.ReadOnly, in.Why)
		if !in.Whole() {
			fmt.Fprintf(&b, "    %s\n", in)
		}
	}
	b.WriteString("Omitted:\n")
	for _, o := range ctx.Omitted {
		fmt.Fprintf(&b, "  %s: %s\n", o.Path, o.Why)
	}
	b.WriteString("==== Text ====\n")
	b.WriteString(ctx.Text)
	return b.String()
}
