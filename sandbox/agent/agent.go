//go:build linux

package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"
)

// Main runs the agent on the process's standard input and output and
// returns the process exit code. It refuses to run unless it is process 1,
// because it kills every other process it may signal between runs.
func Main() int {
	if os.Getpid() != 1 {
		fmt.Fprintln(os.Stderr, "capsule agent: must run as process 1 inside a sandbox container")
		return 2
	}
	prewarmThreads(8)
	if err := Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "capsule agent: %v\n", err)
		return 1
	}
	return 0
}

// Serve greets the host, then answers requests from in until it is closed.
func Serve(in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(in)
	enc := json.NewEncoder(out)
	if err := enc.Encode(Response{Ready: true, Protocol: ProtocolVersion}); err != nil {
		return fmt.Errorf("greet host: %w", err)
	}
	for {
		var req Request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read request: %w", err)
		}
		if err := enc.Encode(handle(req)); err != nil {
			return fmt.Errorf("write response: %w", err)
		}
	}
}

// handle restores the starting state, runs the request and collects the
// workspace when asked.
func handle(req Request) Response {
	start := time.Now()
	if err := restore(req.Files, req.Delete); err != nil {
		return Response{ExitCode: 126, Error: fmt.Sprintf("prepare workspace: %v", err), Duration: time.Since(start)}
	}
	resp := run(req)
	if req.Commit && resp.ExitCode == 0 && resp.Error == "" && !resp.TimedOut {
		if err := commit(); err != nil {
			resp.ExitCode, resp.Error = 126, err.Error()
		}
	}
	if req.Collect && resp.Error == "" {
		ws, err := archiveDir(Workspace)
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
