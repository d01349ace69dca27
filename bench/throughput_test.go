package bench_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/sandbox/image"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// bigCodeBenchStdlibTasks lists the BigCodeBench tasks BenchmarkBareLoop
// runs: those that import only the standard library and whose reference
// passes in the default image, both in the sandbox and in the bare loop.
const bigCodeBenchStdlibTasks = "testdata/bigcodebench-stdlib-tasks.txt"

var writeStdlibTasks = flag.Bool("write-stdlib-tasks", false, "BenchmarkBareLoop/bigcodebench: run every standard-library task once on both sides and rewrite "+bigCodeBenchStdlibTasks+" with those solved on both")

// bareCase is a dataset BenchmarkBareLoop runs.
type bareCase struct {
	name string
	// refFirst: `capsule bench` runs each problem's reference before its
	// loop (the dataset has no shipped times, or checks its environment),
	// so the bare loop does too.
	refFirst bool
}

// BenchmarkBareLoop compares, side by side, the command `capsule bench
// --dataset X --workers 2` with its defaults (quick calibration against the
// shipped reference times where the dataset has them, --cpu-factor 4,
// --test-cpu 10s; the binary CAPSULE_AGENT names, make build's bin/capsule)
// and a scripted model that answers each problem's reference solution,
// with a bare local loop: the same programs through the same harness with
// the same parallelism, python3 in a chroot of the default image's files as
// the sandbox's user, no container. Both sides must solve every problem.
// Each iteration is one pair, and the sides take turns going first (across
// -count too); each pair is logged with the load average before it.
//
//	make build && CAPSULE_AGENT=$PWD/bin/capsule go test -run '^$' -bench BareLoop/humaneval -benchtime 1x -count 4 -timeout 2h ./bench/
//
// The cases: humaneval (164 problems), mbpp (427) and bigcodebench (the
// standard-library tasks of testdata/bigcodebench-stdlib-tasks.txt, in the
// default image: --image is the one flag given beyond the defaults; the
// bare loop also runs each reference first, as the command does for a
// dataset without shipped times). BENCH_LIMIT=N runs the first N problems.
func BenchmarkBareLoop(b *testing.B) {
	for _, c := range []bareCase{{name: "humaneval"}, {name: "mbpp"}, {name: "bigcodebench", refFirst: true}} {
		b.Run(c.name, func(b *testing.B) { benchBareLoop(b, c) })
	}
}

func benchBareLoop(b *testing.B, c bareCase) {
	set, err := bench.LoadDataset(c.name, dataset.Auto)
	if err != nil {
		b.Fatal(err)
	}
	args := []string{"--dataset", c.name}
	problems := set.Problems
	if c.name == "bigcodebench" {
		problems = bigCodeBenchStdlib(b, set.Problems)
		args = append(args, "--image", image.Default())
	}
	problems = benchLimit(b, problems)
	if c.name == "bigcodebench" || len(problems) < len(set.Problems) {
		ids := make([]string, len(problems))
		for i, p := range problems {
			ids[i] = p.TaskID
		}
		args = append(args, "--tasks", strings.Join(ids, ","))
	}
	rootfs := exportImage(b, sandboxtest.Engine(b).Client(), image.Default())
	capsule := newCapsuleCommand(b, problems, args)
	if *writeStdlibTasks && c.name == "bigcodebench" {
		writeBigCodeBenchTasks(b, capsule, rootfs, problems)
		return
	}
	bare := func() {
		if passed := runBareChroot(b, rootfs, problems, 2, c.refFirst); len(passed) != len(problems) {
			b.Fatalf("the bare loop solved %d of %d", len(passed), len(problems))
		}
	}
	alternate(b, side{"capsule", func() { capsule.run(b, true) }}, side{"bare", bare})
}

// benchLimit keeps the first BENCH_LIMIT problems, when it is set.
func benchLimit(b *testing.B, problems []dataset.Problem) []dataset.Problem {
	s := os.Getenv("BENCH_LIMIT")
	if s == "" {
		return problems
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		b.Fatalf("BENCH_LIMIT=%q: want a positive number", s)
	}
	return problems[:min(n, len(problems))]
}

// bigCodeBenchStdlib returns the problems bigCodeBenchStdlibTasks lists, or
// with -write-stdlib-tasks every task that imports only the standard
// library.
func bigCodeBenchStdlib(b *testing.B, problems []dataset.Problem) []dataset.Problem {
	if *writeStdlibTasks {
		return stdlibOnly(problems, stdlibModules(b, sandboxtest.Spec("")))
	}
	f, err := os.Open(bigCodeBenchStdlibTasks)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	want := map[string]bool{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			want[line] = true
		}
	}
	var out []dataset.Problem
	for _, p := range problems {
		if want[p.TaskID] {
			out = append(out, p)
		}
	}
	if len(out) != len(want) || len(out) == 0 {
		b.Fatalf("%s names %d tasks, %d of them in the dataset", bigCodeBenchStdlibTasks, len(want), len(out))
	}
	return out
}

// writeBigCodeBenchTasks runs every candidate once on both sides and
// writes those solved on both to bigCodeBenchStdlibTasks.
func writeBigCodeBenchTasks(b *testing.B, capsule capsuleCommand, rootfs string, problems []dataset.Problem) {
	out := capsule.run(b, false)
	solved := map[string]bool{}
	for _, r := range readResults(b, out) {
		solved[r.TaskID] = r.Solved
	}
	bare := runBareChroot(b, rootfs, problems, 2, true)
	var sb strings.Builder
	fmt.Fprintf(&sb, "# BigCodeBench tasks that import only the standard library and whose reference\n"+
		"# passes in the default image (%s), in `capsule bench` and in the bare loop.\n"+
		"# Written by: go test -run '^$' -bench BareLoop/bigcodebench -benchtime 1x -timeout 2h ./bench/ -args -write-stdlib-tasks\n"+
		"# %d standard-library tasks, %d solved in the sandbox, %d in the bare loop.\n",
		image.Default(), len(problems), countTrue(solved), len(bare))
	n := 0
	for _, p := range problems {
		if solved[p.TaskID] && bare[p.TaskID] {
			sb.WriteString(p.TaskID + "\n")
			n++
		}
	}
	if err := os.WriteFile(bigCodeBenchStdlibTasks, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote %d tasks to %s", n, bigCodeBenchStdlibTasks)
}

func countTrue(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

// capsuleCommand runs `capsule bench` as a user would, against a scripted
// model that answers each problem's reference solution.
type capsuleCommand struct {
	binary, url string
	args        []string
	problems    int
	env         []string // added to the test's environment
}

func newCapsuleCommand(b *testing.B, problems []dataset.Problem, args []string) capsuleCommand {
	return capsuleCommand{binary: sandboxtest.AgentBinary(b), url: fakeModelB(b, problems).URL(), args: args, problems: len(problems)}
}

// run runs the command with --workers 2 and otherwise its defaults, and
// returns its output directory; with all set, every problem must be
// solved.
func (c capsuleCommand) run(b *testing.B, all bool) string {
	out := b.TempDir()
	argv := append([]string{"bench", "--workers", "2", "--out", out, "--model", "reference", "--base-url", c.url}, c.args...)
	cmd := exec.Command(c.binary, argv...)
	cmd.Env = append(append(os.Environ(), "OPENAI_API_KEY=none"), c.env...)
	if text, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("capsule bench: %v\n%s", err, text)
	}
	if passed := summaryPassed(b, out); all && passed != c.problems {
		b.Fatalf("capsule bench solved %d of %d", passed, c.problems)
	}
	return out
}

// side is one of the two things a benchmark compares: run is one pass.
type side struct {
	name string
	run  func()
}

// pairs counts, per benchmark, the pairs run so far in this process, so
// that the sides take turns going first across -count as well.
var pairs = map[string]int{}

// alternate runs a and z once per iteration, the two taking turns going
// first, and reports each one's seconds per pass and their ratio. Each pair
// is logged with the load average at its start.
func alternate(b *testing.B, a, z side) {
	var wall [2]time.Duration
	var lines []string
	for b.Loop() {
		n := pairs[b.Name()]
		pairs[b.Name()]++
		order := []int{0, 1}
		if n%2 == 1 {
			order = []int{1, 0}
		}
		load := loadAverage()
		var took [2]time.Duration
		for _, i := range order {
			s := []side{a, z}[i]
			start := time.Now()
			s.run()
			took[i] = time.Since(start)
			wall[i] += took[i]
		}
		lines = append(lines, fmt.Sprintf("pair %d: load %s, %s %.1f s, %s %.1f s, ratio %.2f",
			n+1, load, a.name, took[0].Seconds(), z.name, took[1].Seconds(), took[0].Seconds()/took[1].Seconds()))
	}
	// One Log call: go test keeps only a benchmark log's first lines.
	b.Log(strings.Join(lines, "\n"))
	b.ReportMetric(wall[0].Seconds()/float64(b.N), a.name+"-s")
	b.ReportMetric(wall[1].Seconds()/float64(b.N), z.name+"-s")
	b.ReportMetric(wall[0].Seconds()/wall[1].Seconds(), a.name+"/"+z.name)
}

// loadAverage returns the one-minute load average.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

// runBareChroot runs each problem's programs as `capsule bench` does: with
// refFirst the reference on the evaluation tests with the calibration
// limit first, and, when it passes, with a limit sized from it; then the
// debug tests, then the evaluation tests when they differ. Each run has a
// fresh workspace; HOME persists per worker, as on a developer's machine.
// It returns the problems solved.
func runBareChroot(b *testing.B, rootfs string, problems []dataset.Problem, workers int, refFirst bool) map[string]bool {
	queue := make(chan dataset.Problem)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		passed = map[string]bool{}
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			home := fmt.Sprintf("/bare/home%d", w)
			if err := os.MkdirAll(filepath.Join(rootfs, home), 0o777); err != nil {
				b.Error(err)
				return
			}
			os.Chmod(filepath.Join(rootfs, home), 0o777)
			for p := range queue {
				limit := pipeline.DefaultTestCPU
				if refFirst {
					start := time.Now()
					calib := runChroot(b, rootfs, home, harness.Program{Solution: p.Reference, Tests: p.EvalTests.Source, EntryPoint: p.EntryPoint, CPULimit: bench.CalibrationCPU})
					if !calib.Passed {
						continue
					}
					wait := harness.CPUForWall(time.Duration(bench.DefaultCPUFactor * float64(time.Since(start))))
					limit = harness.Program{CPULimit: max(pipeline.DefaultTestCPU, time.Duration(bench.DefaultCPUFactor*float64(calib.CPU)), wait)}.CPU()
				}
				ok := runChroot(b, rootfs, home, harness.Program{Solution: p.Reference, Tests: p.DebugTests.Source, EntryPoint: p.EntryPoint, CPULimit: limit}).Passed
				if p.EvalTests != p.DebugTests {
					ok = runChroot(b, rootfs, home, harness.Program{Solution: p.Reference, Tests: p.EvalTests.Source, EntryPoint: p.EntryPoint, CPULimit: limit}).Passed
				}
				if ok {
					mu.Lock()
					passed[p.TaskID] = true
					mu.Unlock()
				}
			}
		}()
	}
	for _, p := range problems {
		queue <- p
	}
	close(queue)
	wg.Wait()
	return passed
}

// runChroot runs prog through the harness with the image's python3 in the
// chroot, as the sandbox's user, in a fresh workspace. The process is
// started straight into the chroot (no chroot(1), env(1) or shell between).
func runChroot(b *testing.B, rootfs, home string, prog harness.Program) harness.Result {
	ws, err := os.MkdirTemp(filepath.Join(rootfs, "bare"), "ws-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(ws)
	os.Chmod(ws, 0o777)
	for name, data := range prog.Files() {
		if err := os.WriteFile(filepath.Join(ws, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	inside := "/bare/" + filepath.Base(ws)
	argv := prog.Command()
	cmd := exec.Command("/usr/bin/"+argv[0], argv[1:]...)
	cmd.Dir = inside
	cmd.Env = append([]string{"HOME=" + home, "TMPDIR=" + inside, "LANG=C.UTF-8", "MPLBACKEND=Agg", "PYTHONDONTWRITEBYTECODE=1",
		"PATH=/usr/local/bin:/usr/bin:/bin"}, prog.Env()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: rootfs, Credential: &syscall.Credential{Uid: 65534, Gid: 65534, NoSetGroups: false}}
	var stdout, stderr limitedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return harness.ParseOutput(code, stdout.String(), stderr.String())
}

// limitedBuffer keeps the first MiB written to it.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := 1<<20 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string { return string(l.b) }
