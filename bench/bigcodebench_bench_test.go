package bench_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/sandbox/image"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
)

// BenchmarkBigCodeBenchReferences runs BigCodeBench's reference solutions
// as `capsule bench` does (the reference first, then the loop with a model
// that answers it, then the evaluation tests), with two workers in the
// BigCodeBench image, and compares which pass with the shipped
// reference-status file task by task. Side by side it runs the same
// programs through the same harness with two workers in a bare local loop:
// python3 in a chroot of the same image's files, no container.
//
//	make bigcodebench
//
// CAPSULE_BIGCODEBENCH_IMAGE names another image (the default image runs
// the standard-library tasks); CAPSULE_BIGCODEBENCH_EVERY=N takes every
// N-th task only.
func BenchmarkBigCodeBenchReferences(b *testing.B) {
	ref := cmp.Or(os.Getenv("CAPSULE_BIGCODEBENCH_IMAGE"), image.BigCodeBench.Ref())
	every, _ := strconv.Atoi(os.Getenv("CAPSULE_BIGCODEBENCH_EVERY"))
	set, err := bench.LoadDataset("bigcodebench", dataset.Auto)
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	var problems []dataset.Problem
	for i, p := range set.Problems {
		if every <= 1 || i%every == 0 {
			ids = append(ids, p.TaskID)
			problems = append(problems, p)
		}
	}
	eng := sandboxtest.Engine(b)
	if ok, err := eng.ImagePresent(context.Background(), ref); err != nil || !ok {
		b.Fatalf("image %s: present %v, %v (build it: capsule sandbox image --name bigcodebench)", ref, ok, err)
	}
	spec := bench.SandboxFor("bigcodebench")
	spec.Image = ref
	const workers = 2

	// Exporting reads every file of the image, so both sides start with
	// them in the page cache; the sides take turns going first.
	rootfs := exportImage(b, eng.Client(), ref)
	srv := fakeModel(b, set.Problems, canonical)
	client, err := programmer.New(programmer.Config{BaseURL: srv.URL(), Model: "reference", MaxRetries: -1})
	if err != nil {
		b.Fatal(err)
	}
	var capsuleWall, bareWall time.Duration
	var barePassed int // references the bare loop passed, which go test's trimmed log may drop
	capsuleSide := func() {
		cfg := bench.Config{Dataset: "bigcodebench", Tasks: ids, Workers: workers, Out: b.TempDir(), Model: "reference",
			Loop: pipeline.DefaultSettings(), CPUFactor: bench.DefaultCPUFactor, Sandbox: spec}
		start := time.Now()
		oc, err := bench.Run(context.Background(), cfg, client, eng)
		capsuleWall += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		compareStatus(b, oc, ids)
	}
	bareSide := func() {
		start := time.Now()
		passed := runBareChroot(b, rootfs, problems, workers)
		bareWall += time.Since(start)
		barePassed = passed
		b.Logf("bare loop: %d of %d references pass", passed, len(problems))
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			capsuleSide()
			bareSide()
		} else {
			bareSide()
			capsuleSide()
		}
	}
	b.ReportMetric(capsuleWall.Seconds()/float64(b.N), "capsule-s")
	b.ReportMetric(bareWall.Seconds()/float64(b.N), "bare-s")
	b.ReportMetric(capsuleWall.Seconds()/bareWall.Seconds(), "capsule/bare")
	b.ReportMetric(float64(barePassed), "bare-passed")
}

// compareStatus logs, task by task, where the run disagrees with the
// shipped reference-status file, and the counts.
func compareStatus(b *testing.B, oc bench.Outcome, ids []string) {
	var status map[string]string
	data, err := os.ReadFile(bigCodeBenchStatus)
	if err != nil || json.Unmarshal(data, &status) != nil {
		b.Fatalf("read %s: %v", bigCodeBenchStatus, err)
	}
	reasons := map[string]string{}
	for _, f := range oc.Summary.Environment {
		reasons[f.TaskID] = f.Reason
	}
	shipped, same := 0, 0
	var differ []string
	for _, id := range ids {
		if status[id] == "pass" {
			shipped++
		}
		ours := reasons[id] == ""
		if ours == (status[id] == "pass") {
			same++
			continue
		}
		differ = append(differ, fmt.Sprintf("%s: on Debian %s; here %s", id, status[id], cmp.Or(reasons[id], "pass")))
	}
	// One Log call: go test keeps only the first lines of a benchmark's
	// log, and the counts must be among them.
	s := oc.Summary
	b.Logf("%d tasks: references pass in %d here (%d solved), in %d on Debian (shipped file); %d agree; %d environment failures; wall %s\n%s",
		len(ids), len(ids)-len(s.Environment), s.Passed, shipped, same, len(s.Environment), time.Duration(s.WallSeconds*float64(time.Second)).Round(time.Second),
		strings.Join(differ, "\n"))
}

// exportImage extracts the image's files into a temporary folder (as
// root, which chroot needs anyway).
func exportImage(b *testing.B, cli *client.Client, ref string) string {
	b.Helper()
	ctx := context.Background()
	c, err := cli.ContainerCreate(ctx, &container.Config{Image: ref, Cmd: []string{"true"}}, nil, nil, nil, "")
	if err != nil {
		b.Fatal(err)
	}
	defer cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true})
	rc, err := cli.ContainerExport(ctx, c.ID)
	if err != nil {
		b.Fatal(err)
	}
	defer rc.Close()
	dir := b.TempDir()
	tar := exec.Command("tar", "-x", "--numeric-owner", "-C", dir)
	tar.Stdin = rc
	if out, err := tar.CombinedOutput(); err != nil {
		b.Fatalf("extract %s: %v\n%s", ref, err, out)
	}
	// The devices Python and the harness open, made as nodes (a bind mount
	// of the host's /dev would be emptied by the folder's removal), and a
	// /proc unmounted before the folder is removed.
	for _, dev := range []struct {
		name         string
		major, minor int
	}{{"null", 1, 3}, {"zero", 1, 5}, {"random", 1, 8}, {"urandom", 1, 9}} {
		path := filepath.Join(dir, "dev", dev.name)
		os.Remove(path)
		if out, err := exec.Command("mknod", "-m", "666", path, "c", strconv.Itoa(dev.major), strconv.Itoa(dev.minor)).CombinedOutput(); err != nil {
			b.Fatalf("mknod %s: %v\n%s", path, err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "dev/shm"), 0o1777); err != nil {
		b.Fatal(err)
	}
	os.Chmod(filepath.Join(dir, "dev/shm"), 0o1777)
	proc := filepath.Join(dir, "proc")
	if out, err := exec.Command("mount", "-t", "proc", "proc", proc).CombinedOutput(); err != nil {
		b.Fatalf("mount %s: %v\n%s", proc, err, out)
	}
	b.Cleanup(func() {
		if out, err := exec.Command("umount", proc).CombinedOutput(); err != nil {
			b.Errorf("umount %s: %v\n%s", proc, err, out)
		}
	})
	return dir
}

// runBareChroot runs each problem's reference as the benchmark does: on the
// evaluation tests with the calibration limit, then, when it passes, on the
// debug tests and on the evaluation tests with the limit sized from it.
// Each run has a fresh workspace; HOME persists per worker, as on a
// developer's machine. It returns how many references passed.
func runBareChroot(b *testing.B, rootfs string, problems []dataset.Problem, workers int) int {
	queue := make(chan dataset.Problem)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		passed int
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
				start := time.Now()
				calib := runChroot(b, rootfs, home, harness.Program{Solution: p.Reference, Tests: p.EvalTests.Source, EntryPoint: p.EntryPoint, CPULimit: bench.CalibrationCPU})
				if !calib.Passed {
					continue
				}
				wait := harness.CPUForWall(time.Duration(bench.DefaultCPUFactor * float64(time.Since(start))))
				limit := harness.Program{CPULimit: max(pipeline.DefaultTestCPU, time.Duration(bench.DefaultCPUFactor*float64(calib.CPU)), wait)}.CPU()
				runChroot(b, rootfs, home, harness.Program{Solution: p.Reference, Tests: p.DebugTests.Source, EntryPoint: p.EntryPoint, CPULimit: limit})
				if runChroot(b, rootfs, home, harness.Program{Solution: p.Reference, Tests: p.EvalTests.Source, EntryPoint: p.EntryPoint, CPULimit: limit}).Passed {
					mu.Lock()
					passed++
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

// runChroot runs prog through the harness with python3 in the chroot, as
// the sandbox's user, in a fresh workspace.
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
	argv := append([]string{"chroot", "--userspec=65534:65534", rootfs, "/usr/bin/env", "-i",
		"HOME=" + home, "TMPDIR=" + inside, "LANG=C.UTF-8", "MPLBACKEND=Agg", "PYTHONDONTWRITEBYTECODE=1",
		"PATH=/usr/local/bin:/usr/bin:/bin", "PYTHONHASHSEED=0", "/bin/sh", "-c", `cd "$0" && exec "$@"`, inside}, prog.Command()...)
	cmd := exec.Command(argv[0], argv[1:]...)
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
