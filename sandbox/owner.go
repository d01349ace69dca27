package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// owner identifies the process that created a container: host name,
// process ID and the process's start time, so that a recycled PID is not
// mistaken for the original owner.
type owner struct {
	host  string
	pid   int
	start string
}

// currentOwner describes this process on host; empty means the host's
// name.
func currentOwner(host string) owner {
	if host == "" {
		host, _ = os.Hostname()
	}
	return owner{host: host, pid: os.Getpid(), start: processStart(os.Getpid())}
}

func (o owner) String() string { return fmt.Sprintf("%s/%d/%s", o.host, o.pid, o.start) }

// parseOwner reads the value of the owner label.
func parseOwner(s string) (owner, bool) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return owner{}, false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil {
		return owner{}, false
	}
	return owner{host: parts[0], pid: pid, start: parts[2]}, true
}

// gone reports whether the owner process has certainly ended: it ran on
// this host and no process with its PID and start time exists now.
// Containers of other hosts sharing the engine are never judged gone.
func (o owner) gone(self owner) bool {
	if o.host != self.host {
		return false
	}
	now := processStart(o.pid)
	return now == "" || now != o.start
}

// processStart returns the start time of pid in clock ticks since boot
// (field 22 of /proc/PID/stat), or "" when there is no such process.
func processStart(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces; fields after it follow
	// the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	const startField = 22 - 3 // fields 3.. follow the ')'
	if len(fields) <= startField {
		return ""
	}
	return fields[startField]
}
