// Package sandbox runs commands inside hardened Docker containers.
//
// A Session keeps one container warm for many runs; each run starts from the
// same state (workspace files, processes, environment), which the in-container
// agent (package sandbox/agent) restores. Engine.Run is the cold path: one
// container per run.
package sandbox

import (
	"fmt"
	"time"

	"github.com/capsulehq/capsule/sandbox/agent"
	"github.com/capsulehq/capsule/sandbox/limits"
)

// The hardened defaults. A caller may change any of them through Limits;
// every change is reported by Limits.Changes and logged, never silent.
const (
	DefaultMemory      = 512 << 20 // bytes of memory, with no swap on top
	DefaultCPUs        = 1.0
	DefaultPids        = 256
	DefaultTimeout     = 30 * time.Second
	DefaultOutputLimit = 1 << 20 // bytes kept of each of stdout and stderr
	DefaultTmpSize     = 64 << 20
	DefaultDisk        = 1 << 30 // bytes a run may have in its workspace
	DefaultDiskFiles   = 100_000 // files and directories in the workspace
	// SandboxUser is the numeric user and group that runs every command in
	// the container (the agent itself runs as root with a few
	// capabilities); it needs no entry in the image's /etc/passwd.
	SandboxUser = agent.RunAs
)

// Limits are the isolation settings of a sandbox container.
type Limits struct {
	Network      bool          // attach to the default bridge network
	WritableRoot bool          // leave the root filesystem writable
	Root         bool          // run commands as root instead of SandboxUser
	KeepCaps     bool          // keep Docker's default capabilities
	Memory       int64         // bytes for the processes; swap is none (see ContainerMemory)
	CPUs         float64       // cores
	Pids         int64         // processes and threads
	Timeout      time.Duration // wall-clock time of one run
	OutputLimit  int           // bytes kept of each output stream
	TmpSize      int64         // bytes of each of the /tmp and /dev/shm tmpfs
	// Disk and DiskFiles bound the workspace, a tmpfs: bytes, and files
	// and directories. A run that writes more gets ENOSPC.
	Disk      int64
	DiskFiles int64
}

// ContainerMemory is the container's memory limit: Memory for the
// processes plus every tmpfs (the workspace, /tmp and /dev/shm), because
// the kernel charges a tmpfs's pages to the memory of the container that
// wrote them. Tests that fill their disk quota get ENOSPC, not an
// out-of-memory kill, and still have Memory for themselves.
func (l Limits) ContainerMemory() int64 { return l.Memory + l.Disk + 2*l.TmpSize }

// DefaultLimits returns the hardened defaults.
func DefaultLimits() Limits {
	return Limits{
		Memory:      DefaultMemory,
		CPUs:        DefaultCPUs,
		Pids:        DefaultPids,
		Timeout:     DefaultTimeout,
		OutputLimit: DefaultOutputLimit,
		TmpSize:     DefaultTmpSize,
		Disk:        DefaultDisk,
		DiskFiles:   DefaultDiskFiles,
	}
}

// Changes lists, in words, how l differs from the defaults.
func (l Limits) Changes() []string {
	d := DefaultLimits()
	var out []string
	flag := func(on bool, what string) {
		if on {
			out = append(out, what)
		}
	}
	flag(l.Network, "network enabled")
	flag(l.WritableRoot, "root filesystem writable")
	flag(l.Root, "commands running as root")
	flag(l.KeepCaps, "default capabilities kept")
	if l.Memory != d.Memory {
		out = append(out, fmt.Sprintf("memory %s (default %s)", limits.FormatBytes(l.Memory), limits.FormatBytes(d.Memory)))
	}
	if l.CPUs != d.CPUs {
		out = append(out, fmt.Sprintf("cpus %g (default %g)", l.CPUs, d.CPUs))
	}
	if l.Pids != d.Pids {
		out = append(out, fmt.Sprintf("pids %d (default %d)", l.Pids, d.Pids))
	}
	if l.Timeout != d.Timeout {
		out = append(out, fmt.Sprintf("timeout %s (default %s)", l.Timeout, d.Timeout))
	}
	if l.OutputLimit != d.OutputLimit {
		out = append(out, fmt.Sprintf("output limit %s (default %s)", limits.FormatBytes(int64(l.OutputLimit)), limits.FormatBytes(int64(d.OutputLimit))))
	}
	if l.TmpSize != d.TmpSize {
		out = append(out, fmt.Sprintf("/tmp size %s (default %s)", limits.FormatBytes(l.TmpSize), limits.FormatBytes(d.TmpSize)))
	}
	if l.Disk != d.Disk {
		out = append(out, fmt.Sprintf("disk %s (default %s)", limits.FormatBytes(l.Disk), limits.FormatBytes(d.Disk)))
	}
	if l.DiskFiles != d.DiskFiles {
		out = append(out, fmt.Sprintf("disk files %d (default %d)", l.DiskFiles, d.DiskFiles))
	}
	return out
}

// Validate reports limits that Docker would refuse or that make no sense.
func (l Limits) Validate() error {
	switch {
	case !limits.Memory.Allows(l.Memory):
		return fmt.Errorf("memory limit %w", limits.Memory.Check(l.Memory))
	case l.CPUs <= 0:
		return fmt.Errorf("cpu limit must be positive, got %g", l.CPUs)
	case l.Pids < 16:
		return fmt.Errorf("pids limit %d is too small to start anything (at least 16)", l.Pids)
	case l.Timeout <= 0:
		return fmt.Errorf("timeout must be positive, got %s", l.Timeout)
	case l.OutputLimit < 0:
		return fmt.Errorf("output limit must not be negative, got %d", l.OutputLimit)
	case l.TmpSize <= 0:
		return fmt.Errorf("/tmp size must be positive, got %d", l.TmpSize)
	case !limits.Disk.Allows(l.Disk):
		return fmt.Errorf("disk limit %w", limits.Disk.Check(l.Disk))
	case l.DiskFiles < 16:
		return fmt.Errorf("disk file limit %d is too small (at least 16)", l.DiskFiles)
	}
	return nil
}
