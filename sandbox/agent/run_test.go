//go:build linux

package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestProcAttr(t *testing.T) {
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	for _, u := range [][2]int{{10001, 10001}, {5, 7}, {0, 0}} {
		attr := procAttr("/w", []string{"A=1"}, files, u[0], u[1])
		sys, cred := attr.Sys, attr.Sys.Credential
		if attr.Dir != "/w" || !slices.Equal(attr.Env, []string{"A=1"}) || !slices.Equal(attr.Files, files) {
			t.Errorf("%v: dir %q, env %q, files %v", u, attr.Dir, attr.Env, attr.Files)
		}
		if !sys.Setpgid || sys.Pgid != 0 {
			t.Errorf("%v: not a process group of its own: %+v", u, sys)
		}
		if cred == nil || int(cred.Uid) != u[0] || int(cred.Gid) != u[1] || cred.Groups == nil || len(cred.Groups) != 0 || cred.NoSetGroups {
			t.Errorf("%v: credential %+v, want the user with no supplementary groups", u, cred)
		}
		if sys.Chroot != "" || sys.Setsid || sys.Setctty || sys.Foreground || sys.Noctty || sys.AmbientCaps != nil || sys.UidMappings != nil || sys.Pdeathsig != 0 {
			t.Errorf("%v: unexpected attributes %+v", u, sys)
		}
	}
}

// A command runs as the box's user: root drops to it, anyone else is
// refused by the kernel rather than running it as themselves.
func TestRunDropsTheUser(t *testing.T) {
	b := newTestBox(t)
	b.uid, b.gid = 65534, 65533
	// Let the sandbox user into the workspace.
	for d := b.workspace; d != filepath.Clean(os.TempDir()) && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	resp := b.run(Request{Argv: []string{"sh", "-c", "id -u; id -g; id -G"}, Timeout: 10 * time.Second, OutputLimit: 1 << 10})
	if len(b.starts) != 1 {
		t.Fatalf("%d starts", len(b.starts))
	}
	if cred := b.starts[0].Sys.Credential; cred.Uid != 65534 || cred.Gid != 65533 || len(cred.Groups) != 0 {
		t.Errorf("credential %+v", cred)
	}
	if os.Geteuid() == 0 {
		if resp.ExitCode != 0 || string(resp.Stdout) != "65534\n65533\n65533\n" {
			t.Errorf("as root: exit %d, stdout %q, error %q; want the sandbox user and group only", resp.ExitCode, resp.Stdout, resp.Error)
		}
		return
	}
	if resp.ExitCode != 126 || !strings.Contains(resp.Error, "operation not permitted") {
		t.Errorf("as user %d: exit %d, error %q; want the start refused", os.Geteuid(), resp.ExitCode, resp.Error)
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		req      Request
		exit     int
		stdout   string // "" for any; "=" prefix for exact
		stderr   string
		bytes    int64 // StdoutBytes, when not 0
		timedOut bool
		err      string
		maxTime  time.Duration
	}{
		{name: "exit 0", req: Request{Argv: []string{"true"}}, exit: 0},
		{name: "an exit code", req: Request{Argv: []string{"sh", "-c", "exit 3"}}, exit: 3},
		{name: "a signal", req: Request{Argv: []string{"sh", "-c", "kill -TERM $$"}}, exit: 128 + 15},
		{name: "both streams", req: Request{Argv: []string{"sh", "-c", "echo out; echo err >&2"}}, stdout: "=out\n", stderr: "=err\n"},
		{name: "no standard input", req: Request{Argv: []string{"cat"}}, stdout: "="},
		{name: "an empty command", req: Request{}, exit: 127, err: "empty command"},
		{name: "a command not found", req: Request{Argv: []string{"capsule-no-such-command"}}, exit: 127, err: "command not found"},
		{name: "a path that cannot start", req: Request{Argv: []string{"./missing"}}, exit: 126, err: "start ./missing"},
		{name: "an absolute path", req: Request{Argv: []string{"/bin/sh", "-c", "echo $0"}}, stdout: "=/bin/sh\n"},
		{name: "the environment added", req: Request{Argv: []string{"sh", "-c", "echo $CAPSULE_X"}, Env: []string{"CAPSULE_X=1", "CAPSULE_X=2"}}, stdout: "=2\n"},
		{name: "the PATH replaced", req: Request{Argv: []string{"sh"}, Env: []string{"PATH=/nowhere"}}, exit: 127, err: "command not found"},
		{name: "in the workspace", req: Request{Argv: []string{"pwd"}}, stdout: "workspace\n"},
		{name: "in a directory of it", req: Request{Argv: []string{"pwd"}, Dir: "sub"}, stdout: "workspace/sub\n"},
		{name: "a directory above it stays in it", req: Request{Argv: []string{"pwd"}, Dir: "../../.."}, stdout: "workspace\n"},
		{name: "an absolute directory stays in it", req: Request{Argv: []string{"pwd"}, Dir: "/sub"}, stdout: "workspace/sub\n"},
		{
			name: "the output capped", req: Request{Argv: []string{"sh", "-c", "head -c 100000 /dev/zero | tr '\\0' a; echo END"}, OutputLimit: 100},
			stdout: "=" + strings.Repeat("a", 50) + "\n[... 99904 bytes of output omitted ...]\n" + strings.Repeat("a", 46) + "END\n", bytes: 100004,
		},
		{
			name: "no output kept", req: Request{Argv: []string{"sh", "-c", "echo lost"}, OutputLimit: 0},
			stdout: "=\n[... 5 bytes of output omitted ...]\n", bytes: 5,
		},
		{
			name: "a timeout", req: Request{Argv: []string{"sh", "-c", "echo before; exec sleep 30"}, Timeout: 200 * time.Millisecond},
			exit: 128 + 9, timedOut: true, stdout: "=before\n", maxTime: 5 * time.Second,
		},
		{name: "no timeout: the longest", req: Request{Argv: []string{"sh", "-c", "sleep 0.3; echo slept"}, Timeout: -1}, stdout: "=slept\n"},
		{
			name: "leftovers killed", req: Request{Argv: []string{"sh", "-c", "sleep 30 & echo started"}},
			stdout: "=started\n", maxTime: 5 * time.Second,
		},
		{
			name: "a timeout with leftovers", req: Request{Argv: []string{"sh", "-c", "sleep 30 & sleep 30"}, Timeout: 200 * time.Millisecond},
			exit: 128 + 9, timedOut: true, maxTime: 5 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTestBox(t)
			if err := os.Mkdir(filepath.Join(b.workspace, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			req := tt.req
			if req.OutputLimit == 0 && !strings.HasPrefix(tt.name, "no output") {
				req.OutputLimit = 1 << 10
			}
			if req.Timeout == 0 {
				req.Timeout = 10 * time.Second
			}
			start := time.Now()
			resp := b.run(req)
			took := time.Since(start)
			if resp.ExitCode != tt.exit || resp.TimedOut != tt.timedOut {
				t.Errorf("exit %d, timed out %v; want %d, %v (error %q, stderr %q)", resp.ExitCode, resp.TimedOut, tt.exit, tt.timedOut, resp.Error, resp.Stderr)
			}
			if tt.err == "" && resp.Error != "" || !strings.Contains(resp.Error, tt.err) {
				t.Errorf("error %q, want %q", resp.Error, tt.err)
			}
			checkOutput(t, "stdout", string(resp.Stdout), tt.stdout)
			checkOutput(t, "stderr", string(resp.Stderr), tt.stderr)
			if tt.bytes != 0 && resp.StdoutBytes != tt.bytes {
				t.Errorf("stdout bytes %d, want %d", resp.StdoutBytes, tt.bytes)
			}
			if int64(len(resp.Stdout)) > int64(req.OutputLimit)+maxMarker || int64(len(resp.Stderr)) > int64(req.OutputLimit)+maxMarker {
				t.Errorf("kept %d and %d bytes, over the limit of %d", len(resp.Stdout), len(resp.Stderr), req.OutputLimit)
			}
			if tt.maxTime > 0 && took > tt.maxTime {
				t.Errorf("took %v, want less than %v", took, tt.maxTime)
			}
			if resp.Duration > took {
				t.Errorf("duration %v, longer than the run's %v", resp.Duration, took)
			}
			for _, pid := range b.pids {
				if err := syscall.Kill(-pid, 0); err != syscall.ESRCH {
					t.Errorf("the process group of the command: %v, want it gone", err)
				}
			}
		})
	}
}

// checkOutput compares an output with want: "" accepts any, "=" prefixes
// an exact value, anything else is a suffix.
func checkOutput(t *testing.T, stream, got, want string) {
	t.Helper()
	switch {
	case want == "":
	case strings.HasPrefix(want, "="):
		if got != want[1:] {
			t.Errorf("%s %q, want %q", stream, got, want[1:])
		}
	case !strings.HasSuffix(got, want) && !strings.HasPrefix(got, want):
		t.Errorf("%s %q, want it to start or end with %q", stream, got, want)
	}
}

// Processes that survive every kill are reported once the grace is over.
// (One that kept the output pipes open would hold the answer back until
// it ended: the agent reads the output to its end.)
func TestRunReportsSurvivors(t *testing.T) {
	b := newTestBox(t)
	kill := b.killOthers
	b.killGrace = 300 * time.Millisecond
	b.killOthers = func() error { return nil } // signals nothing
	resp := b.run(Request{Argv: []string{"sh", "-c", "sleep 30 >/dev/null 2>&1 & echo started"}, Timeout: 10 * time.Second, OutputLimit: 100})
	if resp.ExitCode != 0 || string(resp.Stdout) != "started\n" || resp.Error != "processes survived the clean-up after the run" {
		t.Errorf("error %q, want the survivors reported", resp.Error)
	}
	// Let the reaper of that run end before the next test starts a child.
	if err := kill(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); err == syscall.ECHILD {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the leftover process was not reaped")
		}
	}
}

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir,
		entry{name: "a/tool", content: "#!/bin/sh\n", mode: 0o755},
		entry{name: "b/tool", content: "#!/bin/sh\n", mode: 0o755},
		entry{name: "a/plain", content: "not executable"},
		entry{name: "b/plain", content: "#!/bin/sh\n", mode: 0o700},
		entry{name: "a/dir", dir: true, mode: 0o755},
	)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	tests := []struct {
		file, path, want string
	}{
		{"tool", a + ":" + b, filepath.Join(a, "tool")},
		{"tool", b + ":" + a, filepath.Join(b, "tool")},
		{"plain", a + ":" + b, filepath.Join(b, "plain")},
		{"dir", a, ""},
		{"tool", "", ""},
		{"tool", ":" + a, filepath.Join(a, "tool")},
		{"../a/tool", "", "../a/tool"},
		{"/bin/anything", "", "/bin/anything"},
	}
	for _, tt := range tests {
		got, err := lookPath(tt.file, tt.path)
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("lookPath(%q, %q) = %q, %v; want %q", tt.file, tt.path, got, err, tt.want)
		}
	}
}

func TestMergeEnv(t *testing.T) {
	tests := []struct {
		base, extra, want []string
		path              string
	}{
		{[]string{"PATH=/bin", "A=1"}, nil, []string{"PATH=/bin", "A=1"}, "/bin"},
		{[]string{"PATH=/bin", "A=1"}, []string{"A=2", "B=3"}, []string{"PATH=/bin", "A=2", "B=3"}, "/bin"},
		{[]string{"A=1", "A=2"}, []string{"PATH=/x", "PATH=/y"}, []string{"A=2", "PATH=/y"}, "/y"},
		{nil, []string{"NOVALUE", "PATH"}, []string{"NOVALUE", "PATH"}, ""},
		{[]string{"PATHX=/bin"}, []string{"A=b=c"}, []string{"PATHX=/bin", "A=b=c"}, ""},
	}
	for _, tt := range tests {
		got := mergeEnv(tt.base, tt.extra)
		if !slices.Equal(got, tt.want) {
			t.Errorf("mergeEnv(%q, %q) = %q, want %q", tt.base, tt.extra, got, tt.want)
		}
		if p := envValue(got, "PATH"); p != tt.path {
			t.Errorf("PATH of %q = %q, want %q", got, p, tt.path)
		}
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		ws   syscall.WaitStatus
		want int
	}{
		{0, 0},
		{3 << 8, 3},
		{255 << 8, 255},
		{syscall.WaitStatus(syscall.SIGKILL), 137},
		{syscall.WaitStatus(syscall.SIGSEGV) | 0x80, 139},   // core dumped
		{0x7f | syscall.WaitStatus(syscall.SIGSTOP)<<8, -1}, // stopped
	}
	for _, tt := range tests {
		if got := exitCode(tt.ws); got != tt.want {
			t.Errorf("exitCode(%#x) = %d, want %d", uint32(tt.ws), got, tt.want)
		}
	}
}

// handle puts the pieces together: a failed reset answers 126 without
// running, a commit needs a clean exit, a collect needs no agent error.
func TestHandle(t *testing.T) {
	ok := []string{"sh", "-c", "echo new > new.txt"}
	tests := []struct {
		name      string
		req       Request
		exit      int
		err       string
		committed bool
		archive   bool
	}{
		{name: "a run", req: Request{Argv: ok}},
		{name: "a bad reset", req: Request{Argv: ok, Delete: []string{"../x"}}, exit: 126, err: "prepare workspace: delete \"../x\": outside the workspace"},
		{name: "a commit", req: Request{Argv: ok, Commit: true}, committed: true},
		{name: "a commit of a failed run", req: Request{Argv: []string{"false"}, Commit: true}, exit: 1},
		{name: "a commit of a run that timed out", req: Request{Argv: []string{"sleep", "30"}, Commit: true, Timeout: 100 * time.Millisecond}, exit: 137},
		{name: "a commit of a run that did not start", req: Request{Argv: []string{"capsule-no-such-command"}, Commit: true}, exit: 127, err: "command not found"},
		{name: "a collect", req: Request{Argv: ok, Collect: true, CollectLimit: 1 << 20}, archive: true},
		{name: "a collect over its limit", req: Request{Argv: ok, Collect: true, CollectLimit: 100}, err: "collect workspace: the workspace archive is larger than the limit"},
		{name: "a collect after an agent error", req: Request{Argv: []string{"capsule-no-such-command"}, Collect: true, CollectLimit: 1 << 20}, exit: 127, err: "command not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTestBox(t)
			makeTree(t, b.base, entry{name: "a.txt", content: "a"})
			req := tt.req
			req.OutputLimit = 1 << 10
			if req.Timeout == 0 {
				req.Timeout = 10 * time.Second
			}
			resp := b.handle(req)
			if resp.ExitCode != tt.exit || !strings.Contains(resp.Error, tt.err) || tt.err == "" && resp.Error != "" {
				t.Errorf("exit %d, error %q; want %d, %q", resp.ExitCode, resp.Error, tt.exit, tt.err)
			}
			if b.committed != tt.committed {
				t.Errorf("committed %v, want %v", b.committed, tt.committed)
			}
			if tt.committed {
				if got := tree(t, b.layer); !slices.Equal(got, []string{"a.txt=a", "new.txt=new\n"}) {
					t.Errorf("layer %q", got)
				}
			}
			if (len(resp.Workspace) > 0) != tt.archive {
				t.Errorf("an archive of %d bytes, want one %v", len(resp.Workspace), tt.archive)
			}
			if err := CheckAnswer(req, resp); err != nil {
				t.Errorf("the answer would be refused: %v", err)
			}
			if resp.Duration <= 0 && tt.exit != 126 && tt.exit != 127 {
				t.Errorf("duration %v", resp.Duration)
			}
		})
	}
}

// A run that asks for the report channel gets what its processes sent,
// once they are all gone.
func TestHandleReport(t *testing.T) {
	b := newTestBox(t)
	resp := b.handle(Request{
		Argv:        []string{os.Args[0], "-test.run=^TestChannelPeerPID$"},
		Env:         []string{"CAPSULE_CHANNEL_CHILD=" + b.channelSocket},
		Timeout:     30 * time.Second,
		OutputLimit: 1 << 10,
		Report:      true,
	})
	if resp.ExitCode != 0 || resp.Error != "" {
		t.Fatalf("exit %d, error %q, stderr %q", resp.ExitCode, resp.Error, resp.Stderr)
	}
	recs := records(t, resp.Report)
	if len(recs) != 2 || recs[0].Line == nil || !strings.HasPrefix(*recs[0].Line, "child ") || !recs[1].Closed {
		t.Errorf("report %s", resp.Report)
	}
	if *recs[0].Line != fmt.Sprintf("child %d", recs[0].PID) || resp.ReportBytes != int64(len(resp.Report)) {
		t.Errorf("report %s of %d bytes", resp.Report, resp.ReportBytes)
	}
	fi, err := os.Stat(b.channelDir)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("channel directory %v, %v", fi.Mode(), err)
	}
	if resp := b.handle(Request{Argv: []string{"true"}, Timeout: time.Second}); len(resp.Report) > 0 {
		t.Errorf("a report not asked for: %s", resp.Report)
	}
}
