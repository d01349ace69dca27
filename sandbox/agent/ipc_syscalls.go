//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package agent

import "syscall"

// The System V IPC control calls, which these architectures have as
// system calls of their own.
const (
	sysMsgctl = syscall.SYS_MSGCTL
	sysSemctl = syscall.SYS_SEMCTL
	sysShmctl = syscall.SYS_SHMCTL
)
