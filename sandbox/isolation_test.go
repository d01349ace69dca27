package sandbox_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/agent"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// attempts defines attempt(what, fn) for the probes: it calls fn and
// prints what, then SUCCEEDED or the errno fn failed with.
const attempts = `
import ctypes, errno, os, signal
def attempt(what, fn):
    try:
        fn()
        print(what, "SUCCEEDED")
    except OSError as e:
        print(what, errno.errorcode.get(e.errno, e.errno))
`

// reachAgent tries every way a command could reach the agent (process 1)
// and prints one line per attempt with the errno it got: every descriptor
// number below 1024, open or not, so that the error cannot come from a
// descriptor that moved. Then it forges the answer of the old protocol on
// the agent's descriptors and exits 1.
const reachAgent = attempts + `
attempt("listdir /proc/1/fd", lambda: os.listdir("/proc/1/fd"))
for fd in range(1024):
    attempt("write /proc/1/fd/%d" % fd, lambda: open("/proc/1/fd/%d" % fd, "wb").close())
attempt("write /proc/1/mem", lambda: open("/proc/1/mem", "r+b").close())
attempt("read /proc/1/environ", lambda: open("/proc/1/environ", "rb").read())
libc = ctypes.CDLL(None, use_errno=True)
def seize():
    if libc.ptrace(0x4206, 1, None, None) != 0:  # PTRACE_SEIZE
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
attempt("ptrace seize 1", seize)
attempt("kill 1 SIGKILL", lambda: os.kill(1, signal.SIGKILL))
attempt("kill 1 SIGTERM", lambda: os.kill(1, signal.SIGTERM))
attempt("kill -1 SIGKILL", lambda: os.kill(-1, signal.SIGKILL))  # the agent must survive it
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith(("Cap", "NoNewPrivs", "Groups", "Uid", "Gid")):
            print(line.strip())
print("done")
forged = b'{"exit_code":0,"stdout":"cGFzc2Vk"}\n'
for fd in range(1024):
    try:
        with open("/proc/1/fd/%d" % fd, "wb") as f:
            f.write(forged)
    except OSError:
        pass
raise SystemExit(1)
`

// checkOutOfReach asserts what reachAgent printed: each attempt failed
// with the error of another user's process, not with ENOENT or EBADF, and
// the run's result is the command's own exit 1.
func checkOutOfReach(t *testing.T, res sandbox.Result) {
	t.Helper()
	if res.ExitCode != 1 || res.Passed() || strings.Contains(string(res.Stdout), "passed") {
		t.Errorf("the run reports exit %d, stdout %q: not what the command did", res.ExitCode, res.Stdout)
	}
	out := string(res.Stdout)
	if !strings.HasSuffix(out, "done\n") {
		t.Fatalf("the probe did not finish:\n%s%s", out, res.Stderr)
	}
	want := map[string]string{
		"listdir /proc/1/fd":   "EACCES",
		"write /proc/1/mem":    "EACCES",
		"read /proc/1/environ": "EACCES",
		"ptrace seize 1":       "EPERM",
		"kill 1 SIGKILL":       "EPERM",
		"kill 1 SIGTERM":       "EPERM",
	}
	for fd := range 1024 {
		want["write /proc/1/fd/"+strconv.Itoa(fd)] = "EACCES"
	}
	checkAttempts(t, out, want)
	checkSandboxUser(t, out)
}

// checkAttempts checks the lines "ATTEMPT ERRNO" a probe printed: each
// attempt of want is there, with the errno want gives.
func checkAttempts(t *testing.T, out string, want map[string]string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		what, got, ok := cutLast(line)
		if w, known := want[what]; ok && known {
			if got != w {
				t.Errorf("%s: %s, want %s", what, got, w)
			}
			delete(want, what)
		}
	}
	if len(want) > 0 {
		t.Errorf("attempts missing from the output: %v\n%s", want, out)
	}
}

// checkSandboxUser checks the lines of /proc/self/status a probe printed:
// it ran as the sandbox user, with no supplementary group, no capability
// and no_new_privs.
func checkSandboxUser(t *testing.T, out string) {
	t.Helper()
	for _, w := range []string{"Uid:\t10001\t10001\t10001\t10001", "Gid:\t10001\t10001\t10001\t10001", "\nGroups:\n",
		"CapInh:\t0000000000000000", "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000",
		"CapAmb:\t0000000000000000", "NoNewPrivs:\t1"} {
		if !strings.Contains(out+"\n", w) {
			t.Errorf("the command's status lacks %q:\n%s", w, out)
		}
	}
}

func cutLast(line string) (string, string, bool) {
	i := strings.LastIndexByte(line, ' ')
	if i < 0 {
		return "", "", false
	}
	return line[:i], line[i+1:], true
}

func TestAgentOutOfReachOfTheCommand(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)
	checkOutOfReach(t, run(t, s, sandbox.Run{Cmd: py(reachAgent)}))
	// The agent survived and answers the next run truthfully.
	if res := run(t, s, sandbox.Run{Cmd: sh("echo alive; exit 4")}); res.ExitCode != 4 || string(res.Stdout) != "alive\n" {
		t.Errorf("next run: exit %d, %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestAgentOutOfReachColdRun(t *testing.T) {
	eng := sandboxtest.Engine(t)
	res, err := eng.Run(context.Background(), sandboxtest.Spec(""), sandbox.Run{Cmd: py(reachAgent)})
	if err != nil {
		t.Fatal(err)
	}
	checkOutOfReach(t, res)
	// The reproduction: a forged line on the agent's stdout, then exit 1.
	res, err = eng.Run(context.Background(), sandboxtest.Spec(""), sandbox.Run{
		Cmd: sh(`printf '{"exit_code":0,"stdout":"cGFzc2Vk"}\n' > /proc/1/fd/1; exit 1`),
	})
	if err != nil || res.ExitCode != 1 || !strings.Contains(string(res.Stderr), "Permission denied") {
		t.Errorf("forged answer: %v, exit %d, stdout %q, stderr %q", err, res.ExitCode, res.Stdout, res.Stderr)
	}
	assertNoContainers(t, eng)
}

func TestRunCannotLockOutTheAgent(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, map[string]string{"app.py": "print('app')\n"}, nil)
	if res := run(t, s, sandbox.Run{Commit: true, Cmd: sh(`mkdir -p deps && echo installed > deps/lib.txt`)}); !res.Passed() {
		t.Fatalf("set-up: %s %s", res.Stdout, res.Stderr)
	}
	lock := run(t, s, sandbox.Run{Cmd: sh(`
mkdir -p sub/deeper; chmod 000 sub/deeper sub deps
chmod 000 /capsule/layer 2>/dev/null && echo "locked the layer" || echo "layer refused"
echo x > /capsule/layer/deps/lib.txt 2>/dev/null && echo "wrote the layer" || echo "layer write refused"
ls /capsule/layer >/dev/null 2>&1 && echo "listed the layer" || echo "layer closed"
chmod 000 /capsule/workspace && echo "locked the workspace"
chmod 000 /tmp /dev/shm 2>/dev/null || echo "scratch refused"`)})
	if want := "layer refused\nlayer write refused\nlayer closed\nlocked the workspace\nscratch refused\n"; string(lock.Stdout) != want {
		t.Errorf("locking run: %q, want %q (stderr %s)", lock.Stdout, want, lock.Stderr)
	}
	res := run(t, s, sandbox.Run{Cmd: sh(`cat deps/lib.txt && python3 app.py && echo ok > /tmp/t && ls -ld . | cut -c1-10`)})
	if !res.Passed() || string(res.Stdout) != "installed\napp\ndrwxr-xr-x\n" {
		t.Errorf("run after the lock-out: exit %d, %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

func TestNothingSurvivesARun(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, map[string]string{"given.txt": "original\n"}, nil)
	if res := run(t, s, sandbox.Run{Commit: true, Cmd: sh(`echo committed > setup.txt`)}); !res.Passed() {
		t.Fatalf("set-up: %s %s", res.Stdout, res.Stderr)
	}
	leave := run(t, s, sandbox.Run{Cmd: py(`
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
rt = ctypes.CDLL("librt.so.1", use_errno=True)
IPC_CREAT = 0o1000
ok = lambda r, what: print(what, "ok" if r >= 0 else os.strerror(ctypes.get_errno()))
ok(libc.msgget(1234, IPC_CREAT | 0o600), "msgget")
ok(libc.semget(1235, 1, IPC_CREAT | 0o600), "semget")
ok(libc.shmget(1236, 4096, IPC_CREAT | 0o600), "shmget")
ok(libc.shmget(0, 4096, IPC_CREAT | 0o600), "shmget private")
rt.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
ok(rt.mq_open(b"/left", os.O_CREAT | os.O_RDWR, 0o600, None), "mq_open")
# A queue given to another user: only its creator's user can still remove it.
q = libc.msgget(1237, IPC_CREAT | 0o600)
buf = ctypes.create_string_buffer(512)
IPC_SET, IPC_STAT = 1, 2
ok(libc.msgctl(q, IPC_STAT, buf), "msgctl stat")
ctypes.c_uint32.from_buffer(buf, 4).value = 4242  # ipc_perm.uid
ok(libc.msgctl(q, IPC_SET, buf), "msgctl give away")
open("/dev/shm/left", "w").write("x")
open(os.path.expanduser("~/.left"), "w").write("x")
open("setup.txt", "w").write("tampered")
open("given.txt", "w").write("tampered")
open("new.txt", "w").write("new")
`)})
	for _, w := range []string{"msgget ok", "semget ok", "shmget ok", "shmget private ok", "mq_open ok", "msgctl give away ok"} {
		if !strings.Contains(string(leave.Stdout), w) {
			t.Fatalf("the leaving run could not create its objects (%s):\n%s%s", w, leave.Stdout, leave.Stderr)
		}
	}
	check := run(t, s, sandbox.Run{Cmd: sh(`
ls -A /dev/shm /dev/mqueue /tmp "$HOME"
tail -n +2 /proc/sysvipc/msg /proc/sysvipc/sem /proc/sysvipc/shm | grep -v -e '^==>' -e '^$' || true
cat given.txt setup.txt; ls`)})
	want := "/dev/mqueue:\n\n/dev/shm:\n\n/tmp:\n\n/tmp:\noriginal\ncommitted\ngiven.txt\nsetup.txt\n"
	if string(check.Stdout) != want {
		t.Errorf("the next run saw what the previous one left:\ngot  %q\nwant %q\nstderr %s", check.Stdout, want, check.Stderr)
	}
}

func TestDiskQuota(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, map[string]string{"keep.txt": "k\n"}, nil) // the default quota: 1 GiB
	res := run(t, s, sandbox.Run{Cmd: py(`
import errno
chunk = b"x" * (1 << 20)
try:
    with open("big.bin", "wb") as f:
        for _ in range(3 << 10):  # 3 GiB
            f.write(chunk)
except OSError as e:
    print(errno.errorcode[e.errno])
    raise SystemExit(1)
`)})
	if !res.DiskFull || res.OOMKilled || res.ExitCode != 1 || string(res.Stdout) != "ENOSPC\n" {
		t.Errorf("3 GiB write: disk full %v, OOM %v, exit %d, %q %q", res.DiskFull, res.OOMKilled, res.ExitCode, res.Stdout, res.Stderr)
	}
	if want := "the tests wrote more than 1 GiB, the disk quota (exit status 1)"; res.Reason() != want {
		t.Errorf("Reason() = %q, want %q", res.Reason(), want)
	}
	res = run(t, s, sandbox.Run{Cmd: sh(`ls; df -k . | tail -1 | awk '{print $3 < 1024}'`)})
	if string(res.Stdout) != "keep.txt\n1\n" || res.DiskFull {
		t.Errorf("the next run: %q %q, disk full %v", res.Stdout, res.Stderr, res.DiskFull)
	}
}

func TestWorkspaceLargerThanTheQuota(t *testing.T) {
	eng := sandboxtest.Engine(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "big.bin"), make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := sandboxtest.Spec(ws)
	spec.Limits.Disk = 1 << 20
	res, err := eng.Run(context.Background(), spec, sandbox.Run{Cmd: []string{"true"}})
	if err != nil || res.Passed() || !strings.Contains(string(res.Stderr), "does not fit the disk quota") {
		t.Errorf("a 2 MiB workspace under a 1 MiB quota: %v, exit %d, stderr %q", err, res.ExitCode, res.Stderr)
	}
}

func TestDiskFilesQuotaColdRun(t *testing.T) {
	eng := sandboxtest.Engine(t)
	spec := sandboxtest.Spec("")
	spec.Limits.DiskFiles = 1000
	res, err := eng.Run(context.Background(), spec, sandbox.Run{Cmd: py(`
import errno, os
try:
    for i in range(300000):
        open("f%d" % i, "w").close()
except OSError as e:
    print(errno.errorcode[e.errno], i < 1000)
    raise SystemExit(1)
`)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.FilesFull || res.DiskFull || string(res.Stdout) != "ENOSPC True\n" {
		t.Errorf("300,000 files: files full %v, disk full %v, %q %q", res.FilesFull, res.DiskFull, res.Stdout, res.Stderr)
	}
	if want := "the tests created more than 1000 files, the disk quota (exit status 1)"; res.Reason() != want {
		t.Errorf("Reason() = %q, want %q", res.Reason(), want)
	}
}

// badAgent builds the stand-in agent of testdata/badagent.
func badAgent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "badagent")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/badagent")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the stand-in agent: %v\n%s", err, out)
	}
	return bin
}

func TestMalformedAnswerEndsTheSession(t *testing.T) {
	eng := sandboxtest.EngineWithAgent(t, badAgent(t))
	for _, answer := range []string{"flood", "huge", "json-line", "garbage", "unknown-field", "trailing", "greeting", "too-much-output", "cut"} {
		t.Run(answer, func(t *testing.T) {
			spec := sandboxtest.Spec("")
			spec.Env = []string{"BAD_ANSWER=" + answer}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var res sandbox.Result
			var err error
			if answer == "json-line" { // the cold path
				res, err = eng.Run(context.Background(), spec, sandbox.Run{Cmd: []string{"true"}})
			} else {
				s, serr := eng.NewSession(context.Background(), spec)
				if serr != nil {
					t.Fatal(serr)
				}
				res, err = s.Run(context.Background(), sandbox.Run{Cmd: []string{"true"}})
				s.Close()
			}
			runtime.ReadMemStats(&after)
			if !errors.Is(err, sandbox.ErrAgent) || !errors.Is(err, agent.ErrFrame) {
				t.Errorf("Run = %v, want an infrastructure error for a bad frame", err)
			}
			if res.Passed() || len(res.Stdout) > 0 {
				t.Errorf("a bad answer became a result: %+v", res)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Errorf("the host allocated %d MiB for the bad answer", grew>>20)
			}
		})
	}
	assertNoContainers(t, eng)
}
