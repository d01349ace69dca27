// Package agent is the small supervisor that runs as process 1 inside every
// sandbox container. The host sends it run requests over the container's
// standard input and reads one response per request from its standard output,
// both as length-prefixed JSON frames (see ReadFrame). The agent runs as root
// with a few capabilities; every command runs as another user with none, so
// that it can neither signal, trace nor read the agent. Between runs the
// agent puts the container back to its starting state: it kills every
// process it started (but the warm parent, see Warm), restores the workspace from the pristine copy and
// empties /tmp, /dev/shm, /dev/mqueue and the System V IPC objects.
//
// The package uses the standard library only, so that the agent stays small
// and works in any Linux image.
package agent

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Paths inside the container. The host copies the agent binary and the
// pristine workspace into a volume mounted at Root before the container
// starts; the agent restores Workspace, a tmpfs whose size is the disk
// quota, from Base before every run, or from Layer once a run has been
// committed (a set-up phase that installed the repository's dependencies).
// Base and Layer belong to root and are closed to the sandbox user.
const (
	Root      = "/capsule"
	Binary    = Root + "/agent"
	Base      = Root + "/base"
	Layer     = Root + "/layer"
	Workspace = Root + "/workspace"
	// LayerMark, when present, says that the host seeded Layer with a
	// set-up kept from an earlier container (Layer is then the starting
	// state, as after a committed run).
	LayerMark = Root + "/layer.committed"
	// UserBase is the sandbox's PYTHONUSERBASE: a set-up phase's `pip
	// install --user` lands in the workspace, so a committed set-up keeps it.
	UserBase = Workspace + "/.local"
	TmpDir   = "/tmp"
	// PluginDir holds the host's read-only helper files for the commands
	// (Spec.Helpers of package sandbox, such as a test runner's plugin):
	// root's, readable by every run, writable by none.
	PluginDir = Root + "/plugin"
	// ChannelDir holds ChannelSocket: root's, mode 0755, so that the
	// sandbox user may reach the socket but never remove or replace it.
	ChannelDir = Root + "/channel"
	// ChannelSocket is the report channel of a run that asked for one
	// with Request.Report: a Unix stream socket, root's and mode 0666,
	// served by the agent while that run runs. Each connection sends
	// lines; the agent adds each, wrapped with the connection's number
	// and its peer's pid, to Response.Report, so that what was sent can
	// be neither removed, rewritten nor reordered by the code under test.
	ChannelSocket = ChannelDir + "/report.sock"
	// WarmDir holds the warm parent's files (see Request.Warm): root's,
	// mode 0700, so that no run can read, change or replace them.
	WarmDir   = Root + "/warm"
	ShmDir    = "/dev/shm"
	MqueueDir = "/dev/mqueue"
)

// ProtocolVersion changes whenever Request or Response change incompatibly.
const ProtocolVersion = 5

// MaxReport bounds the bytes of Response.Report; Response.ReportBytes
// tells a longer report.
const MaxReport = 32 << 20

// Bounds of the report channel in one run. A line longer than
// MaxChannelLine (its newline excluded) is recorded as cut and its
// connection closed; connections past MaxChannelConns are closed at once,
// the first of them recorded as cut. The agent holds at most
// maxChannelPending bytes of unfinished lines across all connections.
const (
	MaxChannelLine  = 64 << 10
	MaxChannelConns = 4096
)

// Request asks the agent to run one command.
type Request struct {
	// Argv is the command and its arguments; Argv[0] is looked up in PATH.
	Argv []string `json:"argv"`
	// Env holds extra KEY=VALUE pairs on top of the image's environment.
	Env []string `json:"env,omitempty"`
	// Dir is the working directory relative to Workspace.
	Dir string `json:"dir,omitempty"`
	// Timeout bounds the run's wall-clock time.
	Timeout time.Duration `json:"timeout"`
	// OutputLimit is the number of bytes kept of each of stdout and stderr:
	// the first and the last half of it, the middle being dropped.
	OutputLimit int `json:"output_limit"`
	// Files is a tar archive laid over the restored workspace before the run.
	Files []byte `json:"files,omitempty"`
	// Delete names files, relative to Workspace, removed after Files is
	// laid over it.
	Delete []string `json:"delete,omitempty"`
	// Collect asks for a tar archive of the workspace after the run.
	Collect bool `json:"collect,omitempty"`
	// CollectLimit bounds that archive; a larger one is an error.
	CollectLimit int64 `json:"collect_limit,omitempty"`
	// Commit makes the workspace as this run left it the starting state
	// of every later run, when the run exits 0.
	Commit bool `json:"commit,omitempty"`
	// Report asks for the report channel, ChannelSocket, during the run
	// and for what it received in Response.Report.
	Report bool `json:"report,omitempty"`
	// ReportFiles are globs, relative to Workspace ("**" for any number of
	// directories), of the report files (JUnit XML) to send back after
	// the run in Response.ReportFiles: the regular files the run wrote.
	ReportFiles []string `json:"report_files,omitempty"`
	// Warm, when set, runs the command in a fork of the warm parent
	// rather than by starting Argv, which must be the equivalent
	// command; see Warm.
	Warm *Warm `json:"warm,omitempty"`
}

// Warm is a run forked from the warm parent: a Python interpreter that
// the agent starts on the first such run, as root and not dumpable, with
// Script loaded and nothing of any run. For each run the parent forks a
// child that drops to the sandbox user with the run's limits and calls
// Script's main() with Args as sys.argv, as `python3 -B -u SCRIPT
// ARGS...` started in the run's directory and environment would, without
// starting an interpreter. The parent is started again whenever Script,
// or a variable of the run's environment that an interpreter reads when
// it starts (the locale, PYTHONHASHSEED, PYTHONIOENCODING, PYTHONUTF8,
// PYTHONWARNINGS, PYTHONINTMAXSTRDIGITS, PYTHONOPTIMIZE), changes; a
// run that does not start warm is left until then. PYTHONPATH,
// PYTHONUSERBASE and PYTHONNOUSERSITE shape the child's sys.path as they
// would an interpreter's (only sys.flags.no_user_site tells that the
// parent started with -s, which keeps it from the workspace's files).
//
// The agent runs Argv instead, as any command, when commands run as root
// (the parent could not be kept from them), when the image has no
// python3, or when the run's environment sets another PYTHON* variable
// (PYTHONHOME, say) that a started interpreter would read;
// Response.Warm tells which way a run went. A run that is not warm stops
// the warm parent first.
type Warm struct {
	// Script is the source of the Python module (standard library only)
	// that defines main(), which returns the exit status. Its file, in
	// WarmDir, is named after Args[0].
	Script []byte `json:"script"`
	// Args is sys.argv: Args[0] is the script's file name, as in
	// tracebacks (capsule_harness.py, say).
	Args []string `json:"args"`
	// CPULimit, when positive, is the RLIMIT_CPU of the run's process,
	// rounded up to whole seconds, set before anything of the run runs:
	// SIGXCPU at the limit, SIGKILL a second later.
	CPULimit time.Duration `json:"cpu_limit,omitempty"`
}

// Response reports how a run ended.
type Response struct {
	// Ready is set on the greeting the agent sends once at start-up.
	Ready    bool `json:"ready,omitempty"`
	Protocol int  `json:"protocol,omitempty"`

	ExitCode    int           `json:"exit_code"`
	Stdout      []byte        `json:"stdout,omitempty"`
	Stderr      []byte        `json:"stderr,omitempty"`
	StdoutBytes int64         `json:"stdout_bytes"`
	StderrBytes int64         `json:"stderr_bytes"`
	Duration    time.Duration `json:"duration"`
	TimedOut    bool          `json:"timed_out,omitempty"`
	OOMKilled   bool          `json:"oom_killed,omitempty"`
	PidsLimited bool          `json:"pids_limited,omitempty"`
	// DiskFull and FilesFull report a workspace left without free bytes
	// or free inodes: the run reached its disk quota.
	DiskFull  bool `json:"disk_full,omitempty"`
	FilesFull bool `json:"files_full,omitempty"`
	// Workspace is the tar archive asked for with Request.Collect.
	Workspace []byte `json:"workspace,omitempty"`
	// Report is what the report channel received in a run that asked
	// for it, as JSON lines in arrival order, connections numbered from 1
	// in the order they were accepted, each peer's pid taken from
	// SO_PEERCRED when it connected:
	//
	//	{"conn":1,"pid":57,"line":"<a line received, without its newline>"}
	//	{"conn":1,"pid":57,"cut":"<why the connection was cut>"}
	//	{"conn":1,"pid":57,"closed":true}
	//
	// Every connection ends with its "closed" record, after a "cut" one
	// when it was cut. Report holds the whole records of the first
	// MaxReport bytes; ReportBytes counts them all, so a larger value
	// says the report was cut.
	Report      []byte `json:"report,omitempty"`
	ReportBytes int64  `json:"report_bytes,omitempty"`
	// ReportFiles is a tar archive of the files Request.ReportFiles
	// matched, within MaxReportFiles files and MaxReportFileBytes bytes;
	// ReportFilesCut reports that files were left out for those bounds.
	ReportFiles    []byte `json:"report_files,omitempty"`
	ReportFilesCut bool   `json:"report_files_cut,omitempty"`
	// Warm reports a run forked from the warm parent (Request.Warm).
	Warm bool `json:"warm,omitempty"`
	// Error describes a failure of the agent itself, such as a command that
	// could not be started; ExitCode is then 126 or 127 like a shell's.
	Error string `json:"error,omitempty"`
}

// ParseUser reads a numeric UID:GID pair, such as RunAs.
func ParseUser(s string) (uid, gid int, err error) {
	u, g, ok := strings.Cut(s, ":")
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if !ok || err1 != nil || err2 != nil || uid < 0 || gid < 0 {
		return 0, 0, fmt.Errorf("bad user %q: want UID:GID", s)
	}
	return uid, gid, nil
}
