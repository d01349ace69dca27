package sandbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/agent"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// helperSession is a session whose spec has helper files.
func helperSession(t *testing.T, helpers map[string][]byte) *sandbox.Session {
	t.Helper()
	eng := sandboxtest.Engine(t)
	spec := sandboxtest.Spec(t.TempDir())
	spec.Helpers = helpers
	s, err := eng.NewSession(context.Background(), spec)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// channelRecord is one record of the agent's report.
type channelRecord struct {
	Conn   int     `json:"conn"`
	PID    int     `json:"pid"`
	Line   *string `json:"line"`
	Cut    string  `json:"cut"`
	Closed bool    `json:"closed"`
}

func channelRecords(t *testing.T, report []byte) []channelRecord {
	t.Helper()
	var recs []channelRecord
	for _, line := range strings.Split(strings.TrimSuffix(string(report), "\n"), "\n") {
		if line == "" {
			continue
		}
		var r channelRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// The helper files sit where every run reads them and none writes them.
func TestHelperFiles(t *testing.T) {
	s := helperSession(t, map[string][]byte{"a.py": []byte("A\n"), "lib/site/b.pth": []byte("B\n")})
	res := run(t, s, sandbox.Run{Cmd: sh(`cd ` + agent.PluginDir + `
cat a.py lib/site/b.pth
stat -c '%n %a %u' a.py lib lib/site lib/site/b.pth .
echo x >> a.py 2>/dev/null || echo file not writable
touch new.py lib/site/new.py 2>/dev/null || echo dirs not writable
rm -f lib/site/b.pth 2>/dev/null; test -f lib/site/b.pth && echo still there
`)})
	want := "A\nB\na.py 444 0\nlib 555 0\nlib/site 555 0\nlib/site/b.pth 444 0\n. 555 0\nfile not writable\ndirs not writable\nstill there\n"
	if string(res.Stdout) != want || res.ExitCode != 0 {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s\nwant:\n%s", res.ExitCode, res.Stdout, res.Stderr, want)
	}
}

// The report channel: a socket the run may connect to but neither
// remove, replace nor truncate, whose lines come back wrapped with their
// connection and their sender's pid, from child processes too; a run that
// does not ask for a report has no socket.
func TestTestReportChannel(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)
	res := run(t, s, sandbox.Run{Cmd: py(`
import os, socket, subprocess, sys
path = "` + agent.ChannelSocket + `"
st = os.stat(os.path.dirname(path))
print("dir", oct(st.st_mode & 0o7777), st.st_uid)
st = os.stat(path)
print("socket", oct(st.st_mode & 0o7777), st.st_uid)
for attack in (lambda: os.remove(path), lambda: os.rename(path, path + ".x"),
               lambda: open(path, "w"), lambda: os.truncate(path, 0),
               lambda: open(os.path.dirname(path) + "/other", "w")):
    try:
        attack()
        print("attack worked")
    except OSError:
        pass
a = socket.socket(socket.AF_UNIX); a.connect(path)
a.sendall(b'{"kind":"start"}\n')
child = subprocess.run([sys.executable, "-c", """
import os, socket
b = socket.socket(socket.AF_UNIX); b.connect(%r)
b.sendall(("child %%d\\n" %% os.getpid()).encode())
"""% path])
a.sendall(("parent %d\n" % os.getpid()).encode())
print("done")
`), TestReport: true})
	want := "dir 0o755 0\nsocket 0o666 0\ndone\n"
	if string(res.Stdout) != want || res.ExitCode != 0 {
		t.Fatalf("exit %d, stdout:\n%s\nstderr: %s\nwant:\n%s", res.ExitCode, res.Stdout, res.Stderr, want)
	}
	var got []string
	recs := channelRecords(t, res.TestReport)
	// Two connections read at once: each in its order.
	slices.SortStableFunc(recs, func(a, b channelRecord) int { return a.Conn - b.Conn })
	for _, r := range recs {
		switch {
		case r.Line != nil && strings.HasPrefix(*r.Line, "child ") || r.Line != nil && strings.HasPrefix(*r.Line, "parent "):
			// The line names its sender's pid, which the record must have.
			if want := fmt.Sprintf("%s %d", strings.Fields(*r.Line)[0], r.PID); *r.Line != want {
				t.Errorf("record %q from pid %d", *r.Line, r.PID)
			}
			got = append(got, fmt.Sprintf("%d %s", r.Conn, strings.Fields(*r.Line)[0]))
		case r.Line != nil:
			got = append(got, fmt.Sprintf("%d %s", r.Conn, *r.Line))
		case r.Closed:
			got = append(got, fmt.Sprintf("%d closed", r.Conn))
		default:
			got = append(got, fmt.Sprintf("%d %+v", r.Conn, r))
		}
	}
	if want := `1 {"kind":"start"}|1 parent|1 closed|2 child|2 closed`; strings.Join(got, "|") != want {
		t.Errorf("records %q, want %q\n%s", strings.Join(got, "|"), want, res.TestReport)
	}
	if res.TestReportBytes != int64(len(res.TestReport)) {
		t.Errorf("TestReportBytes %d for %d bytes", res.TestReportBytes, len(res.TestReport))
	}

	// A run that does not ask has no socket, and no report.
	res = run(t, s, sandbox.Run{Cmd: sh("test -e " + agent.ChannelSocket + " && echo exists; ls -A " + agent.ChannelDir)})
	if len(res.Stdout) != 0 || res.TestReport != nil {
		t.Errorf("a run without a report: stdout %q, report %q", res.Stdout, res.TestReport)
	}
}

// A report larger than the bound comes back cut, with its true size; a
// line longer than the channel's bound is cut, and the run goes on.
func TestTestReportIsBounded(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)
	res := run(t, s, sandbox.Run{Cmd: py(`
import socket
s = socket.socket(socket.AF_UNIX); s.connect("` + agent.ChannelSocket + `")
line = b"x" * 60000 + b"\n"
for _ in range(600):
    s.sendall(line)
long = socket.socket(socket.AF_UNIX); long.connect("` + agent.ChannelSocket + `")
try:
    long.sendall(b"y" * (1 << 20))
except OSError:
    print("cut")
`), TestReport: true})
	if res.ExitCode != 0 || len(res.TestReport) > agent.MaxReport || len(res.TestReport) < agent.MaxReport-70000 || res.TestReportBytes <= 600*60000 {
		t.Errorf("exit %d (%s), report %d of %d bytes; want at most %d of more than %d", res.ExitCode, res.Stderr, len(res.TestReport), res.TestReportBytes, agent.MaxReport, 600*60000)
	}
	if strings.TrimSpace(string(res.Stdout)) != "cut" {
		t.Errorf("stdout %q, want the long line's connection cut", res.Stdout)
	}
}

// Code under test that floods the channel with connections, bytes without
// a newline, and connections it never closes gets a report that says so,
// and the agent answers at once and serves the next run.
func TestTestReportChannelFlood(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)
	start := time.Now()
	res := run(t, s, sandbox.Run{Cmd: py(`
import os, resource, socket
path = "` + agent.ChannelSocket + `"
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 20000), hard))
conns = []
for i in range(` + fmt.Sprint(agent.MaxChannelConns+100) + `):
    c = socket.socket(socket.AF_UNIX)
    c.connect(path)
    try:
        c.sendall(b"x\n")
    except OSError:
        pass
    conns.append(c)
flood = conns[0]
flood.setblocking(False)
try:
    while True:
        flood.send(b"y" * 65536)
except OSError:
    pass
print("connected", len(conns))
os.fork()
`), TestReport: true})
	if took := time.Since(start); took > time.Minute || res.ExitCode != 0 || !strings.HasPrefix(string(res.Stdout), "connected") {
		t.Fatalf("exit %d after %s: %s %s", res.ExitCode, took, res.Stdout, res.Stderr)
	}
	lines, closed, cut := 0, 0, map[string]int{}
	for _, r := range channelRecords(t, res.TestReport) {
		switch {
		case r.Line != nil:
			lines++
		case r.Closed:
			closed++
		default:
			cut[r.Cut]++
		}
	}
	wantCut := map[string]int{fmt.Sprintf("more than %d connections in one run", agent.MaxChannelConns): 1,
		fmt.Sprintf("a line longer than %d bytes", agent.MaxChannelLine): 1}
	if lines < agent.MaxChannelConns-1 || lines > agent.MaxChannelConns || closed != agent.MaxChannelConns+1 || !maps.Equal(cut, wantCut) {
		t.Errorf("%d lines, %d closed, cut %v; want %d lines, %d closed, cut %v", lines, closed, cut, agent.MaxChannelConns, agent.MaxChannelConns+1, wantCut)
	}
	res = run(t, s, sandbox.Run{Cmd: py(`
import socket
c = socket.socket(socket.AF_UNIX); c.connect("` + agent.ChannelSocket + `"); c.sendall(b"next\n")
`), TestReport: true})
	if recs := channelRecords(t, res.TestReport); len(recs) != 2 || recs[0].Conn != 1 || recs[0].Line == nil || *recs[0].Line != "next" {
		t.Errorf("the next run's report: %s", res.TestReport)
	}
}

// A run's report files come back: those it wrote that match a glob, not
// the repository's own (a report committed with it), not symbolic links,
// and nothing when no run asks for them.
func TestRunReportFiles(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, map[string]string{"target/surefire-reports/TEST-old.xml": "<testsuite/>"}, nil)
	script := `mkdir -p m/target/surefire-reports && echo '<testsuite name="a"/>' > m/target/surefire-reports/TEST-a.xml &&
echo x > m/target/surefire-reports/notes.txt && ln -s /etc/passwd m/target/surefire-reports/TEST-link.xml && echo junit > junit.xml`
	res := run(t, s, sandbox.Run{Cmd: sh(script), ReportFiles: []string{"**/target/surefire-reports/TEST-*.xml", "junit.xml"}})
	got := map[string]string{}
	for name, data := range res.ReportFiles {
		got[name] = string(data)
	}
	want := map[string]string{"m/target/surefire-reports/TEST-a.xml": "<testsuite name=\"a\"/>\n", "junit.xml": "junit\n"}
	if res.ExitCode != 0 || !maps.Equal(got, want) || res.ReportFilesCut {
		t.Errorf("exit %d (%s), report files %q (cut %v); want %q", res.ExitCode, res.Stderr, got, res.ReportFilesCut, want)
	}
	if res := run(t, s, sandbox.Run{Cmd: sh(script)}); res.ReportFiles != nil {
		t.Errorf("report files %q that no run asked for", res.ReportFiles)
	}
}
