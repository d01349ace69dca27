//go:build linux

package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestIPCIDs(t *testing.T) {
	dir := t.TempDir()
	header := "       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid  cgid      stime      rtime      ctime\n"
	makeTree(t, dir,
		entry{name: "none", content: header},
		entry{name: "two", content: header + "         0          0   600           0          0     0     0 10001 10001 10001 10001          0          0 1700000000\n" +
			"      1234      32769   644           0          0     0     0     0     0     0     0          0          0 1700000000\n\n"},
		entry{name: "bad", content: header + "         0      seven   600\n"},
	)
	tests := []struct {
		file string
		want []int
		err  bool
	}{
		{"none", nil, false},
		{"two", []int{0, 32769}, false},
		{"missing", nil, false},
		{"bad", nil, true},
	}
	for _, tt := range tests {
		got, err := ipcIDs(filepath.Join(dir, tt.file))
		if !slices.Equal(got, tt.want) || (err != nil) != tt.err {
			t.Errorf("ipcIDs(%s) = %v, %v; want %v, error %v", tt.file, got, err, tt.want, tt.err)
		}
	}
}

// The objects are removed on a thread whose effective user is the sandbox
// user's, and only there: the agent stays root and not dumpable.
func TestRemoveIPCObjects(t *testing.T) {
	dir := t.TempDir()
	header := "       key      msqid perms ...\n"
	makeTree(t, dir,
		entry{name: "msg", content: header + " 0 1 600\n 0 2 600\n"},
		entry{name: "sem", content: header + " 0 3 600\n"},
		entry{name: "shm", content: header},
		entry{name: "bad", content: header + " 0 x 600\n"},
	)
	// The sandbox user, or the test's own when it cannot switch.
	uid := os.Getuid()
	if uid == 0 {
		uid = 65534
	}
	euid := os.Geteuid()
	tests := []struct {
		name    string
		lists   []string
		errnos  map[int]syscall.Errno // by id; 0 for the others
		removed []int
		err     string
	}{
		{name: "none", lists: []string{"shm", "missing"}},
		{name: "every kind", lists: []string{"msg", "sem", "shm"}, removed: []int{1, 2, 3}},
		{name: "gone already", lists: []string{"msg", "sem"}, errnos: map[int]syscall.Errno{1: syscall.EINVAL, 3: syscall.EIDRM}, removed: []int{1, 2, 3}},
		{
			name: "objects left", lists: []string{"msg", "sem"}, errnos: map[int]syscall.Errno{2: syscall.EPERM, 3: syscall.EACCES}, removed: []int{1, 2, 3},
			err: "2 objects left, the first " + filepath.Join(dir, "msg") + " id 2: operation not permitted",
		},
		{name: "a bad list", lists: []string{"msg", "bad"}, err: "bad line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var removed, as []int
			var kinds []ipcKind
			for _, l := range tt.lists {
				kinds = append(kinds, ipcKind{filepath.Join(dir, l), func(id int) syscall.Errno {
					removed = append(removed, id)
					as = append(as, syscall.Geteuid()) // the calling thread's
					return tt.errnos[id]
				}})
			}
			defer setDumpable(t)
			err := removeIPCObjects(uid, kinds)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("removeIPCObjects = %v, want %q", err, tt.err)
			}
			if !slices.Equal(removed, tt.removed) {
				t.Errorf("removed %v, want %v", removed, tt.removed)
			}
			for _, u := range as {
				if u != uid {
					t.Errorf("removed as user %d, want %d", u, uid)
				}
			}
			if os.Geteuid() != euid {
				t.Errorf("the test's user is %d after the removal, want %d", os.Geteuid(), euid)
			}
			if len(tt.removed) > 0 && dumpable(t) {
				t.Error("the process is dumpable after the removal")
			}
		})
	}
}

func dumpable(t *testing.T) bool {
	t.Helper()
	r, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_GET_DUMPABLE, 0, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	return r != 0
}

// setDumpable gives the test process back the flag the removal clears.
func setDumpable(t *testing.T) {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 1, 0); errno != 0 {
		t.Fatal(errno)
	}
}
