package testreport_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox/agent"
	"github.com/capsulehq/capsule/sandbox/image"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

func TestHelperFilesAndEnv(t *testing.T) {
	if testreport.HelperDir != agent.PluginDir {
		t.Errorf("HelperDir = %q, agent.PluginDir = %q", testreport.HelperDir, agent.PluginDir)
	}
	env := testreport.Env("/opt/h", "/run/c.sock")
	if want := []string{"PYTHONUSERBASE=/opt/h/userbase", "CAPSULE_TEST_CHANNEL=/run/c.sock"}; !slices.Equal(env, want) {
		t.Errorf("Env = %q, want %q", env, want)
	}
	files := testreport.HelperFiles()
	for _, name := range []string{"capsule_boot.py", "capsule_testreport.py",
		"userbase/lib/python3.8/site-packages/capsule_tripwire.pth",
		"userbase/lib/python3.11/site-packages/capsule_testreport-1.0.dist-info/entry_points.txt",
		"userbase/lib/python3.15/site-packages/capsule_testreport-1.0.dist-info/METADATA"} {
		if len(files[name]) == 0 {
			t.Errorf("HelperFiles lacks %s", name)
		}
	}
	for name, content := range files {
		if strings.HasSuffix(name, "/RECORD") {
			t.Errorf("%s: a RECORD would make pytest rewrite the plugin, looked up on sys.path", name)
		}
		if strings.HasSuffix(name, ".pth") && (!bytes.HasPrefix(content, []byte("import ")) || bytes.Count(content, []byte("\n")) != 1 ||
			!bytes.Contains(content, []byte(`"`+agent.PluginDir+`/capsule_boot.py"`))) {
			t.Errorf("%s is not one import line that runs the boot by absolute path: %s", name, content)
		}
	}
}

// Where the sandbox serves the report channel (agent.ChannelDir and
// agent.ChannelSocket of the channel's agent).
const (
	channelDir    = "/capsule/channel"
	channelSocket = channelDir + "/report.sock"
)

// channelLine is one line received on the test's report channel, or the
// end of a connection.
type channelLine struct {
	conn   int
	pid    int32
	rec    map[string]any
	raw    string
	closed bool
}

// channel is a report channel served by the test, as the agent serves it:
// connections numbered in accept order, one JSON record per line.
type channel struct {
	ln    *net.UnixListener
	mu    sync.Mutex
	lines []channelLine
	wg    sync.WaitGroup
}

func listen(t testing.TB, dir string) *channel {
	t.Helper()
	sock := filepath.Join(dir, "report.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	c := &channel{ln: ln}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for n := 1; ; n++ {
			conn, err := ln.AcceptUnix()
			if err != nil {
				return
			}
			c.wg.Add(1)
			go c.serve(n, conn)
		}
	}()
	return c
}

func (c *channel) serve(n int, conn *net.UnixConn) {
	defer c.wg.Done()
	defer conn.Close()
	var pid int32
	if raw, err := conn.SyscallConn(); err == nil {
		raw.Control(func(fd uintptr) {
			if cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil {
				pid = cred.Pid
			}
		})
	}
	scan := bufio.NewScanner(conn)
	scan.Buffer(nil, 1<<20)
	for scan.Scan() {
		c.add(channelLine{conn: n, pid: pid, raw: scan.Text()})
	}
	c.add(channelLine{conn: n, pid: pid, closed: true})
}

func (c *channel) add(l channelLine) {
	c.mu.Lock()
	c.lines = append(c.lines, l)
	c.mu.Unlock()
}

// close stops accepting, waits until every connection is read to its end
// (the container is gone: its peers are closed) and decodes the lines,
// which reading does not, to keep up with the writers as an agent would.
func (c *channel) close() []channelLine {
	c.ln.Close()
	c.wg.Wait()
	for i := range c.lines {
		if l := &c.lines[i]; !l.closed && json.Unmarshal([]byte(l.raw), &l.rec) != nil {
			l.rec = map[string]any{"kind": "malformed"}
		}
	}
	return c.lines
}

// pyBox runs commands in the sandbox image with the helper files laid out
// where the sandbox puts them, the workspace mounted where the sandbox has
// it, and the report channel served by the test.
type pyBox struct {
	t       testing.TB
	helpers string
}

func newPyBox(t testing.TB) pyBox {
	t.Helper()
	if out, err := exec.Command("docker", "image", "inspect", image.Default()).CombinedOutput(); err != nil {
		sandboxtest.Unavailable(t, fmt.Sprintf("%v: %s", err, out))
	}
	dir := mkdir(t)
	for name, content := range testreport.HelperFiles() {
		writeFile(t, filepath.Join(dir, name), content)
	}
	// As the sandbox does once the helpers are laid out: their bytecode,
	// compiled as root.
	args := append([]string{"run", "--rm", "--network", "none", "-v", dir + ":" + agent.PluginDir, image.Default()},
		testreport.CompileCommand(agent.PluginDir)...)
	if out, err := exec.Command("docker", args...).CombinedOutput(); err != nil {
		t.Fatalf("compile the helpers: %v: %s", err, out)
	}
	return pyBox{t: t, helpers: dir}
}

// mkdir returns a new directory every user may write in.
func mkdir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t testing.TB, name string, content []byte) {
	t.Helper()
	for d := filepath.Dir(name); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o777)
	}
	if err := os.WriteFile(name, content, 0o666); err != nil {
		t.Fatal(err)
	}
}

// boxRun is a command's run: its exit code, output and what it sent on
// the channel.
type boxRun struct {
	exit   int
	output string
	lines  []channelLine
}

// run runs cmd with sh in the workspace that holds files, as the sandbox
// user, without network; extra holds more mounts (host:container:ro).
func (b pyBox) run(files map[string]string, cmd string, extra ...string) boxRun {
	b.t.Helper()
	ws, chdir := mkdir(b.t), mkdir(b.t)
	for name, content := range files {
		writeFile(b.t, filepath.Join(ws, name), []byte(content))
	}
	ch := listen(b.t, chdir)
	args := []string{"run", "--rm", "--network", "none", "--user", "10001:10001",
		"-v", b.helpers + ":" + agent.PluginDir + ":ro", "-v", ws + ":" + agent.Workspace, "-v", chdir + ":" + channelDir,
		"-w", agent.Workspace, "-e", "HOME=/tmp"}
	for _, e := range testreport.Env(agent.PluginDir, channelSocket) {
		args = append(args, "-e", e)
	}
	for _, m := range extra {
		args = append(args, "-v", m)
	}
	args = append(args, image.Default(), "sh", "-c", cmd)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	run := boxRun{output: string(out), lines: ch.close()}
	if exitErr, ok := err.(*exec.ExitError); ok {
		run.exit = exitErr.ExitCode()
	} else if err != nil {
		b.t.Fatalf("docker run: %v: %s", err, out)
	}
	return run
}

// kinds lists the records of each connection: conn -> kinds in order.
func (r boxRun) conns() map[int][]map[string]any {
	out := map[int][]map[string]any{}
	for _, l := range r.lines {
		if !l.closed {
			out[l.conn] = append(out[l.conn], l.rec)
		}
	}
	return out
}

// sessions returns the connections that start with a start record.
func (r boxRun) sessions() map[int][]map[string]any {
	out := map[int][]map[string]any{}
	for n, recs := range r.conns() {
		if recs[0]["kind"] == "start" {
			out[n] = recs
		}
	}
	return out
}

// records returns every record of kind, as "field=value" strings of the
// fields named.
func (r boxRun) records(kind string, fields ...string) []string {
	var out []string
	for _, l := range r.lines {
		if l.closed || l.rec["kind"] != kind {
			continue
		}
		var parts []string
		for _, f := range fields {
			parts = append(parts, fmt.Sprintf("%s=%v", f, l.rec[f]))
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// dump is the run for a failure message.
func (r boxRun) dump() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit %d\n%s\nchannel:\n", r.exit, r.output)
	for _, l := range r.lines {
		if l.closed {
			fmt.Fprintf(&b, "  %d (pid %d) closed\n", l.conn, l.pid)
		} else {
			fmt.Fprintf(&b, "  %d (pid %d) %s\n", l.conn, l.pid, l.raw)
		}
	}
	return b.String()
}

// outcomesOf maps each test record's name[params] to its outcome.
func (r boxRun) outcomesOf() map[string]string {
	out := map[string]string{}
	for _, l := range r.lines {
		if !l.closed && l.rec["kind"] == "test" {
			name := fmt.Sprint(l.rec["name"])
			if p := fmt.Sprint(l.rec["params"]); p != "" {
				name += "[" + p + "]"
			}
			out[name] = fmt.Sprint(l.rec["outcome"])
		}
	}
	return out
}

// BenchmarkTripwireOverhead runs a suite of 1000 trivial tests in the
// sandbox image without any plugin, with today's plugin (testdata's
// legacy_plugin.py, loaded by PYTEST_ADDOPTS and PYTHONPATH, appending to a
// file) and with the tripwire and the channel's plugin, alternately in one
// container, and reports each one's time per run and the ratios.
func BenchmarkTripwireOverhead(b *testing.B) {
	box := newPyBox(b)
	legacy := mkdir(b)
	src, err := os.ReadFile("testdata/legacy_plugin.py")
	if err != nil {
		b.Fatal(err)
	}
	writeFile(b, filepath.Join(legacy, "capsule_testreport.py"), src)
	files := map[string]string{
		"tests/test_many.py": "import pytest\n\n@pytest.mark.parametrize('n', range(1000))\ndef test_n(n):\n    assert n >= 0\n",
	}
	// The driver times each pytest process: wall time, and the CPU time
	// (user and system) it and its children used, which other work on the
	// machine disturbs less.
	const driver = `python3 - <<'EOF'
import os, resource, subprocess, time
base = {k: v for k, v in os.environ.items() if k not in ("PYTHONUSERBASE", "CAPSULE_TEST_CHANNEL")}
legacy = dict(base, PYTEST_ADDOPTS="-p capsule_testreport", PYTHONPATH="/capsule/legacy", CAPSULE_TEST_REPORT="/tmp/r.jsonl")
modes = {"none": base, "legacy": legacy, "tripwire": dict(os.environ)}
for mode in ["none", "legacy", "tripwire", "tripwire", "legacy", "none"]:
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], env=modes[mode],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(mode, int((time.perf_counter() - start) * 1e6), int(cpu * 1e6))
EOF`
	wall, cpu := map[string]time.Duration{}, map[string]time.Duration{}
	for b.Loop() {
		run := box.run(files, driver, legacy+":/capsule/legacy:ro")
		if run.exit != 0 {
			b.Fatal(run.dump())
		}
		for line := range strings.Lines(run.output) {
			var mode string
			var w, c int64
			if _, err := fmt.Sscan(line, &mode, &w, &c); err == nil {
				wall[mode] += time.Duration(w) * time.Microsecond
				cpu[mode] += time.Duration(c) * time.Microsecond
			}
		}
		if n := len(run.records("test")); n != 2000 {
			b.Fatalf("%d test records on the channel, want 2000", n)
		}
	}
	runs := float64(2 * b.N)
	for _, mode := range []string{"none", "legacy", "tripwire"} {
		b.ReportMetric(float64(wall[mode].Milliseconds())/runs, "ms-"+mode+"/run")
		b.ReportMetric(float64(cpu[mode].Milliseconds())/runs, "cpu-ms-"+mode+"/run")
	}
	b.ReportMetric(float64(wall["tripwire"])/float64(wall["legacy"]), "tripwire/legacy")
	b.ReportMetric(float64(cpu["tripwire"])/float64(cpu["legacy"]), "cpu-tripwire/legacy")
	b.ReportMetric(float64(cpu["legacy"])/float64(cpu["none"]), "cpu-legacy/none")
}
