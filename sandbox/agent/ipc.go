//go:build linux

package agent

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// ipcRmid is IPC_RMID, the command that removes a System V IPC object.
const ipcRmid = 0

// ipcKind is a kind of System V IPC object: the file of /proc/sysvipc
// that lists them and the system call that removes one.
type ipcKind struct {
	list string
	rmid func(id int) syscall.Errno
}

// sysvObjects lists the System V IPC objects of the container's IPC
// namespace.
var sysvObjects = []ipcKind{
	{"/proc/sysvipc/msg", func(id int) syscall.Errno { return ipcCtl(sysMsgctl, id, ipcRmid, 0) }},
	{"/proc/sysvipc/sem", func(id int) syscall.Errno { return ipcCtl(sysSemctl, id, 0, ipcRmid) }},
	{"/proc/sysvipc/shm", func(id int) syscall.Errno { return ipcCtl(sysShmctl, id, ipcRmid, 0) }},
}

func ipcCtl(trap uintptr, id int, a, b uintptr) syscall.Errno {
	_, _, errno := syscall.Syscall(trap, uintptr(id), a, b)
	return errno
}

// removeIPC removes every System V message queue, semaphore set and
// shared memory segment. Only a process whose effective user created or
// owns an object may remove it (or one with CAP_SYS_ADMIN, which the agent
// does not have), so the removal runs on a thread of its own whose
// effective user is uid; the thread ends with it, and the rest of the
// agent stays root.
func removeIPC(uid int) error {
	return removeIPCObjects(uid, sysvObjects)
}

// removeIPCObjects removes every object of kinds, as removeIPC does.
func removeIPCObjects(uid int, kinds []ipcKind) error {
	var ids [][]int
	total := 0
	for _, k := range kinds {
		got, err := ipcIDs(k.list)
		if err != nil {
			return err
		}
		ids = append(ids, got)
		total += len(got)
	}
	if total == 0 {
		return nil
	}
	done := make(chan error, 1)
	go func() {
		// Never unlocked: the Go runtime ends this thread, with its
		// changed user, when the goroutine returns.
		runtime.LockOSThread()
		if uid != 0 {
			keep := ^uintptr(0) // -1: leave the real and saved user as they are
			if _, _, errno := syscall.RawSyscall(syscall.SYS_SETRESUID, keep, uintptr(uid), keep); errno != 0 {
				done <- fmt.Errorf("setresuid: %w", errno)
				return
			}
		}
		var first error
		failed := 0
		for i, k := range kinds {
			for _, id := range ids[i] {
				// EINVAL and EIDRM: the object is gone already.
				if errno := k.rmid(id); errno != 0 && errno != syscall.EINVAL && errno != syscall.EIDRM {
					failed++
					if first == nil {
						first = fmt.Errorf("%s id %d: %w", k.list, id, errno)
					}
				}
			}
		}
		if failed > 0 {
			done <- fmt.Errorf("%d objects left, the first %w", failed, first)
			return
		}
		done <- nil
	}()
	err := <-done
	// Changing a thread's effective user resets the process's dumpable flag.
	return errors.Join(err, nonDumpable())
}

// ipcIDs reads the identifiers (the second column) listed in a
// /proc/sysvipc file, whose first line is a header.
func ipcIDs(file string) ([]int, error) {
	f, err := os.Open(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ids []int
	sc := bufio.NewScanner(f)
	for first := true; sc.Scan(); first = false {
		fields := strings.Fields(sc.Text())
		if first || len(fields) < 2 {
			continue
		}
		id, err := strconv.Atoi(fields[1])
		if err != nil {
			return nil, fmt.Errorf("%s: bad line %q", file, sc.Text())
		}
		ids = append(ids, id)
	}
	return ids, sc.Err()
}
