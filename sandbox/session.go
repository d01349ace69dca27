package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/capsulehq/capsule/sandbox/agent"
	"github.com/capsulehq/capsule/sandbox/limits"
	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// hostGrace is how much longer than a run's timeout the host waits for the
// agent's answer before it kills the whole container.
const hostGrace = 15 * time.Second

// startTimeout bounds container creation and the agent's greeting.
const startTimeout = 60 * time.Second

// Run is one command to run in a session.
type Run struct {
	// Cmd is the command and its arguments, run without a shell.
	Cmd []string
	// Env holds KEY=VALUE pairs for this run only.
	Env []string
	// Dir is the working directory, relative to the workspace.
	Dir string
	// Files are laid over the pristine workspace for this run, keyed by
	// slash-separated relative path.
	Files map[string][]byte
	// Delete names files, by slash-separated relative path, removed from
	// the workspace for this run.
	Delete []string
	// CollectTo, when set, is a host directory that receives the workspace
	// as the run left it.
	CollectTo string
	// Timeout overrides the session's Limits.Timeout when positive.
	Timeout time.Duration
	// Commit makes the workspace as this run leaves it the starting state
	// of the session's later runs, when the run passes: the set-up phase
	// that installs a repository's dependencies. Should the container be
	// replaced (after a timeout the agent could not end, say), the
	// committed run is replayed in the new one.
	Commit bool
	// TestReport asks for a per-test report: during the run the agent
	// serves the report channel, agent.ChannelSocket, and the Result
	// carries what it received, each line wrapped with its connection and
	// its sender's pid (see agent.Response.Report): records, once sent,
	// cannot be removed, rewritten or reordered by the run.
	TestReport bool
	// ReportFiles are globs of report files (JUnit XML), relative to the
	// workspace, that the Result carries after the run: the regular files
	// the run wrote that match one, within agent.MaxReportFiles files and
	// agent.MaxReportFileBytes bytes (see agent.Request.ReportFiles).
	ReportFiles []string
	// Warm, when set, forks the run from the container's warm Python
	// parent rather than starting Cmd, which must be the equivalent
	// command, `python3 -B -u SCRIPT ARGS...` (see agent.Warm; Cmd runs
	// when the run cannot be warm). A failure of the warm parent is an
	// error wrapping ErrAgent, never a Result.
	Warm *Warm
}

// Warm is a run forked from the container's warm Python parent; see
// agent.Warm.
type Warm = agent.Warm

// Result is how a run ended.
type Result struct {
	ExitCode    int
	Stdout      []byte // capped: head and tail of the stream
	Stderr      []byte
	StdoutBytes int64 // bytes the command wrote, kept or not
	StderrBytes int64
	Duration    time.Duration
	TimedOut    bool
	OOMKilled   bool
	PidsLimited bool // a fork failed because the process limit was reached
	// DiskFull and FilesFull report that the run left its workspace at the
	// disk quota, of bytes or of files: its writes failed with ENOSPC.
	DiskFull  bool
	FilesFull bool
	// The limits the run had, for Reason. Memory is the container's
	// (Limits.ContainerMemory): files in its tmpfs count as memory.
	Timeout   time.Duration
	Memory    int64
	Disk      int64
	DiskFiles int64
	// TestReport is what the report channel received, when the run asked
	// for it: at most agent.MaxReport bytes of TestReportBytes.
	TestReport      []byte
	TestReportBytes int64
	// ReportFiles holds the report files Run.ReportFiles asked for, by
	// path relative to the workspace; ReportFilesCut reports that some
	// were left out for the bounds.
	ReportFiles    map[string][]byte
	ReportFilesCut bool
	// Warm reports a run forked from the warm parent (Run.Warm).
	Warm bool
}

// Truncated reports whether output was dropped from either stream.
func (r Result) Truncated() bool {
	return r.StdoutBytes > int64(len(r.Stdout)) || r.StderrBytes > int64(len(r.Stderr))
}

// Passed reports whether the command exited 0 within its limits.
func (r Result) Passed() bool { return r.ExitCode == 0 && !r.TimedOut && !r.OOMKilled }

// Reason explains in a few words why a run did not pass, or "" when it did.
func (r Result) Reason() string {
	if r.Passed() {
		return ""
	}
	var reason string
	switch {
	case r.TimedOut:
		reason = fmt.Sprintf("timed out after %s", r.Timeout)
	case r.OOMKilled:
		reason = fmt.Sprintf("killed for using more than %s of memory (processes and the files of the workspace, /tmp and /dev/shm)", limits.FormatBytes(r.Memory))
	case r.DiskFull:
		reason = fmt.Sprintf("the tests wrote more than %s, the disk quota (exit status %d)", limits.FormatBytes(r.Disk), r.ExitCode)
	case r.FilesFull:
		reason = fmt.Sprintf("the tests created more than %d files, the disk quota (exit status %d)", r.DiskFiles, r.ExitCode)
	default:
		reason = fmt.Sprintf("exit status %d", r.ExitCode)
	}
	if r.PidsLimited {
		reason += "; the process limit was reached (fork bomb?)"
	}
	return reason
}

// Session is a warm sandbox container that runs many commands, each from
// the same starting state. A Session is safe for use by one goroutine at a
// time; Run calls are serialised.
type Session struct {
	engine *Engine
	spec   Spec
	agent  string
	labels map[string]string // of every container of the session

	mu   sync.Mutex
	live *live // nil when no container runs
	// setup is the committed run, replayed when the container is replaced;
	// offline records that the network was cut after it.
	setup   *Run
	offline bool
	// layer is the set-up archive restored in place of the set-up run
	// (RestoreLayer), copied again into a container that replaces this
	// one.
	layer string
}

// live is one started container and the streams to its agent, which
// carry length-prefixed frames (agent.ReadFrame).
type live struct {
	id      string
	conn    types.HijackedResponse
	in      io.Writer       // to the agent's stdin
	out     io.Reader       // from the agent's stdout
	stderr  *agent.HeadTail // the agent's own diagnostics
	started time.Time
}

// maxFiles bounds the archive of Run.Files, so that its request, in
// base64, stays within the agent's agent.MaxRequest.
const maxFiles = agent.MaxRequest / 2

// NewSession starts a warm container for spec, labelled with the job ctx
// names (WithJob), if any.
func (e *Engine) NewSession(ctx context.Context, spec Spec) (*Session, error) {
	if err := spec.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("sandbox limits: %w", err)
	}
	if changes := spec.Limits.Changes(); len(changes) > 0 {
		e.log.Info("sandbox limits differ from the hardened defaults", "image", spec.Image, "changes", changes)
	}
	agentPath, err := AgentBinary(e.agent)
	if err != nil {
		return nil, err
	}
	s := &Session{engine: e, spec: spec, agent: agentPath, labels: e.labels(ctx)}
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Run runs one command, from the pristine workspace with r.Files laid
// over it. The error is non-nil only when the sandbox itself failed or ctx
// ended; a failing command is a Result with a non-zero ExitCode.
func (s *Session) Run(ctx context.Context, r Run) (Result, error) {
	if len(r.Cmd) == 0 {
		return Result{}, errors.New("sandbox run: empty command")
	}
	req, err := s.request(r)
	if err != nil {
		return Result{}, fmt.Errorf("sandbox run: %w", err)
	}
	timeout := req.Timeout

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live == nil {
		if err := s.restart(ctx); err != nil {
			return Result{}, err
		}
	}
	resp, err := s.exchange(ctx, req, timeout+hostGrace)
	l := s.spec.Limits
	res := Result{Timeout: timeout, Memory: l.ContainerMemory(), Disk: l.Disk, DiskFiles: l.DiskFiles}
	if err != nil {
		return s.failed(ctx, res, err)
	}
	if resp.Error != "" && (resp.ExitCode == 0 || resp.Warm) {
		return res, fmt.Errorf("%w: %s", ErrAgent, resp.Error)
	}
	res.ExitCode = resp.ExitCode
	res.Stdout, res.Stderr = resp.Stdout, resp.Stderr
	res.StdoutBytes, res.StderrBytes = resp.StdoutBytes, resp.StderrBytes
	res.Duration = resp.Duration
	res.TimedOut, res.OOMKilled, res.PidsLimited = resp.TimedOut, resp.OOMKilled, resp.PidsLimited
	res.DiskFull, res.FilesFull = resp.DiskFull, resp.FilesFull
	res.TestReport, res.TestReportBytes = resp.Report, resp.ReportBytes
	res.Warm = resp.Warm
	if resp.Error != "" {
		res.Stderr = append(res.Stderr, []byte("capsule sandbox: "+resp.Error+"\n")...)
	}
	if len(r.ReportFiles) > 0 {
		if res.ReportFiles, err = agent.ReadReportFiles(resp.ReportFiles); err != nil {
			return res, err
		}
		res.ReportFilesCut = resp.ReportFilesCut
	}
	if r.CollectTo != "" {
		if err := extractTo(bytes.NewReader(resp.Workspace), r.CollectTo); err != nil {
			return res, fmt.Errorf("copy workspace out: %w", err)
		}
	}
	if r.Commit && res.Passed() {
		// The replay in a new container only has to bring the workspace
		// back: nothing is collected, no report asked for.
		setup := r
		setup.CollectTo, setup.TestReport, setup.ReportFiles = "", false, nil
		s.setup = &setup
	}
	return res, nil
}

// request is the agent's request for r: its files as an archive, its
// time limit (else the session's) and the session's output bounds.
func (s *Session) request(r Run) (agent.Request, error) {
	overlay, err := FilesArchive(r.Files)
	if err != nil {
		return agent.Request{}, err
	}
	if len(overlay) > maxFiles {
		return agent.Request{}, fmt.Errorf("the files to lay over the workspace take %s, more than the %s one run accepts", limits.FormatBytes(int64(len(overlay))), limits.FormatBytes(maxFiles))
	}
	req := agent.Request{
		Argv:        r.Cmd,
		Env:         r.Env,
		Dir:         r.Dir,
		Timeout:     s.spec.Limits.Timeout,
		OutputLimit: s.spec.Limits.OutputLimit,
		Files:       overlay,
		Delete:      r.Delete,
		Collect:     r.CollectTo != "",
		Commit:      r.Commit,
		Report:      r.TestReport,
		ReportFiles: r.ReportFiles,
		Warm:        r.Warm,
	}
	if r.Timeout > 0 {
		req.Timeout = r.Timeout
	}
	if req.Collect {
		req.CollectLimit = collectLimit(s.spec.Limits)
	}
	return req, nil
}

// CutNetwork disconnects the container from every network, for good: a
// set-up phase may fetch dependencies, the tests that follow may not.
func (s *Session) CutNetwork(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offline = true
	if s.live == nil {
		return nil
	}
	return s.engine.disconnect(ctx, s.live.id)
}

// disconnect removes a container from all its networks.
func (e *Engine) disconnect(ctx context.Context, id string) error {
	info, err := e.cli.ContainerInspect(ctx, id)
	if err != nil {
		return fmt.Errorf("inspect sandbox container: %w", err)
	}
	if info.NetworkSettings == nil {
		return nil
	}
	for name := range info.NetworkSettings.Networks {
		if name == "none" {
			continue
		}
		if err := e.cli.NetworkDisconnect(ctx, name, id, true); err != nil {
			return fmt.Errorf("disconnect the sandbox from network %s: %w", name, err)
		}
	}
	return nil
}

// failed handles a run whose agent did not answer: the container is
// killed and removed (the next Run starts a new one), and the result says
// why when the reason is known.
func (s *Session) failed(ctx context.Context, res Result, cause error) (Result, error) {
	l := s.live
	s.live = nil
	state := s.engine.inspectState(l.id)
	s.engine.remove(l.id)
	l.conn.Close()
	res.ExitCode = -1 // unless known below: a caller that skips the error must not see a pass
	switch {
	case ctx.Err() != nil:
		return res, ctx.Err()
	case errors.Is(cause, agent.ErrFrame):
		// Whatever the container's state, a malformed answer is never a
		// result.
	case errors.Is(cause, errHostTimeout):
		res.TimedOut, res.ExitCode = true, 124
		return res, nil
	case state != nil && state.OOMKilled:
		res.OOMKilled, res.ExitCode = true, 137
		return res, nil
	}
	return res, fmt.Errorf("%w: %w; agent said: %s", ErrAgent, cause, bytes.TrimSpace(l.stderr.Bytes()))
}

var errHostTimeout = errors.New("agent did not answer in time")

// collectLimit bounds the workspace archive of a run under l: the quota's
// bytes, and a tar header and padding for each file.
func collectLimit(l Limits) int64 { return l.Disk + 2<<10*l.DiskFiles + 1<<10 }

// exchange sends req and waits for the answer, for at most wait. An answer
// that is not one well-formed frame of the size req allows is an error
// wrapping agent.ErrFrame.
func (s *Session) exchange(ctx context.Context, req agent.Request, wait time.Duration) (agent.Response, error) {
	l := s.live
	type answer struct {
		resp agent.Response
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		var a answer
		if a.err = agent.WriteFrame(l.in, req, agent.MaxRequest); a.err == nil {
			a.err = agent.ReadFrame(l.out, agent.ResponseLimit(req), &a.resp)
		}
		if a.err == nil {
			a.err = agent.CheckAnswer(req, a.resp)
		}
		done <- a
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case a := <-done:
		return a.resp, a.err
	case <-timer.C:
		return agent.Response{}, errHostTimeout
	case <-ctx.Done():
		return agent.Response{}, ctx.Err()
	}
}

// Close removes the session's container. It is safe to call twice.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live != nil {
		s.live.conn.Close()
		s.engine.remove(s.live.id)
		s.live = nil
	}
	return nil
}

// restart starts a new container and brings it to where the old one was:
// the committed set-up run replayed (or the restored set-up copied), the
// network cut.
func (s *Session) restart(ctx context.Context) error {
	if err := s.start(ctx); err != nil {
		return err
	}
	if s.layer != "" {
		if err := s.copyLayer(ctx, s.layer); err != nil {
			return err
		}
	}
	if s.setup != nil {
		req, err := s.request(*s.setup)
		var resp agent.Response
		if err == nil {
			resp, err = s.exchange(ctx, req, req.Timeout+hostGrace)
		}
		if err == nil && resp.ExitCode != 0 {
			err = fmt.Errorf("exit status %d", resp.ExitCode)
		}
		if err != nil {
			return fmt.Errorf("%w: replay the set-up run in a new container: %w", ErrAgent, err)
		}
	}
	if s.offline {
		return s.engine.disconnect(ctx, s.live.id)
	}
	return nil
}

// start creates the container, seeds its volume, attaches to the agent's
// streams, starts it and waits for the agent's greeting.
func (s *Session) start(ctx context.Context) (err error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	e := s.engine
	cfg, host := containerConfig(s.spec, s.labels)
	// The create request runs to its answer even when ctx ends: the engine
	// may have made the container before the cancellation reached it, and
	// only the answer names it for removal.
	createCtx, cancelCreate := context.WithTimeout(context.WithoutCancel(ctx), startTimeout)
	created, err := e.cli.ContainerCreate(createCtx, cfg, host, nil, nil, "")
	cancelCreate()
	if err != nil {
		if isNotFound(err) {
			return fmt.Errorf("%w: %s: %w", ErrImageNotFound, s.spec.Image, err)
		}
		return fmt.Errorf("create sandbox container: %w", err)
	}
	id := created.ID
	e.track(id)
	defer func() {
		if err != nil {
			e.remove(id)
		}
	}()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("create sandbox container: %w", err)
	}

	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(writeSeed(pw, s.agent, s.spec))
	}()
	if err := e.cli.CopyToContainer(ctx, id, agent.Root, pr, container.CopyToContainerOptions{}); err != nil {
		pr.CloseWithError(err)
		if errors.Is(err, ErrWorkspace) || errors.Is(err, ErrAgent) {
			return err
		}
		return fmt.Errorf("copy workspace into the sandbox: %w", err)
	}

	conn, err := e.cli.ContainerAttach(ctx, id, container.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		return fmt.Errorf("attach to sandbox container: %w", err)
	}
	outR, outW := io.Pipe()
	l := &live{id: id, conn: conn, in: conn.Conn, out: outR, stderr: agent.NewHeadTail(64 << 10)}
	go func() {
		_, err := stdcopy.StdCopy(outW, l.stderr, conn.Reader)
		outW.CloseWithError(err)
	}()

	if err := e.cli.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
		conn.Close()
		return fmt.Errorf("start sandbox container: %w", err)
	}
	greeting := make(chan error, 1)
	go func() {
		var hello agent.Response
		err := agent.ReadFrame(l.out, agent.MaxGreeting, &hello)
		if err == nil && (!hello.Ready || hello.Protocol != agent.ProtocolVersion) {
			err = fmt.Errorf("unexpected greeting (protocol %d, want %d)", hello.Protocol, agent.ProtocolVersion)
		}
		greeting <- err
	}()
	select {
	case err = <-greeting:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		conn.Close()
		return fmt.Errorf("%w: no greeting from the agent in %s: %w; agent said: %s", ErrAgent, s.spec.Image, err, bytes.TrimSpace(l.stderr.Bytes()))
	}
	l.started = time.Now()
	s.live = l
	return nil
}

// inspectState returns the container's state, or nil when it cannot be
// read.
func (e *Engine) inspectState(id string) *container.State {
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	info, err := e.cli.ContainerInspect(ctx, id)
	if err != nil || info.ContainerJSONBase == nil {
		return nil
	}
	return info.State
}

// Run is the cold path: one container for one command, removed after.
func (e *Engine) Run(ctx context.Context, spec Spec, r Run) (Result, error) {
	s, err := e.NewSession(ctx, spec)
	if err != nil {
		return Result{}, err
	}
	defer s.Close()
	return s.Run(ctx, r)
}
