//go:build linux

package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// maxChannelPending bounds the bytes of unfinished lines the agent holds
// across all connections of a run; a connection whose line would pass it
// is cut.
const maxChannelPending = 32 << 20

// channelDrain bounds how long the agent reads the connections left open
// once the run's processes are gone: a peer end kept alive past them (a
// descriptor in flight somewhere) must not hold the answer back.
const channelDrain = 5 * time.Second

// channelLimits are the bounds of one run's channel; tests shrink them.
type channelLimits struct {
	line, conns, report, pending int
	drain                        time.Duration
}

var defaultChannelLimits = channelLimits{
	line: MaxChannelLine, conns: MaxChannelConns, report: MaxReport,
	pending: maxChannelPending, drain: channelDrain,
}

// channel serves the report channel of one run: it accepts connections
// on a Unix socket, reads every one in a goroutine of its own and appends
// each line it receives, wrapped, to the report. Nothing it receives can
// block or stop it: lines, connections and the report are bounded.
type channel struct {
	l      *net.UnixListener
	limits channelLimits
	accept sync.WaitGroup // the accepting goroutine
	reader sync.WaitGroup // one per connection

	mu      sync.Mutex
	conns   int                    // connections accepted, numbered from 1
	live    map[*net.UnixConn]bool // connections still read
	report  bytes.Buffer           // whole records within limits.report
	total   int64                  // bytes of every record, kept or not
	full    bool                   // a record did not fit: nothing more is kept
	pending int                    // bytes of unfinished lines held
	refused bool                   // a connection past limits.conns was recorded
}

// record is one line of the report.
type record struct {
	Conn   int     `json:"conn"`
	PID    int     `json:"pid"`
	Line   *string `json:"line,omitempty"`
	Cut    string  `json:"cut,omitempty"`
	Closed bool    `json:"closed,omitempty"`
}

// openChannel makes dir, root's with mode 0755, and listens on
// ChannelSocket in it.
func openChannel(dir, socket string, limits channelLimits) (*channel, error) {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("report channel: %w", err)
	}
	if err := resetDir(dir, 0o755, os.Geteuid(), os.Getegid()); err != nil {
		return nil, fmt.Errorf("report channel: %w", err)
	}
	return listenChannel(socket, limits)
}

// listenChannel listens on a new socket at path, mode 0666, and accepts
// connections until close.
func listenChannel(path string, limits channelLimits) (*channel, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report channel: %w", err)
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("report channel: %w", err)
	}
	// The umask may have cleared the others' write bit, which connecting
	// needs.
	if err := os.Chmod(path, 0o666); err != nil {
		l.Close()
		return nil, fmt.Errorf("report channel: %w", err)
	}
	c := &channel{l: l, limits: limits, live: map[*net.UnixConn]bool{}}
	c.accept.Add(1)
	go c.serve()
	return c, nil
}

// serve accepts connections until the listener's deadline passes or it
// is closed.
func (c *channel) serve() {
	defer c.accept.Done()
	for {
		conn, err := c.l.AcceptUnix()
		if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// A passing failure (EMFILE, ENOBUFS): the peer that was
			// refused sees its connection fail, the next may succeed.
			time.Sleep(time.Millisecond)
			continue
		}
		c.take(conn, nil)
	}
}

// take numbers a new connection and starts reading it, or closes it when
// the run has too many. A connection taken after the run's processes are
// gone gets its read deadline now.
func (c *channel) take(conn *net.UnixConn, deadline *time.Time) {
	pid := peerPID(conn)
	c.mu.Lock()
	c.conns++
	n := c.conns
	over := n > c.limits.conns
	if over {
		if !c.refused {
			c.refused = true
			c.addLocked(record{Conn: n, PID: pid, Cut: fmt.Sprintf("more than %d connections in one run", c.limits.conns)})
			c.addLocked(record{Conn: n, PID: pid, Closed: true})
		}
		c.mu.Unlock()
		conn.Close()
		return
	}
	c.live[conn] = true
	c.reader.Add(1)
	c.mu.Unlock()
	if deadline != nil {
		_ = conn.SetReadDeadline(*deadline)
	}
	go c.read(conn, n, pid)
}

// peerPID is the pid of the process that connected, as SO_PEERCRED saw
// it at connect time, or 0 when the kernel does not tell it.
func peerPID(conn *net.UnixConn) int {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || credErr != nil {
		return 0
	}
	return int(cred.Pid)
}

// read records every line of one connection until its end, a line too
// long, or the drain's deadline.
func (c *channel) read(conn *net.UnixConn, n, pid int) {
	defer c.reader.Done()
	defer func() {
		c.mu.Lock()
		delete(c.live, conn)
		c.addLocked(record{Conn: n, PID: pid, Closed: true})
		c.mu.Unlock()
		conn.Close()
	}()
	r := bufio.NewReaderSize(conn, 4096)
	var line []byte
	held := 0 // bytes of line counted in c.pending
	defer func() { c.hold(-held) }()
	for {
		chunk, err := r.ReadSlice('\n')
		complete := err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		if len(line)+len(chunk) > c.limits.line {
			c.add(record{Conn: n, PID: pid, Cut: fmt.Sprintf("a line longer than %d bytes", c.limits.line)})
			return
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the reader's buffer: kept, and counted,
			// until its end comes.
			if !c.hold(len(chunk)) {
				c.add(record{Conn: n, PID: pid, Cut: fmt.Sprintf("more than %d bytes of unfinished lines across the connections", c.limits.pending)})
				return
			}
			held += len(chunk)
			line = append(line, chunk...)
			continue
		}
		if len(line) > 0 {
			chunk = append(line, chunk...)
		}
		// At the end of the connection, or at the drain's deadline, a
		// last line without its newline is recorded as it came.
		if complete || len(chunk) > 0 {
			c.addLine(n, pid, chunk)
		}
		c.hold(-held)
		line, held = line[:0], 0
		if !complete {
			return
		}
	}
}

// hold counts n more bytes of unfinished lines (n < 0 gives them back),
// and reports false, counting nothing, when that would pass the bound.
func (c *channel) hold(n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > 0 && c.pending+n > c.limits.pending {
		return false
	}
	c.pending += n
	return true
}

func (c *channel) addLine(n, pid int, line []byte) {
	s := string(line)
	c.add(record{Conn: n, PID: pid, Line: &s})
}

func (c *channel) add(rec record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.addLocked(rec)
}

// addLocked appends a record to the report while it fits, and counts it
// always.
func (c *channel) addLocked(rec record) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return // a record of strings and numbers always encodes
	}
	c.total += int64(buf.Len())
	if c.full || c.report.Len()+buf.Len() > c.limits.report {
		c.full = true
		return
	}
	c.report.Write(buf.Bytes())
}

// close stops accepting, takes the connections still waiting to be
// accepted, reads every connection to its end (the run's processes being
// gone, they end at once) or until the drain's deadline, and returns the
// report with the bytes of all its records.
func (c *channel) close() ([]byte, int64) {
	deadline := time.Now().Add(c.limits.drain)
	_ = c.l.SetDeadline(time.Now())
	c.accept.Wait()
	c.acceptWaiting(deadline)
	c.l.Close()
	c.mu.Lock()
	for conn := range c.live {
		_ = conn.SetReadDeadline(deadline)
	}
	c.mu.Unlock()
	c.reader.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.report.Bytes(), c.total
}

// acceptWaiting takes every connection queued on the listener without
// waiting for more: a process may have connected and written its lines,
// then been killed, before the agent accepted it.
func (c *channel) acceptWaiting(deadline time.Time) {
	raw, err := c.l.SyscallConn()
	if err != nil {
		return
	}
	for {
		fd := -1
		var acceptErr error
		if err := raw.Control(func(lfd uintptr) {
			fd, _, acceptErr = syscall.Accept4(int(lfd), syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
		}); err != nil {
			return
		}
		if errors.Is(acceptErr, syscall.ECONNABORTED) || errors.Is(acceptErr, syscall.EINTR) {
			continue
		}
		if acceptErr != nil {
			return // EAGAIN: none left
		}
		f := os.NewFile(uintptr(fd), "report channel")
		conn, err := net.FileConn(f)
		f.Close()
		if uc, ok := conn.(*net.UnixConn); err == nil && ok {
			c.take(uc, &deadline)
		} else if err == nil {
			conn.Close()
		}
	}
}
