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
	"testing"
	"time"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/pipeline"
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
	var barePassed int // references the bare loop passed, which go test's trimmed log may drop
	capsuleSide := func() {
		cfg := bench.Config{Dataset: "bigcodebench", Tasks: ids, Workers: workers, Out: b.TempDir(), Model: "reference",
			Loop: pipeline.DefaultSettings(), CPUFactor: bench.DefaultCPUFactor, Sandbox: spec}
		oc, err := bench.Run(context.Background(), cfg, client, eng)
		if err != nil {
			b.Fatal(err)
		}
		compareStatus(b, oc, ids)
	}
	bareSide := func() {
		barePassed = len(runBareChroot(b, rootfs, problems, workers, true))
		b.Logf("bare loop: %d of %d references pass", barePassed, len(problems))
	}
	alternate(b, side{"capsule", capsuleSide}, side{"bare", bareSide})
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
