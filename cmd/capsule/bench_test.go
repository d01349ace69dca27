package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/datasets"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/goldenfile"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
	"github.com/sashabaranov/go-openai"
)

// humanEval returns the records of the shipped HumanEval dataset.
func humanEval(t *testing.T) []map[string]any {
	t.Helper()
	d, _ := datasets.Lookup("humaneval")
	r, err := d.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var records []map[string]any
	for dec := json.NewDecoder(r); dec.More(); {
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		records = append(records, rec)
	}
	return records
}

// humanEvalSample writes the first n HumanEval records, plus a corrupt
// line, to a file and returns its path and the records.
func humanEvalSample(t *testing.T, n int) (string, []map[string]any) {
	t.Helper()
	records := humanEval(t)[:n]
	lines := []string{}
	for i, r := range records {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
		if i == 0 {
			lines = append(lines, `{"task_id": "HumanEval/broken", "prompt": `)
		}
	}
	path := filepath.Join(t.TempDir(), "HumanEval-sample.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, records
}

// canonicalModel answers each HumanEval task with its canonical solution.
func canonicalModel(t *testing.T, records []map[string]any) *fakeopenai.Server {
	return fakeopenai.New(t, func(_ int, req openai.ChatCompletionRequest) fakeopenai.Response {
		for _, r := range records {
			if strings.Contains(req.Messages[1].Content, strings.TrimSpace(r["prompt"].(string))) {
				return fakeopenai.Reply("### Code\n```python\n" + r["prompt"].(string) + r["canonical_solution"].(string) + "```\n")
			}
		}
		return fakeopenai.Error(400, "unknown task")
	})
}

func TestBenchCommand(t *testing.T) {
	sandboxtest.Engine(t)
	path, records := humanEvalSample(t, 3)
	srv := canonicalModel(t, records)
	out := t.TempDir()
	code, stdout, stderr := capsule(t, "bench", "--dataset", path, "--base-url", srv.URL(), "--model", "fake", "--workers", "2", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	// A dataset given by path has no shipped reference times: each
	// problem's reference runs first, as the log says.
	for _, want := range []string{"line 2", "[3/3] solved 3", "calibration: full (no shipped reference times for " + path} {
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
		{"missing flags", []string{"bench"}, exitUsage, "need --dataset NAME or FILE and --out DIR"},
		{"help names the datasets", []string{"bench", "--help"}, exitOK, "--list shows their sizes and sources):\n  " + datasets.Names()},
		{"unknown dataset", []string{"bench", "--dataset", "humaneval-xl", "--out", t.TempDir(), "--model", "m", "--base-url", closedURL}, exitUsage, `no shipped dataset named "humaneval-xl", and stat humaneval-xl: no such file or directory (shipped datasets: ` + datasets.Names() + ")"},
		{"unknown format", []string{"bench", "--dataset", path, "--out", t.TempDir(), "--format", "apps", "--model", "m", "--base-url", closedURL}, exitUsage, "apps"},
		{"bad feedback", []string{"bench", "--dataset", path, "--out", t.TempDir(), "--feedback", "loud", "--model", "m", "--base-url", closedURL}, exitUsage, "loud"},
		{"bad calibrate", []string{"bench", "--dataset", path, "--out", t.TempDir(), "--calibrate", "some", "--model", "m", "--base-url", closedURL}, exitUsage, "--calibrate must be quick or full"},
		{"no model", []string{"bench", "--dataset", path, "--out", t.TempDir(), "--model", "", "--base-url", closedURL}, exitUsage, "model"},
		{"unreachable endpoint", []string{"bench", "--dataset", path, "--out", t.TempDir(), "--model", "m", "--base-url", closedURL}, exitInfra, strings.TrimSuffix(closedURL, "/v1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := capsule(t, tt.args...)
			said := stderr // errors; help goes to standard output
			if tt.code == exitOK {
				said = stdout
			}
			if code != tt.code || !strings.Contains(said, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, stdout, stderr, tt.code, tt.want)
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestBenchList(t *testing.T) {
	code, stdout, stderr := capsule(t, "bench", "--list")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	goldenfile.Check(t, filepath.Join("testdata", "bench-list.golden"), stdout, *update)
	for _, d := range datasets.All() {
		if !strings.Contains(stdout, d.Name+" ") {
			t.Errorf("--list lacks %s", d.Name)
		}
	}
}

// TestBenchShippedDataset runs the first problems of the shipped
// HumanEval by name with a model that answers every task with its
// canonical solution at once. (Whole datasets run in `make
// verify-datasets`.)
func TestBenchShippedDataset(t *testing.T) {
	const limit = 12
	sandboxtest.Engine(t)
	srv := canonicalModel(t, humanEval(t))
	out := t.TempDir()
	code, stdout, stderr := capsule(t, "bench", "--dataset", "humaneval", "--limit", strconv.Itoa(limit), "--base-url", srv.URL(), "--model", "fake", "--workers", "2", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Dataset      string  `json:"dataset"`
		Total        int     `json:"total"`
		Passed       int     `json:"passed"`
		APICallsMean float64 `json:"api_calls_mean"`
		Limits       struct {
			CPUFloorSeconds float64 `json:"cpu_floor_seconds"`
			CPUFactor       float64 `json:"cpu_factor"`
			Calibration     string  `json:"calibration"`
			Factor          float64 `json:"calibration_factor"`
		} `json:"limits"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Dataset != "humaneval" || s.Total != limit || s.Passed != limit || s.APICallsMean != 1 {
		t.Errorf("summary: %s %d/%d passed, %.2f model calls per problem; want humaneval %d/%d and 1.00", s.Dataset, s.Passed, s.Total, s.APICallsMean, limit, limit)
	}
	if l := s.Limits; l.CPUFloorSeconds != 10 || l.CPUFactor != 4 {
		t.Errorf("summary limits: floor %gs, factor %g; want the defaults, 10s and 4", l.CPUFloorSeconds, l.CPUFactor)
	}
	// The shipped dataset's limits come from its shipped reference times,
	// scaled by a short calibration, which the log reports.
	if l := s.Limits; l.Calibration != "quick" || l.Factor < 1 || !strings.Contains(stderr, "calibration: quick, 5 references") {
		t.Errorf("summary calibration %q, factor %g, want quick and at least 1; stderr:\n%s", l.Calibration, l.Factor, stderr)
	}
	if n := len(srv.Requests()); n != limit {
		t.Errorf("%d model calls, want %d", n, limit)
	}
}
