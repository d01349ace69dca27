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

// languageCase is a real issue of a public project in another language
// than Python, in testdata/languages/NAME: the tree at the commit before
// the fix, the text, and scripted answers (see its SOURCE.md).
type languageCase struct {
	name   string
	recipe image.Recipe
	// reproduction is the test designer's file and target.
	file, target string
	// refusedFor is what the feedback on the tampering answer names as
	// the reason it was refused.
	refusedFor string
}

// answer reads one of a case's scripted answers.
func (c languageCase) answer(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "languages", c.name, name+".md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestSolveLanguages: real issues of projects in other languages, solved
// through `capsule solve` in their ecosystem's image with a scripted
// model, the test designer answering with the real test in the
// repository's language and the programmer with the real fix: solved,
// with the proof table; a no-op and a tampering answer are not solved.
func TestSolveLanguages(t *testing.T) {
	eng := sandboxtest.Engine(t)
	for _, c := range []languageCase{
		{name: "go-humanize", recipe: image.Go, file: "capsule_reproduction_test.go", target: "github.com/dustin/go-humanize::TestHumanizeBigIntMutation", refusedFor: "TestMain"},
		{name: "strsim", recipe: image.Rust, file: "tests/capsule_reproduction.rs", target: "tests/capsule_reproduction.rs::jaro_and_jaro_winkler_count_every_transposition", refusedFor: ".cargo/config.toml"},
		{name: "destr", recipe: image.Node, file: "test/capsule-reproduction.test.ts", target: "test/capsule-reproduction.test.ts::destr::parses string with escape characters", refusedFor: "vitest.config.ts"},
		{name: "jsemver", recipe: image.Java, file: "src/test/java/com/github/zafarkhaja/semver/CapsuleReproductionTest.java",
			target: "com.github.zafarkhaja.semver.CapsuleReproductionTest::shouldNotFailToConvertToBuilderWithoutPreReleaseVersion", refusedFor: "JVM shutdown hook"},
	} {
		sandboxtest.Image(t, eng, c.recipe)
		design, fix := c.answer(t, "design"), c.answer(t, "fix")
		for _, tc := range []struct {
			name    string
			answers []string
			code    int
			outcome attemptlog.Outcome
		}{
			{"fixed", []string{design, fix}, exitOK, attemptlog.Solved},
			{"no-op", []string{design, c.answer(t, "noop"), c.answer(t, "noop")}, exitFailure, attemptlog.NotSolved},
			{"tampering", []string{design, c.answer(t, "tamper"), c.answer(t, "tamper")}, exitFailure, attemptlog.NotSolved},
		} {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				repo := copyTree(t, filepath.Join("testdata", "languages", c.name, "tree"))
				config := "max_attempts: " + string(rune('0'+len(tc.answers)-1)) + "\ntimeout: 5m\n"
				if err := os.MkdirAll(filepath.Join(repo, ".github"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(repo, ".github", "capsule.yml"), []byte(config), 0o644); err != nil {
					t.Fatal(err)
				}
				var replies []fakeopenai.Response
				for _, a := range tc.answers {
					replies = append(replies, fakeopenai.Reply(a))
				}
				srv := fakeopenai.New(t, fakeopenai.Sequence(replies...))
				out := t.TempDir()
				code, _, stderr := capsule(t, "solve", "--repo", repo, "--issue", filepath.Join("testdata", "languages", c.name, "issue.md"),
					"--base-url", srv.URL(), "--model", "fake", "--out", out)
				l := readLog(t, out)
				if code != tc.code || l.Outcome != tc.outcome {
					t.Fatalf("exit %d, outcome %s; want %d, %s\n%s", code, l.Outcome, tc.code, tc.outcome, stderr)
				}
				if l.Reproduction == nil || !l.Reproduction.Accepted || l.Reproduction.File != c.file {
					t.Fatalf("reproduction: %+v", l.Reproduction)
				}
				if len(l.Baseline.Targets) != 1 || l.Baseline.Targets[0] != c.target {
					t.Errorf("targets %v, want %s", l.Baseline.Targets, c.target)
				}
				if tc.name == "tampering" && (len(l.Attempts) == 0 || !strings.Contains(l.Attempts[0].Feedback, c.refusedFor)) {
					t.Errorf("the tampering answer was not refused for its %s: %+v", c.refusedFor, l.Attempts)
				}
				md := readOut(t, out, attemptsMDFile)
				if tc.outcome == attemptlog.Solved && !strings.Contains(md, "| `"+c.target+"` | failed | passed |") {
					t.Errorf("attempts.md lacks the proof:\n%s", md)
				}
			})
		}
	}
}
