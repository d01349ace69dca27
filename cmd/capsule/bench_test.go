package main

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/internal/fakeopenai"
	"github.com/capsulehq/capsule/internal/sandboxtest"
	"github.com/capsulehq/capsule/internal/testdata"
	"github.com/sashabaranov/go-openai"
)

// humanEvalSample writes the first n HumanEval records, plus a corrupt
// line, to a file and returns its path and the records.
func humanEvalSample(t *testing.T, n int) (string, []map[string]any) {
	t.Helper()
	f, err := os.Open(testdata.Shared(t, "datasets", "humaneval", "HumanEval.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(data), "\n", n+1)[:n]
	var records []map[string]any
	for _, l := range lines {
		var r map[string]any
		json.Unmarshal([]byte(l), &r)
		records = append(records, r)
	}
	lines = append(lines[:1], append([]string{`{"task_id": "HumanEval/broken", "prompt": `}, lines[1:]...)...)
	path := filepath.Join(t.TempDir(), "HumanEval-sample.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, records
}

func TestBenchCommand(t *testing.T) {
	sandboxtest.Engine(t)
	path, records := humanEvalSample(t, 3)
	srv := fakeopenai.New(t, func(_ int, req openai.ChatCompletionRequest) fakeopenai.Response {
		for _, r := range records {
			if strings.Contains(req.Messages[1].Content, strings.TrimSpace(r["prompt"].(string))) {
				return fakeopenai.Reply("### Code\n```python\n" + r["prompt"].(string) + r["canonical_solution"].(string) + "```\n")
			}
		}
		return fakeopenai.Error(400, "unknown task")
	})
	out := t.TempDir()
	code, stdout, stderr := capsule(t, "bench", "--dataset", path, "--base-url", srv.URL(), "--model", "fake", "--workers", "2", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	for _, want := range []string{"line 2", "[3/3] solved 3"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "100.0%") && !strings.Contains(stdout, "3/3") {
		t.Errorf("summary table does not show 3 of 3 passed:\n%s", stdout)
	}
	for _, name := range []string{"results.jsonl", "summary.json", "chart.svg", "logs/HumanEval_0.md"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("missing %s: %v", name, err)
		}
	}
	// A rerun resumes: nothing left to do, no model call.
	before := len(srv.Requests())
	if code, _, stderr := capsule(t, "bench", "--dataset", path, "--base-url", srv.URL(), "--model", "fake", "--out", out); code != exitOK || !strings.Contains(stderr, "resuming: 3 of 3") {
		t.Errorf("rerun: exit %d, stderr %s", code, stderr)
	}
	if len(srv.Requests()) != before {
		t.Errorf("the rerun called the model %d times", len(srv.Requests())-before)
	}
}

func TestBenchCommandErrors(t *testing.T) {
	path, _ := humanEvalSample(t, 1)
	closed := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Reply("x")))
	closedURL := closed.URL()
	closed.Close()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing flags", []string{"bench"}, exitUsage, "need --dataset FILE and --out DIR"},
		{"unknown format", []string{"bench", "--dataset", path, "--out", t.TempDir(), "--format", "apps", "--model", "m", "--base-url", closedURL}, exitUsage, "apps"},
		{"bad feedback", []string{"bench", "--dataset", path, "--out", t.TempDir(), "--feedback", "loud", "--model", "m", "--base-url", closedURL}, exitUsage, "loud"},
		{"no model", []string{"bench", "--dataset", path, "--out", t.TempDir(), "--model", "", "--base-url", closedURL}, exitUsage, "model"},
		{"unreachable endpoint", []string{"bench", "--dataset", path, "--out", t.TempDir(), "--model", "m", "--base-url", closedURL}, exitInfra, strings.TrimSuffix(closedURL, "/v1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := capsule(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q (stdout %s)", code, stderr, tt.code, tt.want, stdout)
			}
		})
	}
}
