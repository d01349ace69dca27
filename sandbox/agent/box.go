//go:build linux

package agent

import (
	"io/fs"
	"os"
	"syscall"
	"time"
)

// box is the container the agent supervises: where the workspace and the
// scratch places are, who runs the commands, and the calls that act on
// the whole container (killing every other process, removing every System
// V IPC object). Main uses newBox's; tests point the places at a temporary
// directory and the container-wide calls at their own children, so that
// they never act on the machine that runs them.
type box struct {
	uid, gid int // who runs the commands and owns the workspace

	workspace, base, layer string
	// layerMark is the file whose presence makes layer the starting
	// state (LayerMark).
	layerMark string
	// scratch are the places every run may write besides the workspace,
	// each emptied before a run and given back its mode and owner.
	scratch                   []place
	channelDir, channelSocket string
	channelLimits             channelLimits

	// committed records that layer holds the starting state.
	committed bool

	// removeIPC removes every System V IPC object, acting as uid.
	removeIPC func(uid int) error
	// startProcess starts a command, as os.StartProcess does.
	startProcess func(name string, argv []string, attr *os.ProcAttr) (*os.Process, error)
	// killOthers sends SIGKILL to every process but the agent.
	killOthers func() error
	// killGrace bounds how long the agent keeps killing leftover
	// processes after a run before it gives up and reports them.
	killGrace time.Duration

	// warmDir holds the warm parent's files; warm is the parent, when
	// one runs.
	warmDir string
	warm    *warmParent
	// processes lists every process of the container, by pid; nil keeps
	// every run from the warm parent (Request.Warm), whose clean-up
	// needs it.
	processes func() ([]int, error)
}

// place is a directory that a run may write and that the agent empties
// before every run, then gives back its mode and owner.
type place struct {
	dir      string
	mode     fs.FileMode
	uid, gid int
}

// newBox returns the container the agent runs in, its commands run by
// uid and gid.
func newBox(uid, gid int) *box {
	return &box{
		uid: uid, gid: gid,
		workspace: Workspace, base: Base, layer: Layer, layerMark: LayerMark,
		scratch: []place{
			{TmpDir, 0o777 | fs.ModeSticky, 0, 0},
			{ShmDir, 0o777 | fs.ModeSticky, 0, 0},
			{MqueueDir, 0o777 | fs.ModeSticky, 0, 0},
		},
		channelDir: ChannelDir, channelSocket: ChannelSocket, channelLimits: defaultChannelLimits,
		removeIPC:    removeIPC,
		startProcess: os.StartProcess,
		// kill(-1) never signals its caller, and the agent, root with
		// CAP_KILL, may signal every command's processes.
		killOthers: func() error { return syscall.Kill(-1, syscall.SIGKILL) },
		killGrace:  killGrace,
		warmDir:    WarmDir,
		processes:  containerProcesses,
	}
}
