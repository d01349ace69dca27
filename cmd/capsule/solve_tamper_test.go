package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
	openai "github.com/sashabaranov/go-openai"
)

// designPath matches where the test designer is asked to write its test.
var designPath = regexp.MustCompile(`as the new file (\S+?)\.?(?:\s|$)`)

// designerThen answers the test designer's request with the honest
// reproducing test at the path the request names, and every programmer
// request with answer.
func designerThen(answer string) fakeopenai.Script {
	return func(_ int, req openai.ChatCompletionRequest) fakeopenai.Response {
		if m := designPath.FindStringSubmatch(req.Messages[len(req.Messages)-1].Content); m != nil {
			return fakeopenai.Reply(calculatortest.DesignerAnswer(m[1]))
		}
		return fakeopenai.Reply(answer)
	}
}

// TestSolveTampering: answers that fix nothing but attack the proof,
// against an honest reproducing test, are never reported solved, and the
// log says why.
func TestSolveTampering(t *testing.T) {
	sandboxtest.Engine(t)
	for _, a := range calculatortest.Attacks {
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			repo := exampleRepo(t, "test: python3 -m pytest -q\nmax_attempts: 0\n")
			if err := os.WriteFile(filepath.Join(repo, "tests", "test_stats.py"), []byte(calculatortest.WithoutEmptyListTests(t)), 0o644); err != nil {
				t.Fatal(err)
			}
			if a.Prepare != nil {
				a.Prepare(t, repo)
			}
			srv := fakeopenai.New(t, designerThen(a.Answer(t)))
			out := t.TempDir()
			code, _, stderr := capsule(t, "solve", "--repo", repo, "--issue", filepath.Join("..", "..", "examples", "calculator-issue.md"),
				"--base-url", srv.URL(), "--model", "fake", "--out", out)
			md := readOut(t, out, attemptsMDFile)
			if code == exitOK {
				t.Fatalf("solved by an answer that fixes nothing\n%s", md)
			}
			if !strings.Contains(md, "Tampering seen") && !strings.Contains(md, "cannot be trusted") && !strings.Contains(md, "Refused") {
				t.Errorf("exit %d; attempts.md does not say why:\n%s\n%s", code, md, stderr)
			}
			t.Logf("exit %d\n%s", code, md)
		})
	}
}
