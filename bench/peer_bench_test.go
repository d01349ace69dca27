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
)

// peerLoop is an equivalent, written for this benchmark, of the loop of
// openai/human-eval's execution.py: a thread pool, a forked process per
// check, its reliability guard and its 3 s timeout, in a process that has
// imported numpy, tqdm and fire as human-eval's has (Debian's
// python3-numpy, python3-tqdm and python3-fire). It is not the official
// code; see its doc string.
const peerLoop = "testdata/peerloop/execution.py"

// BenchmarkHumanEvalPeer runs all of HumanEval with two workers, side by
// side: "peer" is the peer loop on the reference solutions, unsandboxed on
// this machine; "capsule" is the command `capsule bench --dataset humaneval
// --workers 2`, with its defaults, the binary CAPSULE_AGENT names (make
// build's bin/capsule) and a scripted model that answers each problem's
// reference solution. Both must solve every problem. Each iteration is one
// pair, the two taking turns going first (across -count too), logged with
// the load average; PEER_LIMIT=N runs the first N problems only:
//
//	make build && CAPSULE_AGENT=$PWD/bin/capsule go test -run '^$' -bench HumanEvalPeer -benchtime 1x -count 4 -timeout 2h ./bench/
func BenchmarkHumanEvalPeer(b *testing.B) {
	set, limit := humanEvalPeerLimit(b)

	problems := filepath.Join(b.TempDir(), "problems.jsonl")
	if err := writePeerProblems(problems, set.Problems); err != nil {
		b.Fatal(err)
	}
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		python = "python3"
	}
	peer := func() {
		out, err := exec.Command(python, peerLoop, problems, "--workers", "2").CombinedOutput()
		if err != nil {
			b.Fatalf("peer loop: %v\n%s", err, out)
		}
	}
	capsule := newCapsuleCommand(b, set.Problems, []string{"--dataset", "humaneval", "--limit", strconv.Itoa(limit)})
	alternate(b, side{"capsule", func() { capsule.run(b, true) }}, side{"peer", peer})
}

// humanEvalPeerLimit loads HumanEval, its first PEER_LIMIT problems when
// that is set, and returns it with the number of its problems.
func humanEvalPeerLimit(b *testing.B) (dataset.Set, int) {
	set, err := bench.LoadDataset("humaneval", "humaneval")
	if err != nil {
		b.Fatal(err)
	}
	limit := len(set.Problems)
	if s := os.Getenv("PEER_LIMIT"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > len(set.Problems) {
			b.Fatalf("PEER_LIMIT=%q: want 1 to %d", s, len(set.Problems))
		}
	}
	set.Problems = set.Problems[:limit]
	return set, limit
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
