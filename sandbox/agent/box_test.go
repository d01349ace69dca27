//go:build linux

package agent

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

var subreaper sync.Once

// testBox is a box in a temporary directory whose commands run as the
// test's own user and whose container-wide calls reach only the test's
// own children: killOthers kills the process group of the last command
// started, removeIPC removes nothing. starts records the attributes every
// command was started with.
type testBox struct {
	*box
	dir    string
	starts []*os.ProcAttr
	pids   []int // of the commands started
	ipc    []int // the users removeIPC was called as
}

func newTestBox(t *testing.T) *testBox {
	t.Helper()
	subreaper.Do(func() {
		// Orphans come back to the test, as they come back to the agent,
		// process 1, in the container; run's reaper waits for them all.
		const prSetChildSubreaper = 36
		if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
			t.Fatalf("prctl(PR_SET_CHILD_SUBREAPER): %v", errno)
		}
	})
	dir := t.TempDir()
	uid, gid := os.Getuid(), os.Getgid()
	tb := &testBox{dir: dir}
	pgid := 0
	tb.box = &box{
		uid: uid, gid: gid,
		workspace: filepath.Join(dir, "workspace"),
		base:      filepath.Join(dir, "base"),
		layer:     filepath.Join(dir, "layer"),
		scratch: []place{
			{filepath.Join(dir, "tmp"), 0o777 | fs.ModeSticky, uid, gid},
			{filepath.Join(dir, "shm"), 0o770, uid, gid},
			{filepath.Join(dir, "absent"), 0o777, uid, gid},
		},
		channelDir:    filepath.Join(dir, "channel"),
		channelSocket: filepath.Join(dir, "channel", "report.sock"),
		channelLimits: testLimits,
		removeIPC: func(uid int) error {
			tb.ipc = append(tb.ipc, uid)
			return nil
		},
		startProcess: func(name string, argv []string, attr *os.ProcAttr) (*os.Process, error) {
			tb.starts = append(tb.starts, attr)
			cred := attr.Sys.Credential
			if os.Geteuid() != 0 && cred != nil && int(cred.Uid) == os.Getuid() && int(cred.Gid) == os.Getgid() {
				// Only root may set the supplementary groups, even to
				// none; a credential that keeps the test's own user
				// changes nothing else.
				sys := *attr.Sys
				sys.Credential = nil
				copied := *attr
				copied.Sys = &sys
				attr = &copied
			}
			p, err := os.StartProcess(name, argv, attr)
			if err == nil {
				pgid = p.Pid
				tb.pids = append(tb.pids, p.Pid)
			}
			return p, err
		},
		killOthers: func() error {
			if pgid == 0 {
				return syscall.ESRCH
			}
			return syscall.Kill(-pgid, syscall.SIGKILL)
		},
		killGrace: 5 * time.Second,
	}
	for _, d := range []string{tb.workspace, tb.base, tb.layer, tb.scratch[0].dir, tb.scratch[1].dir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return tb
}

// The agent's own box is the container's: its paths, root's scratch
// places open to all with the sticky bit, commands run as the user asked.
func TestNewBox(t *testing.T) {
	b := newBox(10001, 10002)
	if b.uid != 10001 || b.gid != 10002 {
		t.Errorf("user %d:%d, want 10001:10002", b.uid, b.gid)
	}
	if b.workspace != Workspace || b.base != Base || b.layer != Layer || b.channelDir != ChannelDir || b.channelSocket != ChannelSocket {
		t.Errorf("places %q %q %q %q %q", b.workspace, b.base, b.layer, b.channelDir, b.channelSocket)
	}
	if b.channelLimits != defaultChannelLimits || b.killGrace != killGrace || b.committed {
		t.Errorf("limits %+v, grace %v, committed %v", b.channelLimits, b.killGrace, b.committed)
	}
	var dirs []string
	for _, p := range b.scratch {
		dirs = append(dirs, p.dir)
		if p.mode != 0o777|fs.ModeSticky || p.uid != 0 || p.gid != 0 {
			t.Errorf("scratch %s: mode %v, owner %d:%d, want root's 1777", p.dir, p.mode, p.uid, p.gid)
		}
	}
	if !slices.Equal(dirs, []string{TmpDir, ShmDir, MqueueDir}) {
		t.Errorf("scratch %q", dirs)
	}
	if b.removeIPC == nil || b.startProcess == nil || b.killOthers == nil {
		t.Error("a container-wide call is missing")
	}
}
