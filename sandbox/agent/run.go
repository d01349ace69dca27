//go:build linux

package agent

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// killGrace bounds how long the agent keeps killing leftover processes
// after a run before it gives up and reports them.
const killGrace = 10 * time.Second

// maxTimeout applies when a request names no timeout.
const maxTimeout = 24 * time.Hour

// run starts req.Argv, or forks it from the warm parent (Request.Warm),
// waits for it or for the timeout, then kills every process left behind
// and reaps them all.
func (b *box) run(req Request) Response {
	if len(req.Argv) == 0 {
		return Response{ExitCode: 127, Error: "empty command"}
	}
	if req.Warm != nil {
		if resp, ok := b.runWarm(req); ok {
			return resp
		}
	}
	// The reaper below waits until no child is left: the warm parent
	// goes first.
	if !b.stopWarm() {
		return Response{ExitCode: 126, Error: "processes survived the clean-up of the warm parent"}
	}
	env := mergeEnv(os.Environ(), req.Env)
	path, err := lookPath(req.Argv[0], envValue(env, "PATH"))
	if err != nil {
		return Response{ExitCode: 127, Error: err.Error()}
	}
	dir := b.runDir(req)

	before := readCounters()
	out, err := newOutput(req.OutputLimit)
	if err != nil {
		return Response{ExitCode: 126, Error: err.Error()}
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		out.closeWriters()
		out.wait()
		return Response{ExitCode: 126, Error: fmt.Sprintf("open %s: %v", os.DevNull, err)}
	}

	start := time.Now()
	proc, err := b.startProcess(path, req.Argv, procAttr(dir, env, []*os.File{devnull, out.stdoutW, out.stderrW}, b.uid, b.gid))
	devnull.Close()
	out.closeWriters()
	if err != nil {
		out.wait()
		return Response{ExitCode: 126, Error: fmt.Sprintf("start %s: %v", req.Argv[0], err)}
	}
	// The kernel's OOM killer should pick the tests, never the agent.
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/oom_score_adj", proc.Pid), []byte("1000"), 0)

	exited := make(chan syscall.WaitStatus, 1)
	reaped := make(chan struct{})
	go reap(proc.Pid, exited, reaped)

	resp := Response{}
	var status syscall.WaitStatus
	timer := time.NewTimer(runTimeout(req))
	select {
	case status = <-exited:
		timer.Stop()
	case <-timer.C:
		resp.TimedOut = true
		b.killAll(reaped)
		status = <-exited
	}
	resp.Duration = time.Since(start)
	if !b.killAll(reaped) {
		resp.Error = "processes survived the clean-up after the run"
	}
	resp.ExitCode = exitCode(status)
	b.finish(&resp, out, before)
	return resp
}

// runDir is the working directory of req: Dir, inside the workspace.
func (b *box) runDir(req Request) string {
	return filepath.Join(b.workspace, filepath.Clean("/"+req.Dir))
}

// runTimeout is the wall-clock limit of req.
func runTimeout(req Request) time.Duration {
	if req.Timeout <= 0 {
		return maxTimeout
	}
	return req.Timeout
}

// output is where a run's standard output and error go: pipes drained
// into bounded buffers until every writer is gone.
type output struct {
	stdout, stderr   *HeadTail
	stdoutW, stderrW *os.File // the run's ends, closed by closeWriters
	drained          sync.WaitGroup
}

// newOutput makes the pipes of a run that keeps limit bytes of each
// stream, and starts draining them.
func newOutput(limit int) (*output, error) {
	o := &output{stdout: NewHeadTail(limit), stderr: NewHeadTail(limit)}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("pipe: %w", err)
	}
	o.stdoutW, o.stderrW = outW, errW
	o.drained.Add(2)
	go drain(&o.drained, outR, o.stdout)
	go drain(&o.drained, errR, o.stderr)
	return o, nil
}

// closeWriters closes the agent's copies of the run's ends.
func (o *output) closeWriters() {
	o.stdoutW.Close()
	o.stderrW.Close()
}

// wait waits until both streams are read to their end.
func (o *output) wait() { o.drained.Wait() }

// finish fills resp with the run's output, once read to its end, and
// with what the counters and the workspace say about it.
func (b *box) finish(resp *Response, out *output, before counters) {
	out.wait()
	resp.Stdout, resp.StdoutBytes = out.stdout.Bytes(), out.stdout.Total()
	resp.Stderr, resp.StderrBytes = out.stderr.Bytes(), out.stderr.Total()
	after := readCounters()
	resp.OOMKilled = after.oomKills > before.oomKills
	resp.PidsLimited = after.pidsMax > before.pidsMax
	resp.DiskFull, resp.FilesFull = quotaReached(b.workspace)
}

// procAttr is how a command starts: in dir with env and files, in a
// process group of its own, as uid and gid with no supplementary groups.
// Leaving uid 0 clears every capability the command had.
func procAttr(dir string, env []string, files []*os.File, uid, gid int) *os.ProcAttr {
	return &os.ProcAttr{
		Dir:   dir,
		Env:   env,
		Files: files,
		Sys: &syscall.SysProcAttr{
			Setpgid:    true,
			Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}},
		},
	}
}

// drain copies r into w until every writer of the pipe is gone.
func drain(wg *sync.WaitGroup, r *os.File, w io.Writer) {
	defer wg.Done()
	defer r.Close()
	_, _ = io.Copy(w, r)
}

// reap collects every child of the agent, sending the status of pid on
// exited, and closes reaped once no child is left.
func reap(pid int, exited chan<- syscall.WaitStatus, reaped chan<- struct{}) {
	defer close(reaped)
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return
		}
		if got == pid {
			exited <- ws
		}
	}
}

// killAll sends SIGKILL to every other process of the container until none
// is left and all are reaped. It reports whether that happened within
// b.killGrace.
func (b *box) killAll(reaped <-chan struct{}) bool {
	deadline := time.Now().Add(b.killGrace)
	for time.Now().Before(deadline) {
		err := b.killOthers()
		select {
		case <-reaped:
			return true
		default:
		}
		if errors.Is(err, syscall.ESRCH) {
			// Nothing left to signal, and nothing can start again: the
			// reaper ends the moment it has collected the last child.
			timer := time.NewTimer(time.Until(deadline))
			defer timer.Stop()
			select {
			case <-reaped:
				return true
			case <-timer.C:
				return false
			}
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// exitCode maps a wait status to a shell-style exit code.
func exitCode(ws syscall.WaitStatus) int {
	switch {
	case ws.Exited():
		return ws.ExitStatus()
	case ws.Signaled():
		return 128 + int(ws.Signal())
	default:
		return -1
	}
}

// lookPath finds file in the directories of pathList, as a shell would.
func lookPath(file, pathList string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil // absolute, or relative to the working directory
	}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, file)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: command not found", file)
}

// mergeEnv returns base with the KEY=VALUE pairs of extra replacing or
// adding to it.
func mergeEnv(base, extra []string) []string {
	out := make([]string, 0, len(base)+len(extra))
	seen := make(map[string]int, len(base)+len(extra))
	for _, kv := range append(append([]string{}, base...), extra...) {
		key, _, _ := strings.Cut(kv, "=")
		if i, ok := seen[key]; ok {
			out[i] = kv
			continue
		}
		seen[key] = len(out)
		out = append(out, kv)
	}
	return out
}

// envValue returns the value of key in env.
func envValue(env []string, key string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
