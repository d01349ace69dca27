package sandbox

import (
	"fmt"
	"maps"
	"slices"

	"github.com/capsulehq/capsule/sandbox/agent"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
)

// Labels that mark Capsule's containers, so that leftovers of a crashed
// process can be found and removed.
const (
	LabelManaged = "dev.capsule.managed"
	LabelOwner   = "dev.capsule.owner"
	LabelVersion = "dev.capsule.version"
)

// cpuPeriod is the CFS period of the CPU limit, in microseconds.
const cpuPeriod = 10_000

// agentCaps are the only capabilities of the container, which the agent
// alone uses: it runs as root so that the commands, run as SandboxUser,
// cannot reach it. SETUID and SETGID drop each command to that user; KILL
// ends what a run left behind; CHOWN, FOWNER and DAC_OVERRIDE give the
// restored workspace to the sandbox user and undo what a run locked. A
// command leaving uid 0 loses them all.
var agentCaps = []string{"CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID"}

// AgentSubcommand is the hidden argument that makes the Capsule binary act
// as the in-container agent. cmd/capsule dispatches on it.
const AgentSubcommand = "__sandbox-agent"

// baseEnv is the environment every run starts from, on top of the image's.
var baseEnv = []string{
	"HOME=" + agent.TmpDir,
	"TMPDIR=" + agent.TmpDir,
	"USER=sandbox",
	"LANG=C.UTF-8",
	"PYTHONUNBUFFERED=1",
	"PYTHONDONTWRITEBYTECODE=1",
	// `pip install --user` in a set-up phase lands in the workspace, so a
	// committed set-up keeps it; Debian's pip needs leave to install there.
	"PYTHONUSERBASE=" + agent.UserBase,
	"PIP_BREAK_SYSTEM_PACKAGES=1",
	"PIP_NO_WARN_SCRIPT_LOCATION=1",
}

// Spec describes a sandbox container.
type Spec struct {
	// Image is the image reference, used exactly as given.
	Image string
	// Workspace is a host directory copied into the container as the
	// pristine workspace; empty means an empty workspace.
	Workspace string
	// Exclude names directories of Workspace left out at any depth, such
	// as ".git".
	Exclude []string
	// Helpers are files every run may read and none may write, such as a
	// test runner's plugin, which the caller brings: keyed by clean
	// slash-separated paths relative to agent.PluginDir, where they are
	// laid out root's, files mode 0444 and directories 0555.
	Helpers map[string][]byte
	// Env holds KEY=VALUE pairs set for every run.
	Env    []string
	Limits Limits
}

// containerConfig turns a spec into Docker's container and host
// configuration. It is pure, so it can be tested without an engine.
func containerConfig(spec Spec, labels map[string]string) (*container.Config, *container.HostConfig) {
	l := spec.Limits
	runAs := SandboxUser
	if l.Root {
		runAs = "0:0"
	}
	cfg := &container.Config{
		Image:           spec.Image,
		Entrypoint:      []string{agent.Binary, AgentSubcommand, runAs},
		Cmd:             nil,
		User:            "0:0", // the agent; it drops every command to runAs
		Env:             append(slices.Clone(baseEnv), spec.Env...),
		WorkingDir:      agent.Workspace,
		Labels:          maps.Clone(labels),
		AttachStdin:     true,
		AttachStdout:    true,
		AttachStderr:    true,
		OpenStdin:       true,
		StdinOnce:       false,
		Tty:             false,
		NetworkDisabled: !l.Network,
	}
	network := container.NetworkMode("none")
	if l.Network {
		network = "bridge"
	}
	pids := l.Pids
	uid, gid, _ := agent.ParseUser(runAs) // one of two constants
	host := &container.HostConfig{
		NetworkMode:    network,
		ReadonlyRootfs: !l.WritableRoot,
		// The workspace is a tmpfs, the disk quota, mounted inside the
		// volume that brings the agent and the pristine base in.
		Tmpfs: map[string]string{
			agent.TmpDir: fmt.Sprintf("rw,nosuid,nodev,size=%d,mode=1777", l.TmpSize),
			agent.Workspace: fmt.Sprintf("rw,exec,nosuid,nodev,size=%d,nr_inodes=%d,mode=0755,uid=%d,gid=%d",
				l.Disk, l.DiskFiles, uid, gid),
		},
		ShmSize: l.TmpSize,
		Mounts:  []mount.Mount{{Type: mount.TypeVolume, Target: agent.Root}},
		Resources: container.Resources{
			Memory:     l.ContainerMemory(),
			MemorySwap: l.ContainerMemory(), // equal to Memory: no swap
			// A CPU limit as a quota per short period: with Docker's usual
			// 100 ms period, a brief burst over one core (an interpreter
			// starting while the agent drains output) is throttled for
			// the rest of the period, which doubled the time of short test
			// runs; a 10 ms period keeps the limit and the latency low.
			CPUPeriod: cpuPeriod,
			CPUQuota:  int64(l.CPUs * cpuPeriod),
			PidsLimit: &pids,
		},
		LogConfig:  container.LogConfig{Type: "none"},
		AutoRemove: false,
	}
	if !l.KeepCaps {
		host.CapDrop = []string{"ALL"}
		host.CapAdd = slices.Clone(agentCaps)
	}
	host.SecurityOpt = []string{"no-new-privileges"}
	return cfg, host
}
