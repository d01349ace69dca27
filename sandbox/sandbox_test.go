package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// newSession starts a warm session over a workspace holding files.
func newSession(t *testing.T, eng *sandbox.Engine, files map[string]string, tune func(*sandbox.Limits)) *sandbox.Session {
	t.Helper()
	ws := t.TempDir()
	for name, body := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := sandboxtest.Spec(ws)
	if tune != nil {
		tune(&spec.Limits)
	}
	s, err := eng.NewSession(context.Background(), spec)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	t.Cleanup(func() {
		s.Close()
		assertNoContainers(t, eng)
	})
	return s
}

// assertNoContainers fails when this process still owns a container.
func assertNoContainers(t *testing.T, eng *sandbox.Engine) {
	t.Helper()
	ids, err := eng.Owned(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) > 0 {
		t.Errorf("%d sandbox containers left behind: %v", len(ids), ids)
	}
}

func run(t *testing.T, s *sandbox.Session, r sandbox.Run) sandbox.Result {
	t.Helper()
	res, err := s.Run(context.Background(), r)
	if err != nil {
		t.Fatalf("Run(%q): %v", r.Cmd, err)
	}
	return res
}

func py(code string) []string { return []string{"python3", "-c", code} }

func sh(script string) []string { return []string{"sh", "-c", script} }

func TestRunReportsOutputAndExitCode(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, map[string]string{"data/in.txt": "hello\n"}, nil)
	res := run(t, s, sandbox.Run{Cmd: sh("cat data/in.txt; echo oops >&2; exit 3")})
	if res.ExitCode != 3 || string(res.Stdout) != "hello\n" || string(res.Stderr) != "oops\n" {
		t.Errorf("got exit %d, stdout %q, stderr %q; want 3, hello, oops", res.ExitCode, res.Stdout, res.Stderr)
	}
	if res.Passed() || res.Reason() != "exit status 3" {
		t.Errorf("Passed() = %v, Reason() = %q", res.Passed(), res.Reason())
	}
	res = run(t, s, sandbox.Run{Cmd: []string{"no-such-command"}})
	if res.ExitCode != 127 || !strings.Contains(string(res.Stderr), "command not found") {
		t.Errorf("missing command: exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
}

func TestNoNetwork(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)
	// Only the loopback interface exists, and name resolution fails
	// without any traffic leaving the container.
	res := run(t, s, sandbox.Run{Cmd: py(`
import socket
ifaces = [l.split(":")[0].strip() for l in open("/proc/net/dev").read().splitlines()[2:]]
print("interfaces", ifaces)
try:
    socket.getaddrinfo("example.com", 80)
    print("resolved")
except OSError as e:
    print("resolution failed:", type(e).__name__)
`)})
	out := string(res.Stdout)
	if !strings.Contains(out, "interfaces ['lo']") || !strings.Contains(out, "resolution failed") {
		t.Errorf("network visible in the sandbox:\n%s%s", out, res.Stderr)
	}
}

func TestConfinement(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, map[string]string{"given.txt": "original\n"}, nil)
	res := run(t, s, sandbox.Run{Cmd: sh(`
id -u; id -g
grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status
for f in /etc/capsule-x /usr/capsule-x /capsule/capsule-x /capsule/base/given.txt /capsule/agent; do
  if (echo x > $f) 2>/dev/null; then echo "wrote $f"; else echo "refused $f"; fi
done
echo x > /tmp/ok && echo "wrote /tmp"
echo x > given.txt && echo "wrote workspace"
mount -t tmpfs none /tmp 2>&1 | grep -o "must be superuser"  # a set-user-ID root program stays 10001
`)})
	want := []string{
		"10001\n10001\n",
		"CapPrm:\t0000000000000000", "CapEff:\t0000000000000000", "NoNewPrivs:\t1",
		"refused /etc/capsule-x", "refused /usr/capsule-x", "refused /capsule/capsule-x",
		"refused /capsule/base/given.txt", "refused /capsule/agent",
		"wrote /tmp", "wrote workspace", "must be superuser",
	}
	for _, w := range want {
		if !strings.Contains(string(res.Stdout), w) {
			t.Errorf("output lacks %q:\n%s%s", w, res.Stdout, res.Stderr)
		}
	}
}

func TestWarmRunsDoNotLeak(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, map[string]string{"given.txt": "original\n"}, nil)
	first := run(t, s, sandbox.Run{
		Env: []string{"LEAK=1"},
		Cmd: sh(`echo changed > given.txt; echo new > new.txt; mkdir locked; chmod 000 locked
echo tmp > /tmp/left; export MORE=1
setsid sleep 1000 >/dev/null 2>&1 &
nohup sh -c 'while true; do sleep 1; done' >/dev/null 2>&1 &
echo started`),
	})
	if !first.Passed() {
		t.Fatalf("first run failed: %s %s", first.Stdout, first.Stderr)
	}
	second := run(t, s, sandbox.Run{Cmd: sh(`
cat given.txt; ls -A; ls -A /tmp
echo "LEAK=${LEAK:-unset} MORE=${MORE:-unset}"
for p in /proc/[0-9]*; do cat $p/cmdline 2>/dev/null | tr '\0' ' '; echo; done | grep -c '^sleep 1000' || true`)})
	want := "original\ngiven.txt\nLEAK=unset MORE=unset\n0\n"
	if string(second.Stdout) != want {
		t.Errorf("second run saw state of the first:\ngot  %q\nwant %q\nstderr: %s", second.Stdout, want, second.Stderr)
	}
}

func TestFilesOverlayAndCollect(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, map[string]string{"pkg/a.py": "A = 1\n", "keep.txt": "k\n"}, nil)
	out := t.TempDir()
	res := run(t, s, sandbox.Run{
		Files:     map[string][]byte{"pkg/a.py": []byte("A = 2\n"), "pkg/b.py": []byte("B = 3\n")},
		Cmd:       py("from pkg.a import A; from pkg.b import B; print(A + B); open('made.txt','w').write('m')"),
		CollectTo: out,
	})
	if strings.TrimSpace(string(res.Stdout)) != "5" {
		t.Fatalf("overlay not applied: %s %s", res.Stdout, res.Stderr)
	}
	for name, want := range map[string]string{"pkg/a.py": "A = 2\n", "pkg/b.py": "B = 3\n", "keep.txt": "k\n", "made.txt": "m"} {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || string(got) != want {
			t.Errorf("collected %s = %q, %v; want %q", name, got, err, want)
		}
	}
	// Files named in Delete are gone for the run.
	res = run(t, s, sandbox.Run{Delete: []string{"keep.txt"}, Cmd: sh("ls")})
	if string(res.Stdout) != "pkg\n" {
		t.Errorf("Delete: ls = %q", res.Stdout)
	}
	// The overlay lasts one run only.
	res = run(t, s, sandbox.Run{Cmd: py("from pkg.a import A; print(A)")})
	if strings.TrimSpace(string(res.Stdout)) != "1" {
		t.Errorf("overlay leaked into the next run: %s %s", res.Stdout, res.Stderr)
	}
}

func TestTimeout(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, func(l *sandbox.Limits) { l.Timeout = 2 * time.Second })
	start := time.Now()
	res := run(t, s, sandbox.Run{Cmd: py("while True: pass")})
	if !res.TimedOut || res.Passed() || !strings.Contains(res.Reason(), "timed out after 2s") {
		t.Errorf("infinite loop: timed out %v, reason %q", res.TimedOut, res.Reason())
	}
	if took := time.Since(start); took > 2*time.Second+10*time.Second {
		t.Errorf("run took %s for a 2s timeout", took)
	}
	// The session is usable afterwards.
	if res := run(t, s, sandbox.Run{Cmd: sh("echo alive")}); string(res.Stdout) != "alive\n" {
		t.Errorf("after timeout: %q %q", res.Stdout, res.Stderr)
	}
}

func TestForkBombStoppedByPidsLimit(t *testing.T) {
	eng := sandboxtest.Engine(t)
	// The shell waits, with builtins only (a fork would fail), until the
	// container's pids counter shows a refused fork, however slowly a busy
	// machine forks; the timeout bounds a bomb that never gets there.
	s := newSession(t, eng, nil, func(l *sandbox.Limits) { l.Timeout = time.Minute })
	res := run(t, s, sandbox.Run{Cmd: sh(`f=/sys/fs/cgroup/pids.events; [ -r $f ] || f=/sys/fs/cgroup/pids/pids.events
bomb() { bomb | bomb & }; bomb
while read -r _ n < $f && [ "$n" = 0 ]; do :; done; echo done`)})
	if !res.PidsLimited || res.TimedOut {
		t.Errorf("fork bomb did not reach the pids limit: exit %d, %s", res.ExitCode, res.Stderr)
	}
	// Left: the agent, this shell and the short-lived reader of /proc.
	res = run(t, s, sandbox.Run{Cmd: sh(`n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo $n`)})
	if n, err := strconv.Atoi(strings.TrimSpace(string(res.Stdout))); err != nil || n > 3 {
		t.Errorf("processes survived the fork bomb: %q %s", res.Stdout, res.Stderr)
	}
}

func TestMemoryBombIsOOMKilled(t *testing.T) {
	eng := sandboxtest.Engine(t)
	// The container's limit: 64 MiB for the processes, 16 MiB for the
	// workspace's files and 8 MiB each for /tmp and /dev/shm.
	s := newSession(t, eng, nil, func(l *sandbox.Limits) { l.Memory, l.Disk, l.TmpSize = 64<<20, 16<<20, 8<<20 })
	res := run(t, s, sandbox.Run{Cmd: py("x = bytearray(512 << 20); print('allocated')")})
	if !res.OOMKilled || res.Passed() || !strings.Contains(res.Reason(), "more than 96 MiB") {
		t.Errorf("memory bomb: OOMKilled %v, exit %d, reason %q, stderr %s", res.OOMKilled, res.ExitCode, res.Reason(), res.Stderr)
	}
	if res := run(t, s, sandbox.Run{Cmd: sh("echo alive")}); string(res.Stdout) != "alive\n" {
		t.Errorf("after OOM: %q %q", res.Stdout, res.Stderr)
	}
}

func TestOutputFloodIsCapped(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, func(l *sandbox.Limits) { l.Timeout = 2 * time.Minute })
	var fsBefore syscall.Statfs_t
	if err := syscall.Statfs("/var/lib/docker", &fsBefore); err != nil {
		t.Skipf("cannot watch the engine's disk: %v", err)
	}
	var memBefore runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&memBefore)

	const gib = 1 << 30
	res := run(t, s, sandbox.Run{Cmd: py("import sys\nb = b'x' * (1 << 20)\nfor _ in range(1024): sys.stdout.buffer.write(b)\nprint('the end')")})

	var memAfter runtime.MemStats
	runtime.ReadMemStats(&memAfter)
	var fsAfter syscall.Statfs_t
	_ = syscall.Statfs("/var/lib/docker", &fsAfter)

	if res.StdoutBytes != gib+int64(len("the end\n")) {
		t.Errorf("StdoutBytes = %d, want 1 GiB and the last line", res.StdoutBytes)
	}
	if len(res.Stdout) > sandbox.DefaultOutputLimit+100 || !res.Truncated() {
		t.Errorf("kept %d bytes of stdout, limit %d", len(res.Stdout), sandbox.DefaultOutputLimit)
	}
	if !strings.HasSuffix(string(res.Stdout), "the end\n") {
		t.Errorf("the tail of the output was not kept")
	}
	if grew := int64(memAfter.TotalAlloc - memBefore.TotalAlloc); grew > 64<<20 {
		t.Errorf("Capsule allocated %d MiB for 1 GiB of output", grew>>20)
	}
	usedBefore := int64(fsBefore.Blocks-fsBefore.Bfree) * fsBefore.Bsize
	usedAfter := int64(fsAfter.Blocks-fsAfter.Bfree) * fsAfter.Bsize
	if usedAfter-usedBefore > 256<<20 {
		t.Errorf("disk use grew by %d MiB during the flood", (usedAfter-usedBefore)>>20)
	}
}

func TestCancelledContextRemovesContainer(t *testing.T) {
	eng := sandboxtest.Engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := eng.Run(ctx, sandboxtest.Spec(""), sandbox.Run{Cmd: []string{"sleep", "100"}})
	if err == nil || ctx.Err() == nil {
		t.Fatalf("Run = %v, want the context's error", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("cancelled run took %s", took)
	}
	assertNoContainers(t, eng)
}

func TestColdRun(t *testing.T) {
	eng := sandboxtest.Engine(t)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "x.py"), []byte("print(6*7)\n"), 0o644)
	res, err := eng.Run(context.Background(), sandboxtest.Spec(ws), sandbox.Run{Cmd: []string{"python3", "x.py"}})
	if err != nil || string(res.Stdout) != "42\n" {
		t.Fatalf("cold run: %v, %q %q", err, res.Stdout, res.Stderr)
	}
	assertNoContainers(t, eng)
}

func TestBadInput(t *testing.T) {
	eng := sandboxtest.Engine(t)
	_, err := eng.NewSession(context.Background(), sandboxtest.Spec("/no/such/dir"))
	if err == nil || !strings.Contains(err.Error(), "/no/such/dir") {
		t.Errorf("missing workspace: %v", err)
	}
	spec := sandboxtest.Spec("")
	spec.Image = "capsule-python:no-such-tag"
	if _, err := eng.NewSession(context.Background(), spec); err == nil || !strings.Contains(err.Error(), "no-such-tag") {
		t.Errorf("missing image: %v", err)
	}
	assertNoContainers(t, eng)
}

func TestSetupCommitAndCutNetwork(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, map[string]string{"app.py": "print('app')\n"}, func(l *sandbox.Limits) { l.Network = true })
	setup := run(t, s, sandbox.Run{Commit: true, Cmd: sh(`mkdir -p .deps && echo installed > .deps/lib.txt && grep -c eth0 /proc/net/dev`)})
	if !setup.Passed() || strings.TrimSpace(string(setup.Stdout)) != "1" {
		t.Fatalf("set-up run: %q %q (want network during set-up)", setup.Stdout, setup.Stderr)
	}
	if err := s.CutNetwork(context.Background()); err != nil {
		t.Fatal(err)
	}
	check := sh(`cat .deps/lib.txt; ls; grep -c eth0 /proc/net/dev || true`)
	want := "installed\napp.py\n0\n"
	// A run changes committed files in its own workspace only.
	run(t, s, sandbox.Run{Cmd: sh(`echo tampered > .deps/lib.txt; rm app.py`)})
	if res := run(t, s, sandbox.Run{Cmd: check}); string(res.Stdout) != want {
		t.Errorf("after set-up: %q, want %q (stderr %s)", res.Stdout, want, res.Stderr)
	}
	// A replaced container gets the set-up replayed and stays offline.
	ids, _ := eng.Owned(context.Background())
	for _, id := range ids {
		eng.Client().ContainerKill(context.Background(), id, "KILL")
	}
	if _, err := s.Run(context.Background(), sandbox.Run{Cmd: check}); err == nil {
		t.Error("a run on a killed container reported no error")
	}
	if res := run(t, s, sandbox.Run{Cmd: check}); string(res.Stdout) != want {
		t.Errorf("after replacement: %q, want %q (stderr %s)", res.Stdout, want, res.Stderr)
	}
}

func TestExclude(t *testing.T) {
	eng := sandboxtest.Engine(t)
	ws := t.TempDir()
	for _, name := range []string{".git/config", "pkg/.git/HEAD", "pkg/a.py", "keep/.gitignore"} {
		os.MkdirAll(filepath.Join(ws, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(ws, name), []byte("x"), 0o644)
	}
	spec := sandboxtest.Spec(ws)
	spec.Exclude = []string{".git"}
	res, err := eng.Run(context.Background(), spec, sandbox.Run{Cmd: sh("find . -type f | sort")})
	if err != nil {
		t.Fatal(err)
	}
	if want := "./keep/.gitignore\n./pkg/a.py\n"; string(res.Stdout) != want {
		t.Errorf("workspace files %q, want %q", res.Stdout, want)
	}
}
