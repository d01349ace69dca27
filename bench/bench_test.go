package bench_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/bench/report"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
	"github.com/sashabaranov/go-openai"
)

// policy decides the code the fake model answers for a problem, in
// generation (fix false) or fix mode.
type policy func(p dataset.Problem, fix bool) string

// canonical answers the dataset's reference solution.
func canonical(p dataset.Problem, _ bool) string { return p.Reference }

// wrongThenRight answers code that fails every test, then the reference.
func wrongThenRight(p dataset.Problem, fix bool) string {
	if fix {
		return p.Reference
	}
	return wrongCode(p.EntryPoint)
}

// neverRight always answers code that fails.
func neverRight(p dataset.Problem, _ bool) string { return wrongCode(p.EntryPoint) }

// wrongCode defines the entry point to return a value that equals nothing
// and is false, so every assertion on it fails.
func wrongCode(entry string) string {
	return "class _Wrong:\n    __eq__ = lambda self, other: False\n    __ne__ = lambda self, other: True\n    __bool__ = lambda self: False\n    __hash__ = object.__hash__\n\n" +
		"def " + entry + "(*args, **kwargs):\n    return _Wrong()\n"
}

// fakeModel serves answers for the problem whose prompt the request
// carries.
func fakeModel(t testing.TB, problems []dataset.Problem, answer policy) *fakeopenai.Server {
	return fakeopenai.New(t, func(_ int, req openai.ChatCompletionRequest) fakeopenai.Response {
		p := problemOf(req, problems)
		if p == nil {
			return fakeopenai.Error(400, "fake model: no problem matches the request")
		}
		fix := len(req.Messages) > 2
		return fakeopenai.Reply("Here is the solution.\n\n### Requirements\nNone\n\n### Code\n```python\n" + answer(*p, fix) + "\n```\n")
	})
}

// problemOf finds the problem whose prompt the request's task carries.
// Several MBPP tasks share a text, so the one whose function the task
// names wins, then the longest prompt.
func problemOf(req openai.ChatCompletionRequest, problems []dataset.Problem) *dataset.Problem {
	task := req.Messages[1].Content
	score := func(p *dataset.Problem) int {
		s := len(strings.TrimSpace(p.Prompt))
		if strings.Contains(task, "def "+p.EntryPoint+"(") {
			s += 1 << 20
		}
		return s
	}
	var best *dataset.Problem
	for i := range problems {
		p := &problems[i]
		if strings.Contains(task, strings.TrimSpace(p.Prompt)) && (best == nil || score(p) > score(best)) {
			best = p
		}
	}
	return best
}

type run struct {
	outcome bench.Outcome
	results []report.Result
	server  *fakeopenai.Server
	out     string
}

// runBench runs the dataset (a shipped name or a file) with a fake model
// that answers by policy.
func runBench(t testing.TB, name string, format dataset.Format, limit int, answer policy, tune func(*bench.Config)) run {
	t.Helper()
	eng := sandboxtest.Engine(t)
	set, err := bench.LoadDataset(name, format)
	if err != nil {
		t.Fatal(err)
	}
	srv := fakeModel(t, set.Problems, answer)
	client, err := programmer.New(programmer.Config{BaseURL: srv.URL(), Model: "fake-model", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	cfg := bench.Config{
		Dataset: name,
		Format:  format,
		Limit:   limit,
		Workers: 2,
		Out:     t.TempDir(),
		Model:   "fake-model",
		Loop:    pipeline.DefaultSettings(),
		Sandbox: sandboxtest.Spec(""),
	}
	// A CPU-time limit above the slowest reference solution of the sample,
	// without measuring the references (TestLoadProofLimits does).
	cfg.Loop.TestCPU = time.Minute
	if tune != nil {
		tune(&cfg)
	}
	oc, err := bench.Run(context.Background(), cfg, client, eng)
	if err != nil {
		t.Fatalf("bench.Run: %v", err)
	}
	return run{outcome: oc, results: readResults(t, cfg.Out), server: srv, out: cfg.Out}
}

func readResults(t testing.TB, dir string) []report.Result {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, bench.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []report.Result
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r report.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("results.jsonl: %v", err)
		}
		out = append(out, r)
	}
	return out
}

// sampleEvery is the spacing of the fixed samples of a dataset the tests
// run (see sampleIDs); whole datasets run in `make verify-datasets`
// (BenchmarkShippedReferences).
const sampleEvery = 20

// TestCanonicalSolutionsPass runs the reference solutions of a fixed
// sample of each dataset through the benchmark: the sound ones pass in
// one call, the unsound ones fail.
func TestCanonicalSolutionsPass(t *testing.T) {
	tests := []struct {
		name    string
		dataset string
		format  dataset.Format
	}{
		{"HumanEval", "humaneval", dataset.Format("humaneval")},
		{"MBPP sanitized", "mbpp", dataset.Format("mbpp")},
		{"HumanEval-ET", "humaneval-et", dataset.Format("humaneval-et")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			broken := brokenIDs(t, tt.dataset, tt.format)
			r := runBench(t, tt.dataset, tt.format, 0, canonical, func(cfg *bench.Config) {
				cfg.Tasks = sampleIDs(t, tt.dataset, tt.format, sampleEvery, broken)
			})
			s := r.outcome.Summary
			sound := s.Total - r.outcome.Broken
			if s.Passed != sound || s.APICallsMean != 1 {
				t.Errorf("passed %d of %d (%d with sound tests), api_calls_mean %.2f; want %d and 1.00", s.Passed, s.Total, sound, s.APICallsMean, sound)
			}
			for _, res := range r.results {
				if res.Solved == broken[res.TaskID] {
					t.Errorf("%s: solved %v, but its upstream tests are sound: %v", res.TaskID, res.Solved, !broken[res.TaskID])
				}
			}
			t.Logf("%s: %d/%d passed, %d with unsound upstream tests", tt.name, s.Passed, s.Total, r.outcome.Broken)
		})
	}
}

// sampleIDs returns a fixed sample of the dataset: every every-th
// problem in file order and every one in broken.
func sampleIDs(t *testing.T, name string, format dataset.Format, every int, broken map[string]bool) []string {
	set, err := bench.LoadDataset(name, format)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, p := range set.Problems {
		if i%every == 0 || broken[p.TaskID] {
			ids = append(ids, p.TaskID)
		}
	}
	return ids
}

func brokenIDs(t *testing.T, name string, format dataset.Format) map[string]bool {
	set, err := bench.LoadDataset(name, format)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, p := range set.Problems {
		if p.Broken != "" {
			out[p.TaskID] = true
		}
	}
	return out
}

// TestWrongThenRight answers a fixed sample of HumanEval (every tenth
// problem) wrongly first and rightly second: every problem is solved at
// the first fix, whose request quotes the failing assert.
func TestWrongThenRight(t *testing.T) {
	r := runBench(t, "humaneval", "humaneval", 0, wrongThenRight, func(cfg *bench.Config) {
		cfg.Tasks = sampleIDs(t, "humaneval", "humaneval", sampleEvery/2, nil)
	})
	s := r.outcome.Summary
	if s.Passed != s.Total || s.APICallsMean != 2 || s.AttemptHistogram[1] != s.Total {
		t.Errorf("passed %d/%d, api_calls_mean %.2f, histogram %v; want all at attempt 1 and 2.00", s.Passed, s.Total, s.APICallsMean, s.AttemptHistogram)
	}
	set, _ := bench.LoadDataset("humaneval", "humaneval")
	failedAt := regexp.MustCompile(`tests\.py, line (\d+)`)
	fixes, quoted := 0, 0
	for _, req := range r.server.Requests() {
		if len(req.Messages) <= 2 {
			continue
		}
		fixes++
		p := problemOf(req, set.Problems)
		if p == nil {
			t.Fatalf("fix request carries no known task:\n%s", allContent(req))
		}
		feedback := req.Messages[len(req.Messages)-1].Content
		if !strings.Contains(allContent(req), "class _Wrong") {
			t.Errorf("%s: fix request lacks the previous code", p.TaskID)
		}
		if strings.Contains(feedback, "candidate(") {
			t.Errorf("%s: feedback shows `candidate` instead of %s:\n%s", p.TaskID, p.EntryPoint, feedback)
		}
		// Where the failing test line calls the function, the feedback
		// quotes it under the function's name.
		m := failedAt.FindStringSubmatch(feedback)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		line := strings.TrimSpace(strings.Split(p.DebugTests.Source, "\n")[n-1])
		if strings.HasPrefix(line, "assert") && strings.Contains(line, "candidate(") {
			quoted++
			if want := strings.ReplaceAll(line, "candidate(", p.EntryPoint+"("); !strings.Contains(feedback, want) {
				t.Errorf("%s: feedback lacks the failing assert %q:\n%s", p.TaskID, want, feedback)
			}
		}
	}
	if fixes != s.Total {
		t.Errorf("%d fix requests, want %d", fixes, s.Total)
	}
	t.Logf("%d fix requests, %d quote a failing assert that calls the function", fixes, quoted)
}

func TestNeverRight(t *testing.T) {
	r := runBench(t, "mbpp", "mbpp", 12, neverRight, nil)
	s := r.outcome.Summary
	if s.Passed != 0 || s.APICallsMean != 6 || len(r.server.Requests()) != 6*s.Total {
		t.Errorf("passed %d, api_calls_mean %.2f, %d requests for %d problems; want 0, 6.00, 6 each", s.Passed, s.APICallsMean, len(r.server.Requests()), s.Total)
	}
	for _, res := range r.results {
		if res.ModelCalls != 6 || res.AttemptIndex != -1 || len(res.Feedback) != 6 {
			t.Errorf("%s: %d calls, attempt index %d, %d feedbacks", res.TaskID, res.ModelCalls, res.AttemptIndex, len(res.Feedback))
		}
	}
}

func TestTokenTotalsMatchServer(t *testing.T) {
	r := runBench(t, "humaneval", "humaneval", 20, wrongThenRight, nil)
	var prompt, completion int
	for _, u := range r.server.Usages() {
		prompt += u.Prompt
		completion += u.Completion
	}
	s := r.outcome.Summary
	if s.PromptTokens != prompt || s.CompletionTokens != completion || prompt == 0 {
		t.Errorf("summary tokens %d/%d, server reported %d/%d", s.PromptTokens, s.CompletionTokens, prompt, completion)
	}
	var summary map[string]any
	data, err := os.ReadFile(filepath.Join(r.out, bench.SummaryFile))
	if err != nil || json.Unmarshal(data, &summary) != nil {
		t.Fatalf("summary.json: %v", err)
	}
	for _, key := range []string{"dataset", "model", "total", "passed", "pass_rate", "api_calls_mean", "attempt_histogram", "relative_success_ratio", "normalized_influence", "prompt_tokens", "completion_tokens", "wall_seconds"} {
		if _, ok := summary[key]; !ok {
			t.Errorf("summary.json lacks %q", key)
		}
	}
	if _, err := os.Stat(filepath.Join(r.out, bench.ChartFile)); err != nil {
		t.Errorf("no chart: %v", err)
	}
}

// TestFeedbackTokens measures prompt tokens per fix call with refined and
// raw feedback on the wrong-then-right run. The harness already keeps only
// the frames of the model's code and the tests, so raw output is lean here;
// refined feedback must not cost more than 5% over it.
func TestFeedbackTokens(t *testing.T) {
	perFix := func(mode pipeline.FeedbackMode) (prompt, feedback float64) {
		r := runBench(t, "humaneval", "humaneval", 16, wrongThenRight, func(c *bench.Config) { c.Loop.Feedback = mode })
		var tokens, words, fixes int
		reqs, usages := r.server.Requests(), r.server.Usages()
		for i, req := range reqs {
			if len(req.Messages) > 2 {
				tokens += usages[i].Prompt
				words += len(strings.Fields(req.Messages[len(req.Messages)-1].Content))
				fixes++
			}
		}
		return float64(tokens) / float64(fixes), float64(words) / float64(fixes)
	}
	refined, refinedFeedback := perFix(pipeline.FeedbackRefined)
	raw, rawFeedback := perFix(pipeline.FeedbackRaw)
	t.Logf("prompt tokens per fix call: refined %.1f, raw %.1f (%.0f%% fewer); feedback message alone: %.1f vs %.1f words",
		refined, raw, 100*(1-refined/raw), refinedFeedback, rawFeedback)
	if refined > 1.05*raw {
		t.Errorf("refined feedback costs %.1f prompt tokens per fix call, raw %.1f", refined, raw)
	}
}

func TestResume(t *testing.T) {
	eng := sandboxtest.Engine(t)
	set, _ := bench.LoadDataset("humaneval", "humaneval")
	var mu sync.Mutex
	calls := 0
	srv := fakeModel(t, set.Problems, func(p dataset.Problem, fix bool) string {
		mu.Lock()
		calls++
		mu.Unlock()
		return p.Reference
	})
	client, _ := programmer.New(programmer.Config{BaseURL: srv.URL(), Model: "m", MaxRetries: -1})
	cfg := bench.Config{Dataset: "humaneval", Format: "humaneval", Limit: 5, Workers: 1, Out: t.TempDir(), Model: "m", Loop: pipeline.DefaultSettings(), Sandbox: sandboxtest.Spec("")}
	if _, err := bench.Run(context.Background(), cfg, client, eng); err != nil {
		t.Fatal(err)
	}
	// A torn last line, as a crash mid-write leaves it, is dropped and rerun.
	f, _ := os.OpenFile(filepath.Join(cfg.Out, bench.ResultsFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"task_id":"HumanEval/5","sol`)
	f.Close()
	cfg.Limit = 8
	oc, err := bench.Run(context.Background(), cfg, client, eng)
	if err != nil {
		t.Fatal(err)
	}
	if oc.Skipped != 5 || calls != 8 || oc.Summary.Total != 8 || oc.Summary.Passed != 8 {
		t.Errorf("skipped %d, model calls %d, total %d, passed %d; want 5, 8, 8, 8", oc.Skipped, calls, oc.Summary.Total, oc.Summary.Passed)
	}
	if n := len(readResults(t, cfg.Out)); n != 8 {
		t.Errorf("results.jsonl has %d lines, want 8", n)
	}
}

func TestUnreachableEndpoint(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Reply("x")))
	url := srv.URL()
	srv.Close()
	client, err := programmer.New(programmer.Config{BaseURL: url, Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Ping(context.Background()); err == nil || !pipeline.IsInfrastructure(err) {
		t.Errorf("Ping on a closed server = %v, want an unreachable error", err)
	}
}

// fakeModelB is the canonical fake model for benchmarks.
func fakeModelB(b *testing.B, problems []dataset.Problem) *fakeopenai.Server {
	return fakeModel(b, problems, canonical)
}

func allContent(req openai.ChatCompletionRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content + "\n")
	}
	return b.String()
}
