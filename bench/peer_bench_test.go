package bench_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// peerLoop is an equivalent, written for this benchmark, of the loop of
// openai/human-eval's execution.py: a thread pool, a forked process per
// check, its reliability guard and its 3 s timeout. It is not the
// official code; see its doc string.
const peerLoop = "testdata/peerloop/execution.py"

// BenchmarkHumanEvalPeer runs all of HumanEval with two workers, side by
// side: "peer" is the peer loop on the reference solutions, unsandboxed on
// this machine; "capsule" is the command `capsule bench --dataset humaneval
// --workers 2`, with its defaults, the binary CAPSULE_AGENT names (make
// build's bin/capsule) and a scripted model that answers each problem's
// reference solution. Both must solve every problem. With -count N the
// two alternate; PEER_LIMIT=N runs the first N problems only:
//
//	make build && CAPSULE_AGENT=$PWD/bin/capsule go test -run '^$' -bench HumanEvalPeer -benchtime 1x -count 4 ./bench/
func BenchmarkHumanEvalPeer(b *testing.B) {
	set, err := bench.LoadDataset("humaneval", "humaneval")
	if err != nil {
		b.Fatal(err)
	}
	const workers = "2"
	limit := len(set.Problems)
	if s := os.Getenv("PEER_LIMIT"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > len(set.Problems) {
			b.Fatalf("PEER_LIMIT=%q: want 1 to %d", s, len(set.Problems))
		}
	}
	set.Problems = set.Problems[:limit]

	b.Run("peer", func(b *testing.B) {
		problems := filepath.Join(b.TempDir(), "problems.jsonl")
		if err := writePeerProblems(problems, set.Problems); err != nil {
			b.Fatal(err)
		}
		python := "/usr/bin/python3"
		if _, err := os.Stat(python); err != nil {
			python = "python3"
		}
		for b.Loop() {
			out, err := exec.Command(python, peerLoop, problems, "--workers", workers).CombinedOutput()
			if err != nil {
				b.Fatalf("peer loop: %v\n%s", err, out)
			}
		}
	})
	b.Run("capsule", func(b *testing.B) {
		capsule := sandboxtest.AgentBinary(b)
		srv := fakeModelB(b, set.Problems)
		for b.Loop() {
			out := b.TempDir()
			cmd := exec.Command(capsule, "bench", "--dataset", "humaneval", "--workers", workers,
				"--out", out, "--model", "instant", "--base-url", srv.URL(), "--limit", strconv.Itoa(limit))
			cmd.Env = append(os.Environ(), "OPENAI_API_KEY=none")
			if text, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("capsule bench: %v\n%s", err, text)
			}
			if passed := summaryPassed(b, out); passed != len(set.Problems) {
				b.Fatalf("capsule bench solved %d of %d", passed, len(set.Problems))
			}
		}
	})
}

// writePeerProblems writes the problems for the peer loop: the reference
// solution as the completion, the evaluation tests as the test.
func writePeerProblems(path string, problems []dataset.Problem) error {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	for _, p := range problems {
		if err := enc.Encode(map[string]string{"task_id": p.TaskID, "prompt": "", "completion": p.Reference,
			"test": p.EvalTests.Source, "entry_point": p.EntryPoint}); err != nil {
			return err
		}
	}
	return os.WriteFile(path, []byte(sb.String()), 0o644)
}

// summaryPassed reads the number of solved problems from a bench run's
// summary.
func summaryPassed(b *testing.B, out string) int {
	data, err := os.ReadFile(filepath.Join(out, bench.SummaryFile))
	if err != nil {
		b.Fatal(err)
	}
	var s struct {
		Passed int `json:"passed"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		b.Fatal(err)
	}
	return s.Passed
}
