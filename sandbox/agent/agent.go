//go:build linux

package agent

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// RunAs is the user and group every command runs as unless the agent is
// started with another UID:GID after its subcommand; 0:0 runs commands as
// root, with the agent's capabilities.
const RunAs = "10001:10001"

// Main runs the agent on the process's standard input and output and
// returns the process exit code. It refuses to run unless it is process 1
// and root, because it kills every other process between runs and drops
// each command to the sandbox user. os.Args[2], when present, overrides
// RunAs.
func Main() int {
	uid, gid, err := startUser(os.Getpid(), os.Geteuid(), os.Args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "capsule agent: %v\n", err)
		return 2
	}
	// Neither the commands nor anything else may trace the agent or open
	// its /proc entries (descriptors, memory).
	if err := nonDumpable(); err != nil {
		fmt.Fprintf(os.Stderr, "capsule agent: %v\n", err)
		return 1
	}
	prewarmThreads(8)
	if err := serve(os.Stdin, os.Stdout, newBox(uid, gid).handle); err != nil {
		fmt.Fprintf(os.Stderr, "capsule agent: %v\n", err)
		return 1
	}
	return 0
}

// errNotInit is why an agent that is not process 1 and root refuses to
// start.
var errNotInit = errors.New("must run as process 1 and root inside a sandbox container")

// startUser decides whether an agent of process id pid and effective user
// euid, started with args, may run, and whom its commands run as: RunAs,
// or args[2] when present.
func startUser(pid, euid int, args []string) (uid, gid int, err error) {
	if pid != 1 || euid != 0 {
		return 0, 0, errNotInit
	}
	runAs := RunAs
	if len(args) > 2 {
		runAs = args[2]
	}
	return ParseUser(runAs)
}

// nonDumpable clears the process's dumpable flag: without it, only a
// process with CAP_SYS_PTRACE may trace the agent or open its /proc files,
// whatever its user.
func nonDumpable() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE): %w", errno)
	}
	return nil
}

// serve greets the host, then answers requests from in with handle until
// in is closed.
func serve(in io.Reader, out io.Writer, handle func(Request) Response) error {
	if err := WriteFrame(out, Response{Ready: true, Protocol: ProtocolVersion}, MaxGreeting); err != nil {
		return fmt.Errorf("greet host: %w", err)
	}
	for {
		var req Request
		if err := ReadFrame(in, MaxRequest, &req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read request: %w", err)
		}
		limit := ResponseLimit(req)
		err := WriteFrame(out, handle(req), limit)
		if errors.Is(err, ErrFrame) {
			err = WriteFrame(out, Response{ExitCode: 126, Error: err.Error()}, limit)
		}
		if err != nil {
			return fmt.Errorf("write response: %w", err)
		}
	}
}

// handle restores the starting state, runs the request and collects the
// workspace when asked.
func (b *box) handle(req Request) Response {
	start := time.Now()
	if err := b.restore(req.Files, req.Delete); err != nil {
		return Response{ExitCode: 126, Error: fmt.Sprintf("prepare workspace: %v", err), Duration: time.Since(start)}
	}
	var ch *channel
	if req.Report {
		var err error
		if ch, err = openChannel(b.channelDir, b.channelSocket, b.channelLimits); err != nil {
			return Response{ExitCode: 126, Error: err.Error(), Duration: time.Since(start)}
		}
	}
	ran := time.Now()
	resp := b.run(req)
	if ch != nil {
		// run returns once the command's processes are gone: every
		// connection then ends, and the channel is read to its end.
		resp.Report, resp.ReportBytes = ch.close()
	}
	if req.Commit && resp.ExitCode == 0 && resp.Error == "" && !resp.TimedOut {
		if err := b.commit(); err != nil {
			resp.ExitCode, resp.Error = 126, err.Error()
		}
	}
	if len(req.ReportFiles) > 0 && resp.Error == "" {
		files, cut, err := collectReports(b.workspace, req.ReportFiles, ran)
		if err != nil {
			resp.Error = fmt.Sprintf("collect report files: %v", err)
		}
		resp.ReportFiles, resp.ReportFilesCut = files, cut
	}
	if req.Collect && resp.Error == "" {
		ws, err := archiveDir(b.workspace, req.CollectLimit)
		if err != nil {
			resp.Error = fmt.Sprintf("collect workspace: %v", err)
		}
		resp.Workspace = ws
	}
	return resp
}

// prewarmThreads makes the Go runtime create n OS threads now and keep them
// idle, so that the agent still has threads to run on when a fork bomb has
// used up the container's process limit.
func prewarmThreads(n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			time.Sleep(10 * time.Millisecond)
			runtime.UnlockOSThread()
		}()
	}
	wg.Wait()
}
