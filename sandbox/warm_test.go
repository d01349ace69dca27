package sandbox_test

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// runner is the warm script of these tests: its main runs the Python file
// its first argument names, as `python3 runner.py FILE` would.
const runner = `import sys


def main():
    path = sys.argv[1]
    with open(path) as f:
        code = f.read()
    exec(compile(code, path, "exec"), {"__name__": "__main__"})
`

// warmRun runs code as probe.py through the warm parent and checks that
// it ran warm.
func warmRun(t *testing.T, s *sandbox.Session, code string, tune func(*sandbox.Run)) sandbox.Result {
	t.Helper()
	r := sandbox.Run{
		Cmd:   []string{"python3", "-B", "-u", "runner.py", "probe.py"},
		Env:   []string{"PYTHONHASHSEED=0"},
		Files: map[string][]byte{"runner.py": []byte(runner), "probe.py": []byte(code)},
		Warm:  &sandbox.Warm{Script: []byte(runner), Args: []string{"runner.py", "probe.py"}},
	}
	if tune != nil {
		tune(&r)
	}
	res := run(t, s, r)
	if !res.Warm {
		t.Fatalf("the run was not warm: exit %d, %s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	return res
}

// reachParent tries every way a run could reach the warm parent, its own
// parent process, and prints one line per attempt with the errno it got,
// then its own credentials, then it kills every process it may.
const reachParent = attempts + `
parent = os.getppid()
print("parent", parent)
with open("/proc/%d/status" % parent) as f:
    for line in f:
        if line.startswith(("Uid", "CapEff")):
            print("parent", line.strip())
p = "/proc/%d/" % parent
attempt("listdir fd", lambda: os.listdir(p + "fd"))
attempt("read mem", lambda: open(p + "mem", "rb").close())
attempt("write mem", lambda: open(p + "mem", "r+b").close())
attempt("read environ", lambda: open(p + "environ", "rb").read())
attempt("read maps", lambda: open(p + "maps", "rb").read())
attempt("open cwd", lambda: os.listdir(p + "cwd"))
libc = ctypes.CDLL(None, use_errno=True)
def ptrace(request):
    def call():
        if libc.ptrace(request, parent, None, None) != 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
    return call
attempt("ptrace attach", ptrace(16))
attempt("ptrace seize", ptrace(0x4206))
for sig in ("SIGKILL", "SIGTERM", "SIGSTOP", "SIGINT"):
    attempt("kill " + sig, lambda: os.kill(parent, getattr(signal, sig)))
attempt("list the script directory", lambda: os.listdir("/capsule/warm"))
attempt("read the script", lambda: open("/capsule/warm/runner.py").read())
attempt("write the script", lambda: open("/capsule/warm/runner.py", "w").close())
attempt("read the driver", lambda: open("/capsule/warm/capsule_warm.py").read())
attempt("replace the directory", lambda: os.rename("/capsule/warm", "/capsule/warm.old"))
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith(("Cap", "NoNewPrivs", "Groups", "Uid", "Gid")):
            print(line.strip())
attempt("kill -1 SIGKILL", lambda: os.kill(-1, signal.SIGKILL))
print("done")
`

func TestWarmParentOutOfReach(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)
	res := warmRun(t, s, reachParent, nil)
	out := string(res.Stdout)
	if res.ExitCode != 0 || !strings.HasSuffix(out, "done\n") {
		t.Fatalf("the probe did not finish: exit %d\n%s%s", res.ExitCode, out, res.Stderr)
	}
	want := map[string]string{
		"listdir fd": "EACCES", "read mem": "EACCES", "write mem": "EACCES", "read environ": "EACCES",
		"read maps": "EACCES", "open cwd": "EACCES", "ptrace attach": "EPERM", "ptrace seize": "EPERM",
		"kill SIGKILL": "EPERM", "kill SIGTERM": "EPERM", "kill SIGSTOP": "EPERM", "kill SIGINT": "EPERM",
		"list the script directory": "EACCES", "read the script": "EACCES", "write the script": "EACCES",
		"read the driver": "EACCES", "replace the directory": "EACCES",
	}
	checkAttempts(t, out, want)
	checkSandboxUser(t, out)
	if !strings.Contains(out, "parent Uid:\t0\t0\t0\t0") {
		t.Errorf("the parent is not root:\n%s", out)
	}
	// The parent survived it all, kill(-1) included, and serves the next
	// run, which is still its child.
	parent := regexp.MustCompile(`(?m)^parent (\d+)$`).FindStringSubmatch(out)
	next := warmRun(t, s, "import os\nprint(os.getppid())\n", nil)
	if parent == nil || string(next.Stdout) != parent[1]+"\n" {
		t.Errorf("the next run's parent is %q, want %v", next.Stdout, parent)
	}
}

func TestWarmRunsShareNothing(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)
	leave := warmRun(t, s, `
import builtins, os, sys
print("before", [m for m in ("json", "fractions", "decimal") if m in sys.modules])
import json, fractions, decimal
builtins.LEAKED = 1
sys.modules["__main__"].LEAKED = 1
sys.modules["_socket"].LEAKED = 1
os.environ["LEAKED"] = "1"
sys.path.append("/leaked")
sys.setrecursionlimit(12345)
open("/tmp/leaked", "w").write("x")
open("/dev/shm/leaked", "w").write("x")
open("left.txt", "w").write("x")
`, nil)
	if leave.ExitCode != 0 || string(leave.Stdout) != "before []\n" {
		t.Fatalf("the leaving run: exit %d, %q %s", leave.ExitCode, leave.Stdout, leave.Stderr)
	}
	check := warmRun(t, s, `
import builtins, os, sys
print("modules", [m for m in ("json", "fractions", "decimal") if m in sys.modules])
print("builtins", hasattr(builtins, "LEAKED"))
print("main", hasattr(sys.modules["__main__"], "LEAKED"))
print("socket", hasattr(sys.modules.get("_socket"), "LEAKED"))
print("env", "LEAKED" in os.environ)
print("path", "/leaked" in sys.path)
print("recursion", sys.getrecursionlimit())
print("files", os.listdir("/tmp"), os.listdir("/dev/shm"), sorted(os.listdir(".")))
`, nil)
	want := "modules []\nbuiltins False\nmain False\nsocket False\nenv False\npath False\nrecursion 1000\nfiles [] [] ['probe.py', 'runner.py']\n"
	if string(check.Stdout) != want {
		t.Errorf("the next run saw what the previous one left:\ngot  %q\nwant %q\nstderr %s", check.Stdout, want, check.Stderr)
	}
}

func TestWarmLeftoversKilled(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)
	start := time.Now()
	leave := warmRun(t, s, `
import os, signal, time
def linger(keep_output):
    r, w = os.pipe()
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        os.read(r, 1)  # the lingering process has printed
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    if not keep_output:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
    print(os.getpid(), flush=True)
    os.write(w, b"x")
    time.sleep(300)
    os._exit(0)
linger(True)
linger(False)
print("parent", os.getpid(), flush=True)
`, nil)
	if took := time.Since(start); leave.ExitCode != 0 || took > 30*time.Second {
		t.Fatalf("the leaving run: exit %d after %s, %q %s", leave.ExitCode, took, leave.Stdout, leave.Stderr)
	}
	pids := regexp.MustCompile(`(?m)^\d+$`).FindAllString(string(leave.Stdout), -1)
	if len(pids) != 1 || !strings.Contains(string(leave.Stdout), "parent ") {
		t.Fatalf("the leaving run printed %q", leave.Stdout)
	}
	check := warmRun(t, s, fmt.Sprintf(`
import os
parent, me = os.getppid(), os.getpid()
others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, parent, me)]
print("others", others)
try:
    os.kill(%s, 0)
    print("the lingering process lives")
except ProcessLookupError:
    print("gone")
`, pids[0]), nil)
	if string(check.Stdout) != "others []\ngone\n" {
		t.Errorf("after a run that left processes: %q %s", check.Stdout, check.Stderr)
	}
}

// sameAsExec prints what a Python program can see of how it was started.
const sameAsExec = `
import os, resource, signal, sys
print("argv", sys.argv)
print("cwd", os.getcwd())
print("path", sys.path)
print("env", sorted(os.environ.items()))
print("ids", os.getresuid(), os.getresgid(), os.getgroups(), os.getpgrp() == os.getpid(), os.getsid(0) == os.getpid())
print("umask", os.umask(0))
print("limits", [(n, resource.getrlimit(getattr(resource, n))) for n in sorted(dir(resource)) if n.startswith("RLIMIT_")])
print("signals", [(s.name, signal.getsignal(s) in (signal.SIG_DFL, signal.SIG_IGN) and int(signal.getsignal(s))) for s in signal.valid_signals() if s < 32])
print("mask", sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])))
print("fds", sorted(os.listdir("/proc/self/fd")))
print("stdin", os.readlink("/proc/self/fd/0"), os.get_blocking(0))
print("encoding", sys.stdin.encoding, sys.stdout.encoding, sys.stderr.encoding, sys.getfilesystemencoding())
print("flags", [(f, getattr(sys.flags, f)) for f in dir(sys.flags) if not f.startswith("_") and f not in ("count", "index", "no_user_site")])
print("hash", hash("capsule"), sys.getrecursionlimit(), sys.dont_write_bytecode)
print("oom", open("/proc/self/oom_score_adj").read().strip())
print("proc owner", os.stat("/proc/self/mem").st_uid, os.stat("/proc/self/environ").st_uid)
print("main", __name__, sys.modules["__main__"].__name__)
`

// A warm run sees what the same command exec'd sees: arguments, working
// directory, sys.path, environment, ids, limits, signals, descriptors.
func TestWarmRunSeesWhatExecSees(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)
	env := []string{"PYTHONHASHSEED=0", "PYTHONPATH=/capsule/workspace/lib:/elsewhere"}
	warm := warmRun(t, s, sameAsExec, func(r *sandbox.Run) { r.Env = env; r.Dir = "." })
	cold := run(t, s, sandbox.Run{Cmd: []string{"python3", "-B", "-u", "runner.py", "probe.py"}, Env: env,
		Files: map[string][]byte{"runner.py": []byte(runner + "\nmain()\n"), "probe.py": []byte(sameAsExec)}})
	if cold.Warm || cold.ExitCode != 0 || warm.ExitCode != 0 {
		t.Fatalf("exit %d (warm %v) and %d: %s %s", cold.ExitCode, cold.Warm, warm.ExitCode, cold.Stderr, warm.Stderr)
	}
	w, c := strings.Split(string(warm.Stdout), "\n"), strings.Split(string(cold.Stdout), "\n")
	if len(w) != len(c) {
		t.Fatalf("warm:\n%s\nexec:\n%s", warm.Stdout, cold.Stdout)
	}
	for i := range w {
		if w[i] != c[i] {
			t.Errorf("warm and exec differ:\nwarm %s\nexec %s", w[i], c[i])
		}
	}
	// The run's CPU-time limit is set before it starts.
	limited := warmRun(t, s, "import resource\nprint(resource.getrlimit(resource.RLIMIT_CPU))\n", func(r *sandbox.Run) {
		r.Warm.CPULimit = 2500 * time.Millisecond
	})
	if string(limited.Stdout) != "(3, 4)\n" {
		t.Errorf("RLIMIT_CPU of a run with a 2.5 s limit: %q %s", limited.Stdout, limited.Stderr)
	}
}

// dockerKill kills pid in the session's container as root, from outside
// any run.
func dockerKill(t *testing.T, pid int) {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-q", "--filter", "label="+sandbox.LabelManaged).Output()
	if err != nil {
		t.Fatal(err)
	}
	killed := false
	for _, id := range strings.Fields(string(out)) {
		// Only the session's container has this process as a warm parent.
		cmd := exec.Command("docker", "exec", "-u", "0", id, "sh", "-c",
			"grep -q capsule_warm /proc/"+strconv.Itoa(pid)+"/cmdline 2>/dev/null && kill -9 "+strconv.Itoa(pid)+" && echo killed")
		if b, _ := cmd.Output(); strings.Contains(string(b), "killed") {
			killed = true
		}
	}
	if !killed {
		t.Fatalf("no warm parent %d found to kill", pid)
	}
}

// A warm parent that dies between runs is replaced; one that dies during
// a run makes that run an agent error, never a hang, and is replaced too.
func TestWarmParentDies(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)
	ppid := func(res sandbox.Result) int {
		pid, err := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
		if err != nil {
			t.Fatalf("%q %s", res.Stdout, res.Stderr)
		}
		return pid
	}
	const printParent = "import os\nprint(os.getppid())\n"
	first := ppid(warmRun(t, s, printParent, nil))
	dockerKill(t, first)
	second := ppid(warmRun(t, s, printParent, nil))
	if second == first {
		t.Errorf("the parent %d was not replaced", first)
	}

	done := make(chan error, 1)
	go func() {
		_, err := s.Run(context.Background(), sandbox.Run{
			Cmd:   []string{"python3", "runner.py", "probe.py"},
			Env:   []string{"PYTHONHASHSEED=0"},
			Files: map[string][]byte{"probe.py": []byte("import time\ntime.sleep(60)\n")},
			Warm:  &sandbox.Warm{Script: []byte(runner), Args: []string{"runner.py", "probe.py"}},
		})
		done <- err
	}()
	time.Sleep(3 * time.Second)
	dockerKill(t, second)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "warm parent") {
			t.Errorf("a run whose parent died: %v, want an agent error", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a run whose parent died did not end")
	}
	if third := ppid(warmRun(t, s, printParent, nil)); third == second || third == first {
		t.Errorf("the parent %d was not replaced", second)
	}
}

// A fork bomb started by a warm run is swept away, and the parent serves
// the next run.
func TestWarmForkBomb(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, func(l *sandbox.Limits) { l.Timeout = time.Minute })
	first := warmRun(t, s, "import os\nprint(os.getppid())\n", nil)
	res := warmRun(t, s, `
import os
f = "/sys/fs/cgroup/pids.events"
if not os.access(f, os.R_OK):
    f = "/sys/fs/cgroup/pids/pids.events"
os.system("bomb() { bomb | bomb & }; bomb")
while open(f).read().split()[1] == "0":
    pass
print("done")
`, nil)
	if !res.PidsLimited || res.TimedOut {
		t.Errorf("fork bomb did not reach the pids limit: exit %d, %s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	check := warmRun(t, s, `
import os
parent, me = os.getppid(), os.getpid()
print(parent)
print([p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, parent, me)])
`, nil)
	if want := string(first.Stdout) + "[]\n"; string(check.Stdout) != want {
		t.Errorf("after the fork bomb: %q, want %q (stderr %s)", check.Stdout, want, check.Stderr)
	}
}

// A warm run past its timeout is killed, with what it started, and
// reported as a timeout; the parent serves the next run.
func TestWarmTimeout(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)
	const printParent = "import os\nprint(os.getppid())\n"
	first := warmRun(t, s, printParent, nil)
	start := time.Now()
	res := warmRun(t, s, "import os, time\nif os.fork() == 0:\n    time.sleep(300)\nprint('sleeping', flush=True)\ntime.sleep(300)\n", func(r *sandbox.Run) {
		r.Timeout = 2 * time.Second
	})
	if took := time.Since(start); !res.TimedOut || res.ExitCode != 128+9 || string(res.Stdout) != "sleeping\n" || took > 20*time.Second {
		t.Errorf("timed out %v, exit %d, %q %s after %s", res.TimedOut, res.ExitCode, res.Stdout, res.Stderr, took)
	}
	if res.Reason() != "timed out after 2s" {
		t.Errorf("Reason() = %q", res.Reason())
	}
	if next := warmRun(t, s, printParent, nil); string(next.Stdout) != string(first.Stdout) {
		t.Errorf("the parent %q was replaced by %q", first.Stdout, next.Stdout)
	}
}
