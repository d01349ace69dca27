//go:build linux && !(amd64 || arm64 || riscv64 || loong64)

package agent

// These architectures reach System V IPC through one multiplexed call,
// which the agent does not speak: removing an object fails with ENOSYS, so
// a run that leaves one makes the next run fail rather than see it.
const (
	sysMsgctl = ^uintptr(0)
	sysSemctl = ^uintptr(0)
	sysShmctl = ^uintptr(0)
)
