package bench_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// BenchmarkHarnessWarm compares, side by side, the two ways of running the
// harness in a sandbox on the first 40 HumanEval reference solutions:
// "warm" forks each run from the sandbox's warm parent (pipeline.RunTests),
// "exec" starts `python3 -B -u capsule_harness.py ...` for each (the
// command, run as any other). Each side has a session of its own; each
// iteration is one pair, the two taking turns going first, logged with the
// load average, the container's CPU per run (from its cgroup,
// the agent's restores included) and the wall clock per run:
//
//	make build && CAPSULE_AGENT=$PWD/bin/capsule go test -run '^$' -bench HarnessWarm -benchtime 1x -count 4 ./bench/
func BenchmarkHarnessWarm(b *testing.B) {
	set, err := bench.LoadDataset("humaneval", "humaneval")
	if err != nil {
		b.Fatal(err)
	}
	problems := set.Problems[:harnessRuns]
	eng := sandboxtest.Engine(b)
	sessions := [2]*sandbox.Session{}
	for i := range sessions {
		if sessions[i], err = eng.NewSession(context.Background(), sandboxtest.Spec("")); err != nil {
			b.Fatal(err)
		}
		defer sessions[i].Close()
	}
	names := [2]string{"warm", "exec"}
	batch := func(i int) (cpu, wall time.Duration) {
		ctx := context.Background()
		box := sessions[i]
		before := containerCPU(b, box)
		start := time.Now()
		for _, p := range problems {
			if i == 0 {
				o, err := pipeline.RunTests(ctx, box, p.Reference, p.EvalTests.Source, p.EntryPoint, pipeline.DefaultTestCPU)
				if err != nil || !o.Passed() || !o.Sandbox.Warm {
					b.Fatalf("%s: %v %+v", p.TaskID, err, o.Harness)
				}
				continue
			}
			prog := harness.Program{Solution: p.Reference, Tests: p.EvalTests.Source, EntryPoint: p.EntryPoint, CPULimit: pipeline.DefaultTestCPU}
			res, err := box.Run(ctx, sandbox.Run{Cmd: prog.Command(), Env: prog.Env(), Files: prog.Files(), Timeout: prog.HardWallLimit() + 5*time.Second})
			if err != nil || !harness.ParseOutput(res.ExitCode, string(res.Stdout), string(res.Stderr)).Passed {
				b.Fatalf("%s: %v %s", p.TaskID, err, res.Stderr)
			}
		}
		wall = time.Since(start)
		return containerCPU(b, box) - before, wall
	}
	// One batch each first: the warm parent starts, the image's files are
	// read once.
	batch(0)
	batch(1)
	var lines []string
	var sum [2]time.Duration
	n := float64(len(problems))
	for b.Loop() {
		k := pairs[b.Name()]
		pairs[b.Name()]++
		order := []int{0, 1}
		if k%2 == 1 {
			order = []int{1, 0}
		}
		load := loadAverage()
		var cpu, wall [2]time.Duration
		for _, i := range order {
			cpu[i], wall[i] = batch(i)
			sum[i] += cpu[i]
		}
		per := func(d time.Duration) float64 { return float64(d.Milliseconds()) / n }
		lines = append(lines, fmt.Sprintf("pair %d: load %s, CPU per run: %s %.0f ms, %s %.0f ms, ratio %.2f; wall per run: %.0f ms, %.0f ms, ratio %.2f",
			k+1, load, names[0], per(cpu[0]), names[1], per(cpu[1]), cpu[0].Seconds()/cpu[1].Seconds(),
			per(wall[0]), per(wall[1]), wall[0].Seconds()/wall[1].Seconds()))
	}
	b.Log(strings.Join(lines, "\n"))
	b.ReportMetric(sum[0].Seconds()/sum[1].Seconds(), "warm/exec-cpu")
}

// containerCPU reads the CPU time the session's container has used so
// far, from its cgroup, v2 or v1 (a command run in it: not warm, so the
// warm parent, if any, is stopped and started again by the next warm run).
func containerCPU(b *testing.B, box *sandbox.Session) time.Duration {
	res, err := box.Run(context.Background(), sandbox.Run{Cmd: []string{"sh", "-c",
		"grep usage_usec /sys/fs/cgroup/cpu.stat 2>/dev/null || echo ns $(cat /sys/fs/cgroup/cpuacct/cpuacct.usage)"}})
	if err != nil || res.ExitCode != 0 {
		b.Fatalf("container CPU: %v %s", err, res.Stderr)
	}
	unit, v, _ := strings.Cut(strings.TrimSpace(string(res.Stdout)), " ")
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		b.Fatalf("container CPU: %q", res.Stdout)
	}
	if unit == "usage_usec" {
		return time.Duration(n) * time.Microsecond
	}
	return time.Duration(n)
}

// BenchmarkHumanEvalWarm compares, side by side, two builds of the command
// `capsule bench --dataset humaneval --workers 2` with its defaults and a
// scripted model that answers each problem's reference solution: "warm",
// the binary CAPSULE_AGENT names (make build's bin/capsule), and
// "baseline", the one CAPSULE_BASELINE names (a build of the version to
// compare with, such as one whose harness runs exec an interpreter each).
// Both must solve every problem. Each iteration is one pair, the two
// taking turns going first, logged with the load average; PEER_LIMIT=N
// runs the first N problems only:
//
//	CAPSULE_AGENT=$PWD/bin/capsule CAPSULE_BASELINE=/path/to/old/capsule go test -run '^$' -bench HumanEvalWarm -benchtime 1x -count 4 -timeout 2h ./bench/
func BenchmarkHumanEvalWarm(b *testing.B) {
	baseline := os.Getenv("CAPSULE_BASELINE")
	if baseline == "" {
		b.Fatal("CAPSULE_BASELINE names no binary to compare with")
	}
	set, limit := humanEvalPeerLimit(b)
	warm := newCapsuleCommand(b, set.Problems, []string{"--dataset", "humaneval", "--limit", strconv.Itoa(limit)})
	old := warm
	old.binary = baseline
	old.env = []string{sandbox.AgentEnv + "=" + baseline} // its own agent, not CAPSULE_AGENT's
	alternate(b, side{"warm", func() { warm.run(b, true) }}, side{"baseline", func() { old.run(b, true) }})
}
