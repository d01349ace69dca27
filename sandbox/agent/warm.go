//go:build linux

package agent

import (
	"crypto/sha256"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// warmDriver is the warm parent's own script (see its doc string).
//
//go:embed warm.py
var warmDriver []byte

// warmDriverName is the file of warmDriver in WarmDir.
const warmDriverName = "capsule_warm.py"

// systemPath is the PATH the warm parent's interpreter is found in and
// starts with, never a run's.
const systemPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// warmStart bounds how long a new warm parent takes to say it is ready.
const warmStart = 30 * time.Second

// runFailed is the exit status of a warm run whose process could not
// start, as the warm parent reports it.
const runFailed = 126

// maxWarmMessage bounds the message that hands a run to the warm parent:
// its argv and environment.
const maxWarmMessage = 128 << 10

// The variables of a run's environment that a warm run honours:
// warmStartVars are read by an interpreter when it starts, so the parent
// starts with the run's values; warmLaterVars are read later, or applied
// by the child, or implied by -B and -u. A run whose environment sets
// another PYTHON* variable is exec'd.
var (
	warmStartVars = []string{"LANG", "LC_ALL", "LC_CTYPE", "PYTHONHASHSEED", "PYTHONIOENCODING",
		"PYTHONUTF8", "PYTHONWARNINGS", "PYTHONINTMAXSTRDIGITS", "PYTHONOPTIMIZE"}
	warmLaterVars = []string{"PYTHONPATH", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "PYTHONUNBUFFERED",
		"PYTHONDONTWRITEBYTECODE", "PYTHONBREAKPOINT"}
)

// scriptName is what a warm script's file may be called.
var scriptName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*\.py$`)

// warmParent is a started warm parent: its process, the agent's end of
// their channel, and what it was started for.
type warmParent struct {
	pid  int
	conn *net.UnixConn
	key  string // the script and the start environment
	// exited is closed once the parent has been reaped, reaped once the
	// agent has no child left at all.
	exited, reaped chan struct{}
}

// runWarm runs req in a fork of the warm parent, started first if need
// be. It reports false, having run nothing, when req cannot run warm and
// its Argv should be started instead.
func (b *box) runWarm(req Request) (Response, bool) {
	env := mergeEnv(os.Environ(), req.Env)
	parentEnv, ok := warmEnv(env)
	if !ok || b.uid == 0 || b.processes == nil {
		return Response{}, false
	}
	python, err := lookPath("python3", systemPath)
	if err != nil {
		return Response{}, false
	}
	w := req.Warm
	msg, err := warmMessage(w, b.runDir(req), env)
	if err != nil {
		return Response{ExitCode: 126, Error: fmt.Sprintf("warm run: %v", err)}, true
	}
	before := readCounters()
	out, err := newOutput(req.OutputLimit)
	if err != nil {
		return Response{ExitCode: 126, Error: err.Error()}, true
	}
	fds := syscall.UnixRights(int(out.stdoutW.Fd()), int(out.stderrW.Fd()))
	var p *warmParent
	var start time.Time
	// A parent that died since the last run, unnoticed yet, refuses the
	// message: a fresh one gets it.
	for attempt := 0; attempt < 2; attempt++ {
		if p, err = b.warmParent(python, filepath.Base(w.Args[0]), w.Script, parentEnv); err != nil {
			out.closeWriters()
			out.wait()
			return Response{ExitCode: 126, Error: fmt.Sprintf("warm parent: %v", err)}, true
		}
		start = time.Now()
		if _, _, err = p.conn.WriteMsgUnix(msg, fds, nil); err == nil {
			break
		}
		b.stopWarm()
	}
	out.closeWriters()
	resp := Response{Warm: true}
	var status syscall.WaitStatus
	if err == nil {
		status, err = p.reply(time.Now().Add(runTimeout(req)))
		if errors.Is(err, os.ErrDeadlineExceeded) {
			resp.TimedOut = true
			b.sweep(p.pid)
			status, err = p.reply(time.Now().Add(b.killGrace))
		}
	}
	resp.Duration = time.Since(start)
	switch {
	case err != nil:
		// The parent died or misbehaved: it goes, with everything else.
		stopped := b.stopWarm()
		if resp.TimedOut {
			status = syscall.WaitStatus(syscall.SIGKILL)
		} else {
			resp.Error = fmt.Sprintf("warm parent: %v", err)
			status = syscall.WaitStatus(runFailed << 8)
		}
		if !stopped {
			resp.Error = "processes survived the clean-up after the run"
		}
	case !b.sweep(p.pid):
		if !b.stopWarm() {
			resp.Error = "processes survived the clean-up after the run"
		}
	}
	resp.ExitCode = exitCode(status)
	b.finish(&resp, out, before)
	return resp, true
}

// warmEnv returns the environment the warm parent starts with for a run
// of environment env, and false when env sets a variable that a warm run
// cannot honour.
func warmEnv(env []string) ([]string, bool) {
	out := []string{"PATH=" + systemPath}
	for _, kv := range env {
		key, _, _ := strings.Cut(kv, "=")
		switch {
		case slices.Contains(warmStartVars, key) || strings.HasPrefix(key, "LC_"):
			out = append(out, kv)
		case strings.HasPrefix(key, "PYTHON") && !slices.Contains(warmLaterVars, key):
			return nil, false
		}
	}
	return out, true
}

// warmMessage is the message that hands a run to the warm parent.
func warmMessage(w *Warm, dir string, env []string) ([]byte, error) {
	if len(w.Args) == 0 || !scriptName.MatchString(filepath.Base(w.Args[0])) || filepath.Base(w.Args[0]) == warmDriverName {
		return nil, fmt.Errorf("args %q: want a script's file name first", w.Args)
	}
	cpu := 0
	if w.CPULimit > 0 {
		cpu = int((w.CPULimit + time.Second - 1) / time.Second)
	}
	fields := append([]string{"run", strconv.Itoa(cpu), dir, strconv.Itoa(len(w.Args))}, w.Args...)
	fields = append(fields, env...)
	for _, f := range fields {
		if strings.IndexByte(f, 0) >= 0 {
			return nil, fmt.Errorf("a NUL byte in %q", f)
		}
	}
	msg := []byte(strings.Join(fields, "\x00"))
	if len(msg) > maxWarmMessage {
		return nil, fmt.Errorf("argv and environment take %d bytes, more than %d", len(msg), maxWarmMessage)
	}
	return msg, nil
}

// warmParent returns the running warm parent for script (named name) and
// the start environment env, starting one when there is none, when the
// one there is serves another script or environment (it is stopped), or
// when it has died since the last run.
func (b *box) warmParent(python, name string, script []byte, env []string) (*warmParent, error) {
	sum := sha256.Sum256(script)
	key := fmt.Sprintf("%x\x00%s\x00%s", sum, name, strings.Join(env, "\x00"))
	if p := b.warm; p != nil {
		select {
		case <-p.exited:
		default:
			if p.key == key {
				return p, nil
			}
		}
		if !b.stopWarm() {
			return nil, errors.New("processes survived the clean-up of the former parent")
		}
	}
	if err := writeWarmFiles(b.warmDir, name, script); err != nil {
		return nil, err
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socketpair: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "warm channel"), os.NewFile(uintptr(fds[1]), "warm channel")
	defer ours.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		theirs.Close()
		return nil, err
	}
	argv := []string{python, "-s", "-B", "-u", filepath.Join(b.warmDir, warmDriverName),
		strconv.Itoa(b.uid), strconv.Itoa(b.gid), filepath.Join(b.warmDir, name)}
	proc, err := b.startProcess(python, argv, &os.ProcAttr{
		Dir:   b.warmDir,
		Env:   env,
		Files: []*os.File{devnull, devnull, os.Stderr, theirs},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	devnull.Close()
	theirs.Close()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", python, err)
	}
	p := &warmParent{pid: proc.Pid, key: key, exited: make(chan struct{}), reaped: make(chan struct{})}
	_ = proc.Release()
	go p.reap()
	b.warm = p
	c, err := net.FileConn(ours)
	if err != nil {
		b.stopWarm()
		return nil, fmt.Errorf("channel: %w", err)
	}
	p.conn = c.(*net.UnixConn)
	msg, err := p.read(time.Now().Add(warmStart))
	if err == nil && string(msg) != "ready" {
		err = fmt.Errorf("it said %q", msg)
	}
	if err != nil {
		b.stopWarm()
		return nil, fmt.Errorf("start: %w", err)
	}
	return p, nil
}

// writeWarmFiles lays out dir, root's and closed to everyone else, with
// the driver and the script named name, read-only.
func writeWarmFiles(dir, name string, script []byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil { // whatever the umask
		return err
	}
	for file, data := range map[string][]byte{warmDriverName: warmDriver, name: script} {
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o400); err != nil {
			return err
		}
	}
	return nil
}

// reap collects every child of the agent while the parent lives (a run's
// leftovers come back to process 1), closing exited when it collects the
// parent and reaped once no child is left.
func (p *warmParent) reap() {
	defer close(p.reaped)
	for {
		got, err := syscall.Wait4(-1, nil, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return
		}
		if got == p.pid {
			close(p.exited)
		}
	}
}

// read reads one message from the parent before deadline.
func (p *warmParent) read(deadline time.Time) ([]byte, error) {
	if err := p.conn.SetReadDeadline(deadline); err != nil {
		return nil, err
	}
	buf := make([]byte, 4<<10)
	n, err := p.conn.Read(buf)
	if errors.Is(err, io.EOF) {
		return nil, errors.New("it closed the channel (it died?)")
	}
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// reply reads the wait status of the run's process from the parent.
func (p *warmParent) reply(deadline time.Time) (syscall.WaitStatus, error) {
	msg, err := p.read(deadline)
	if err != nil {
		return 0, err
	}
	if why, ok := strings.CutPrefix(string(msg), "error "); ok {
		return 0, errors.New(why)
	}
	s, ok := strings.CutPrefix(string(msg), "exit ")
	status, err := strconv.ParseUint(s, 10, 32)
	if !ok || err != nil {
		return 0, fmt.Errorf("an answer that is no wait status: %q", msg)
	}
	return syscall.WaitStatus(status), nil
}

// stopWarm ends the warm parent, if any, with every other process, and
// waits until all are reaped. It reports whether that happened within
// b.killGrace.
func (b *box) stopWarm() bool {
	p := b.warm
	if p == nil {
		return true
	}
	b.warm = nil
	if p.conn != nil {
		p.conn.Close()
	}
	return b.killAll(p.reaped)
}

// sweep kills every process of the container but the agent and the warm
// parent spare, until no other is listed: those that come back to the
// agent are reaped by the parent's reaper, the run's own process by the
// parent. It reports whether that happened within b.killGrace. Only the
// run's processes can start processes meanwhile (the parent forks only
// when asked, the agent not at all), so a pid signalled is always one of
// theirs, even one used again.
func (b *box) sweep(spare int) bool {
	deadline := time.Now().Add(b.killGrace)
	self := os.Getpid()
	for {
		pids, err := b.processes()
		left := 0
		for _, pid := range pids {
			if pid != spare && pid != self {
				left++
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if err == nil && left == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
}

// containerProcesses lists the processes of the container, by pid: the
// numbered entries of /proc, zombies included.
func containerProcesses() ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
