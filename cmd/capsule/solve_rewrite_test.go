//go:build ecosystemimages

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/sandbox/image"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// TestSolveRewrittenReport: destr's programmer answers (twice) with a
// test file that rewrites Vitest's JSON report after the run, every test
// passed with its totals to match, from an exit hook and from a process
// it leaves behind. The report Capsule reads is the rewritten one, but
// the summary Vitest printed before writing it still counts the
// reproducing test's failure: the runs cannot be trusted, and the job is
// not solved.
func TestSolveRewrittenReport(t *testing.T) {
	sandboxtest.Image(t, sandboxtest.Engine(t), image.Node)
	c := languageCase{name: "destr"}
	repo := copyTree(t, filepath.Join("testdata", "languages", c.name, "tree"))
	if err := os.MkdirAll(filepath.Join(repo, ".github"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".github", "capsule.yml"), []byte("max_attempts: 2\ntimeout: 5m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rewrite := fakeopenai.Reply(c.answer(t, "rewrite"))
	srv := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Reply(c.answer(t, "design")), rewrite, rewrite))
	out := t.TempDir()
	code, _, stderr := capsule(t, "solve", "--repo", repo, "--issue", filepath.Join("testdata", "languages", c.name, "issue.md"),
		"--base-url", srv.URL(), "--model", "fake", "--out", out)
	l := readLog(t, out)
	if code != exitFailure || l.Outcome != attemptlog.NotSolved {
		t.Fatalf("exit %d, outcome %s; want %d, %s\n%s", code, l.Outcome, exitFailure, attemptlog.NotSolved, stderr)
	}
	for _, a := range l.Attempts {
		t.Logf("attempt feedback: %s", a.Feedback)
	}
	if len(l.Attempts) == 0 || !strings.Contains(l.Attempts[0].Feedback, "the report was changed after the runner wrote it") {
		t.Errorf("the rewritten report was not refused for disagreeing with Vitest's summary: %+v", l.Attempts)
	}
}
