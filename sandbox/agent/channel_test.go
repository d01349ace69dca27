//go:build linux

package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// testLimits are small bounds, so that the tests reach them.
var testLimits = channelLimits{line: 100, conns: 50, report: 1 << 20, pending: 1 << 20, drain: 200 * time.Millisecond}

// startChannel serves a channel in a temporary directory.
func startChannel(t *testing.T, limits channelLimits) (*channel, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.sock")
	c, err := listenChannel(path, limits)
	if err != nil {
		t.Fatal(err)
	}
	return c, path
}

// dial connects to the channel and waits until the agent has taken the
// connection, so that connections are numbered in the order of the calls.
func dial(t *testing.T, c *channel, path string) net.Conn {
	t.Helper()
	c.mu.Lock()
	before := c.conns
	c.mu.Unlock()
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		n := c.conns
		c.mu.Unlock()
		if n > before {
			return conn
		}
		if time.Now().After(deadline) {
			t.Fatal("the channel did not accept the connection")
		}
	}
}

func send(t *testing.T, conn net.Conn, s string) {
	t.Helper()
	if _, err := conn.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// records decodes a report, failing on anything but whole records.
func records(t *testing.T, report []byte) []record {
	t.Helper()
	var recs []record
	for _, line := range strings.SplitAfter(string(report), "\n") {
		if line == "" {
			continue
		}
		if !strings.HasSuffix(line, "\n") {
			t.Fatalf("a record without its newline: %q", line)
		}
		var r record
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// show writes records as short strings: "1 line abc", "1 cut", "1 closed".
func show(recs []record) []string {
	var out []string
	for _, r := range recs {
		switch {
		case r.Line != nil:
			out = append(out, fmt.Sprintf("%d line %s", r.Conn, *r.Line))
		case r.Cut != "":
			out = append(out, fmt.Sprintf("%d cut %s", r.Conn, r.Cut))
		case r.Closed:
			out = append(out, fmt.Sprintf("%d closed", r.Conn))
		default:
			out = append(out, fmt.Sprintf("%d ?", r.Conn))
		}
	}
	return out
}

// byConn orders records by connection, keeping each connection's order.
func byConn(recs []record) []record {
	slices.SortStableFunc(recs, func(a, b record) int { return a.Conn - b.Conn })
	return recs
}

func TestChannelWrapsEveryLine(t *testing.T) {
	c, path := startChannel(t, testLimits)
	info, err := os.Stat(path)
	if err != nil || info.Mode()&os.ModeSocket == 0 || info.Mode().Perm() != 0o666 {
		t.Fatalf("socket %v, %v; want a socket of mode 0666", info.Mode(), err)
	}
	a := dial(t, c, path)
	b := dial(t, c, path)
	send(t, a, `{"kind":"start"}`+"\n")
	time.Sleep(20 * time.Millisecond)
	send(t, b, "tripwire\n\n")
	time.Sleep(20 * time.Millisecond)
	// Two lines in one write, then one in two writes, then a last line
	// without its newline; quotes, HTML and invalid UTF-8 kept as data.
	send(t, a, "x<&>\"y\"\nsecond\nthi")
	send(t, a, "rd\n\xff last")
	a.Close()
	time.Sleep(20 * time.Millisecond)
	b.Close()
	report, total := c.close()
	want := []string{`1 line {"kind":"start"}`, "2 line tripwire", "2 line ", `1 line x<&>"y"`, "1 line second", "1 line third", "1 line \ufffd last", "1 closed", "2 closed"}
	if got := show(records(t, report)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if total != int64(len(report)) {
		t.Errorf("total %d, report %d bytes", total, len(report))
	}
	for _, r := range records(t, report) {
		if r.PID != os.Getpid() {
			t.Errorf("record %+v: pid %d, want %d", r, r.PID, os.Getpid())
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the socket is still there after close: %v", err)
	}
}

func TestChannelCutsLongLines(t *testing.T) {
	c, path := startChannel(t, testLimits)
	fits := dial(t, c, path)
	send(t, fits, strings.Repeat("a", 100)+"\n")
	fits.Close()
	time.Sleep(20 * time.Millisecond)
	long := dial(t, c, path)
	_, _ = long.Write([]byte("ok\n" + strings.Repeat("b", 101) + "\nnever read\n"))
	time.Sleep(20 * time.Millisecond)
	// The agent closed its end: the peer sees it.
	_ = long.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := long.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Errorf("read on a cut connection: %d, %v; want its end", n, err)
	}
	long.Close()
	report, _ := c.close()
	want := []string{"1 line " + strings.Repeat("a", 100), "1 closed", "2 line ok", "2 cut a line longer than 100 bytes", "2 closed"}
	if got := show(records(t, report)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A connection that its peer keeps open is closed by the agent once the
// drain's time is up, with what it sent.
func TestChannelDrainEnds(t *testing.T) {
	c, path := startChannel(t, testLimits)
	open := dial(t, c, path)
	defer open.Close()
	send(t, open, "one\ntwo without newline")
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	report, _ := c.close()
	if took := time.Since(start); took < testLimits.drain || took > testLimits.drain+2*time.Second {
		t.Errorf("close took %s, want about %s", took, testLimits.drain)
	}
	want := []string{"1 line one", "1 line two without newline", "1 closed"}
	if got := show(records(t, report)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A connection the agent had not yet accepted when the run ended (its
// process wrote and was killed) is still read.
func TestChannelReadsConnectionsNotYetAccepted(t *testing.T) {
	c, path := startChannel(t, testLimits)
	_ = c.l.SetDeadline(time.Now())
	c.accept.Wait()
	for _, s := range []string{"first\n", "second\n"} {
		conn, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		send(t, conn, s)
		conn.Close()
	}
	report, _ := c.close()
	// Read at once by two goroutines: in either order.
	recs := byConn(records(t, report))
	want := []string{"1 line first", "1 closed", "2 line second", "2 closed"}
	if got := show(recs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestChannelBounds(t *testing.T) {
	t.Run("the report keeps whole records and counts them all", func(t *testing.T) {
		limits := testLimits
		limits.report = 200
		c, path := startChannel(t, limits)
		conn := dial(t, c, path)
		for i := range 20 {
			send(t, conn, fmt.Sprintf("line %d\n", i))
		}
		conn.Close()
		report, total := c.close()
		recs := records(t, report)
		if len(report) > 200 || len(recs) == 0 || total <= int64(len(report)) {
			t.Fatalf("report of %d bytes (%d records), total %d; want at most 200 bytes, and more counted", len(report), len(recs), total)
		}
		one := len(`{"conn":1,"pid":`+fmt.Sprint(os.Getpid())+`,"line":"line 10"}`) + 1
		closed := len(`{"conn":1,"pid":`+fmt.Sprint(os.Getpid())+`,"closed":true}`) + 1
		if want := int64(10*(one-1) + 10*one + closed); total != want {
			t.Errorf("total %d, want %d", total, want)
		}
	})

	t.Run("connections past the bound are closed, the first of them recorded", func(t *testing.T) {
		limits := testLimits
		limits.conns = 2
		c, path := startChannel(t, limits)
		var conns []net.Conn
		for range 5 {
			conns = append(conns, dial(t, c, path))
		}
		for i, conn := range conns {
			_, _ = conn.Write([]byte(fmt.Sprintf("from %d\n", i+1)))
			conn.Close()
		}
		report, _ := c.close()
		got := show(byConn(records(t, report)))
		want := []string{"1 line from 1", "1 closed", "2 line from 2", "2 closed", "3 cut more than 2 connections in one run", "3 closed"}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})

	t.Run("unfinished lines are bounded across connections", func(t *testing.T) {
		limits := testLimits
		limits.line, limits.pending = 20000, 6000
		c, path := startChannel(t, limits)
		a := dial(t, c, path)
		send(t, a, strings.Repeat("a", 8000))
		waitPending(t, c, 4096) // the reader's buffer
		b := dial(t, c, path)
		send(t, b, strings.Repeat("b", 8000))
		time.Sleep(50 * time.Millisecond)
		send(t, a, "\n")
		a.Close()
		b.Close()
		report, _ := c.close()
		got := show(records(t, report))
		want := []string{"2 cut more than 6000 bytes of unfinished lines across the connections", "2 closed", "1 line " + strings.Repeat("a", 8000), "1 closed"}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("records:\n%.300s\nwant:\n%.300s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if c.pending != 0 {
			t.Errorf("%d bytes still counted as pending", c.pending)
		}
	})
}

func waitPending(t *testing.T, c *channel, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		c.mu.Lock()
		held := c.pending
		c.mu.Unlock()
		if held >= n {
			return
		}
	}
	t.Fatalf("the channel never held %d bytes", n)
}

// Many writers at once: every line of each connection arrives, in its
// order, and a writer flooding bytes without newlines blocks nobody.
func TestChannelUnderLoad(t *testing.T) {
	limits := testLimits
	limits.line, limits.drain = MaxChannelLine, time.Minute
	c, path := startChannel(t, limits)
	flood, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	go func() {
		junk := bytes.Repeat([]byte("z"), 4096)
		for {
			select {
			case <-stop:
				flood.Close()
				return
			default:
				if _, err := flood.Write(junk); err != nil {
					return
				}
			}
		}
	}()
	const writers, lines = 20, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			conn, err := net.Dial("unix", path)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			bw := bufio.NewWriter(conn)
			for i := range lines {
				fmt.Fprintf(bw, `{"w":%d,"i":%d}`+"\n", w, i)
			}
			if err := bw.Flush(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	close(stop)
	report, total := c.close()
	next := map[int]int{}
	for _, r := range records(t, report) {
		// The flood's bytes come back as one unfinished line when it
		// closed before reaching the line bound, as on a busy machine,
		// where it gets little time to write.
		if r.Line == nil || strings.Trim(*r.Line, "z") == "" {
			continue
		}
		var l struct{ W, I int }
		if err := json.Unmarshal([]byte(*r.Line), &l); err != nil {
			t.Fatalf("line %q: %v", *r.Line, err)
		}
		if l.I != next[l.W] {
			t.Fatalf("writer %d: line %d after %d", l.W, l.I, next[l.W])
		}
		next[l.W]++
	}
	for w := range writers {
		if next[w] != lines {
			t.Errorf("writer %d: %d lines, want %d", w, next[w], lines)
		}
	}
	if total != int64(len(report)) {
		t.Errorf("total %d, report %d bytes", total, len(report))
	}
}

// The pid is the connecting process's, here a child's.
func TestChannelPeerPID(t *testing.T) {
	if path := os.Getenv("CAPSULE_CHANNEL_CHILD"); path != "" {
		conn, err := net.Dial("unix", path)
		if err != nil {
			os.Exit(3)
		}
		fmt.Fprintf(conn, "child %d\n", os.Getpid())
		os.Exit(0)
	}
	c, path := startChannel(t, testLimits)
	cmd := exec.Command(os.Args[0], "-test.run=^TestChannelPeerPID$")
	cmd.Env = append(os.Environ(), "CAPSULE_CHANNEL_CHILD="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	report, _ := c.close()
	recs := records(t, report)
	if len(recs) != 2 || recs[0].Line == nil || *recs[0].Line != fmt.Sprintf("child %d", cmd.Process.Pid) || recs[0].PID != cmd.Process.Pid {
		t.Errorf("records %s, want the child's line with its pid %d", report, cmd.Process.Pid)
	}
}

// Lines longer than the reader's buffer are kept whole up to the line
// bound, and cut one byte past it, whatever the writes.
func TestChannelLongLines(t *testing.T) {
	limits := testLimits
	limits.line = 5000
	tests := []struct {
		size  int
		write int // bytes per write
		cut   bool
	}{
		{4095, 1 << 20, false},
		{4096, 1 << 20, false},
		{4097, 1 << 20, false},
		{5000, 1 << 20, false},
		{5000, 999, false},
		{5001, 1 << 20, true},
		{5001, 1000, true},
		{9000, 1 << 20, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d bytes in writes of %d", tt.size, tt.write), func(t *testing.T) {
			c, path := startChannel(t, limits)
			conn := dial(t, c, path)
			line := strings.Repeat("x", tt.size) + "\nafter\n"
			for i := 0; i < len(line); i += tt.write {
				_, _ = conn.Write([]byte(line[i:min(i+tt.write, len(line))]))
			}
			conn.Close()
			report, total := c.close()
			want := []string{"1 line " + strings.Repeat("x", tt.size), "1 line after", "1 closed"}
			if tt.cut {
				want = []string{"1 cut a line longer than 5000 bytes", "1 closed"}
			}
			if got := show(records(t, report)); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("records:\n%.200s\nwant:\n%.200s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if total != int64(len(report)) || c.pending != 0 {
				t.Errorf("total %d of %d bytes, %d pending", total, len(report), c.pending)
			}
		})
	}
}

// The channel's directory is root's (here the test's) with mode 0755,
// whatever was there, and the socket replaces whatever stood at its path.
func TestOpenChannel(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir, socket string)
		err   string
	}{
		{"a new directory", func(t *testing.T, dir, socket string) {}, ""},
		{"a directory opened up", func(t *testing.T, dir, socket string) {
			makeTree(t, dir, entry{name: "other", content: "x"})
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"a stale file at the socket", func(t *testing.T, dir, socket string) {
			makeTree(t, dir, entry{name: "report.sock", content: "stale"})
		}, ""},
		{"a stale link at the socket", func(t *testing.T, dir, socket string) {
			makeTree(t, dir, entry{name: "report.sock", link: "/"})
		}, ""},
		{"a file in place of the directory", func(t *testing.T, dir, socket string) {
			if err := os.WriteFile(dir, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "report channel"},
		{"a directory at the socket", func(t *testing.T, dir, socket string) {
			makeTree(t, dir, entry{name: "report.sock/f", content: "x"})
		}, "report channel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "channel")
			socket := filepath.Join(dir, "report.sock")
			tt.setup(t, dir, socket)
			c, err := openChannel(dir, socket, testLimits)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("openChannel = %v, want %q", err, tt.err)
				}
				if c != nil {
					c.close()
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.close()
			fi, err := os.Stat(dir)
			if err != nil || fi.Mode().Perm() != 0o755 {
				t.Errorf("directory mode %v, %v; want 0755", fi.Mode(), err)
			}
			fi, err = os.Lstat(socket)
			if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o666 {
				t.Errorf("socket mode %v, %v; want a socket of mode 0666", fi.Mode(), err)
			}
		})
	}
}
