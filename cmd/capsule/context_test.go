package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

// largeRepo is repocontext's fixture with a module too large to show
// whole.
var largeRepo = filepath.Join("..", "..", "pipeline", "repocontext", "testdata", "large")

// TestContext prints the context of an issue on the fixture at a budget
// that shows the large module in part, compares it with the golden file,
// and checks that the context printed is the one repo mode builds for the
// task solve plans.
func TestContext(t *testing.T) {
	issue := filepath.Join("testdata", "context", "restock.md")
	code, stdout, stderr := capsule(t, "context", "--repo", largeRepo, "--issue", issue, "--budget", "2200")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	goldenfile.Check(t, filepath.Join("testdata", "context", "restock.golden"), stdout, *update)

	title, body, err := readIssue(issue, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := repoconfig.Load(largeRepo)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := repo.NewPlan(repo.Task{Dir: largeRepo, Config: cfg, Title: title, Body: body}, repo.Overrides{TestCommand: "pytest", ContextBudget: 2200}, repo.Maxima{})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := repo.Context(plan)
	if err != nil {
		t.Fatal(err)
	}
	if text, _, _ := strings.Cut(stdout, contextReportHeading); text != rc.Text {
		t.Errorf("capsule context printed another context than repo mode builds:\n%s", text)
	}
}

func TestContextUsage(t *testing.T) {
	issue := filepath.Join("testdata", "context", "restock.md")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no issue", []string{"--repo", largeRepo}, "need --repo DIR and --issue FILE"},
		{"negative budget", []string{"--repo", largeRepo, "--issue", issue, "--budget", "-1"}, "--budget must not be negative"},
		{"missing repository", []string{"--repo", "/no/such/dir", "--issue", issue}, "/no/such/dir is not a directory"},
		{"missing issue", []string{"--repo", largeRepo, "--issue", "/no/such/issue.md"}, "read the issue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := capsule(t, append([]string{"context"}, tt.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}
