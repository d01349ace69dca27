//go:build linux

package agent

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// counters are the cgroup event counts that tell why a run was killed.
type counters struct {
	oomKills int64 // processes the kernel's OOM killer ended
	pidsMax  int64 // forks refused because the process limit was reached
}

// The files that hold the counters, for cgroup v2 and v1 mounts.
var (
	oomFiles  = []string{"/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control"}
	pidsFiles = []string{"/sys/fs/cgroup/pids.events", "/sys/fs/cgroup/pids/pids.events"}
)

func readCounters() counters {
	return counters{
		oomKills: firstCounter(oomFiles, "oom_kill"),
		pidsMax:  firstCounter(pidsFiles, "max"),
	}
}

// firstCounter reads "key value" lines from the first file that exists.
func firstCounter(files []string, key string) int64 {
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), " ")
			if ok && k == key {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				return n
			}
		}
		return 0
	}
	return 0
}
