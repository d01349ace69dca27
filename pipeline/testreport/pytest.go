package testreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strings"
	"time"
)

// wrapped is one record of the report channel as the sandbox's agent
// writes it: a line received on connection Conn from process PID, that
// connection's cut, or its end.
type wrapped struct {
	Conn   int     `json:"conn"`
	PID    int     `json:"pid"`
	Line   *string `json:"line"`
	Cut    *string `json:"cut"`
	Closed bool    `json:"closed"`
}

// record is one line a connection sent; which fields are set depends on
// Kind. Nothing in it names a process: the agent does.
type record struct {
	Kind string `json:"kind"`
	// tripwire
	Python     string `json:"python"`
	Executable string `json:"executable"`
	// audit
	Event string `json:"event"`
	// start
	Rootdir string `json:"rootdir"`
	Pytest  string `json:"pytest"`
	// collect-error
	Path string `json:"path"`
	// collected
	Count int `json:"count"`
	// test, audit and integrity
	File string `json:"file"`
	// test
	Classes  []string `json:"classes"`
	Name     string   `json:"name"`
	Params   string   `json:"params"`
	Outcome  Outcome  `json:"outcome"`
	Phase    string   `json:"phase"`
	Duration float64  `json:"duration"`
	// collect-error and test
	Message  string `json:"message"`
	Longrepr string `json:"longrepr"`
	// audit and integrity
	Line   int    `json:"line"`
	Detail string `json:"detail"`
	// integrity
	Check string `json:"check"`
	// end
	ExitStatus *int   `json:"exitstatus"`
	Stopped    string `json:"stopped"`
}

// The roles of a connection, named by its first line.
const (
	roleSession  = "start"
	roleTripwire = "tripwire"
)

// conn is what is known of one connection of the channel.
type conn struct {
	pid  int
	role string // "" until a first line names it
	// process is the session's index in Report.Processes.
	process int
	rootdir string
	// opened is the position of its first line, closed that of its
	// "closed" record, 0 while open.
	opened, closed int
	// ended is the position of the session's "end" record, lastBefore
	// that of the session's last record before it (its start at least).
	ended, lastBefore int
}

// pytestReader builds a Report from the channel's records.
type pytestReader struct {
	rep   *Report
	root  string
	conns map[int]*conn
	// sessions counts the sessions of each pid, to name them.
	sessions map[int]int
	// audited holds the audit events seen, to keep each once.
	audited map[AuditEvent]bool
}

// ParsePytest reads the report channel's records (see package
// sandbox/agent's Response.Report): the plugin's sessions and the
// tripwires' events, each connection's process named by the agent, never
// by what it sent. root is the workspace's directory as the sandbox saw
// it: files are named relative to it. It never fails: what cannot be read
// is noted in the Report and makes it incomplete.
func ParsePytest(data []byte, root string) *Report {
	r := &pytestReader{rep: newReport(), root: path.Clean(root), conns: map[int]*conn{},
		sessions: map[int]int{}, audited: map[AuditEvent]bool{}}
	for n, line := range lines(r.rep, data) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := r.read(n, line); err != nil {
			r.rep.malformed(n, err.Error())
		}
	}
	r.tripwires()
	return r.rep
}

// lines yields the whole lines of data, numbered from 1, within
// MaxReportBytes; a longer report is marked truncated.
func lines(rep *Report, data []byte) func(yield func(int, []byte) bool) {
	if len(data) > MaxReportBytes {
		rep.Truncated = true
		data = data[:bytes.LastIndexByte(data[:MaxReportBytes], '\n')+1]
	}
	return func(yield func(int, []byte) bool) {
		for n := 1; len(data) > 0; n++ {
			line, rest, _ := bytes.Cut(data, []byte("\n"))
			if !yield(n, line) {
				return
			}
			data = rest
		}
	}
}

// decodeStrict decodes exactly one JSON object with no unknown field.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one record")
	}
	return nil
}

// read takes the agent's record at position n.
func (r *pytestReader) read(n int, data []byte) error {
	var w wrapped
	if err := decodeStrict(data, &w); err != nil {
		return fmt.Errorf("not a channel record: %w", err)
	}
	set := 0
	for _, ok := range []bool{w.Line != nil, w.Cut != nil, w.Closed} {
		if ok {
			set++
		}
	}
	if w.Conn <= 0 || set != 1 {
		return fmt.Errorf("not a channel record: want a connection and one of line, cut and closed")
	}
	c, ok := r.conns[w.Conn]
	if !ok {
		c = &conn{pid: w.PID, process: -1}
		r.conns[w.Conn] = c
	}
	switch {
	case c.pid != w.PID:
		return fmt.Errorf("connection %d changed its pid from %d to %d", w.Conn, c.pid, w.PID)
	case c.closed > 0:
		return fmt.Errorf("a record of connection %d after its end", w.Conn)
	case w.Closed:
		c.closed = n
		return nil
	case w.Cut != nil:
		return fmt.Errorf("connection %d (pid %d) was cut: %s", w.Conn, w.PID, bound(*w.Cut, maxMessage))
	}
	var rec record
	if err := decodeStrict([]byte(*w.Line), &rec); err != nil {
		return fmt.Errorf("not a report record: %w", err)
	}
	if c.role == "" {
		c.opened = n
		return r.first(n, c, rec)
	}
	if c.role == roleTripwire {
		return r.audit(c, rec)
	}
	return r.session(n, c, rec)
}

// first takes a connection's first line, which names its role.
func (r *pytestReader) first(n int, c *conn, rec record) error {
	switch rec.Kind {
	case roleTripwire:
		c.role = roleTripwire
	case roleSession:
		c.role, c.rootdir, c.lastBefore = roleSession, rec.Rootdir, n
		c.process = len(r.rep.Processes)
		r.sessions[c.pid]++
		name := fmt.Sprintf("pid %d", c.pid)
		if k := r.sessions[c.pid]; k > 1 {
			name = fmt.Sprintf("pid %d session %d", c.pid, k)
		}
		r.rep.Processes = append(r.rep.Processes, Process{Name: name, PID: c.pid})
	default:
		c.role = "?" // every later line of it is refused too
		return fmt.Errorf("a connection (pid %d) that starts with a %q record", c.pid, rec.Kind)
	}
	return nil
}

// audit takes a tripwire's event.
func (r *pytestReader) audit(c *conn, rec record) error {
	if rec.Kind != "audit" || rec.Event == "" {
		return fmt.Errorf("a %q record on a tripwire's connection (pid %d)", rec.Kind, c.pid)
	}
	ev := AuditEvent{Event: bound(rec.Event, maxMessage), File: r.rebase("", rec.File), Line: rec.Line, Detail: bound(rec.Detail, maxMessage)}
	if r.audited[ev] {
		return nil
	}
	if len(r.audited) == maxAudit {
		return fmt.Errorf("more than %d different audit events", maxAudit)
	}
	r.audited[ev] = true
	ev.PID = c.pid
	r.rep.Audit = append(r.rep.Audit, ev)
	return nil
}

// session takes a record of a pytest session.
func (r *pytestReader) session(n int, c *conn, rec record) error {
	if c.role != roleSession {
		return fmt.Errorf("a %q record of a connection (pid %d) that did not start a session", rec.Kind, c.pid)
	}
	p := &r.rep.Processes[c.process]
	if p.Ended {
		return fmt.Errorf("a %q record of %s after its end", rec.Kind, p.Name)
	}
	if rec.Kind != "end" {
		c.lastBefore = n
	}
	switch rec.Kind {
	case "collect-error":
		p.CollectErrors = append(p.CollectErrors, CollectError{Path: r.rebase(c.rootdir, rec.Path), Message: bound(rec.Message, maxMessage)})
	case "collected":
		p.Collected = rec.Count
	case "test":
		if err := r.test(c, rec); err != nil {
			return err
		}
		if rec.Outcome.Failing() {
			p.Failing++
		}
	case "integrity":
		if rec.Check == "" {
			return fmt.Errorf("an integrity record without its check")
		}
		if len(r.rep.Integrity) == maxIntegrity {
			return fmt.Errorf("more than %d integrity failures", maxIntegrity)
		}
		r.rep.Integrity = append(r.rep.Integrity, Integrity{Check: bound(rec.Check, maxMessage), Detail: bound(rec.Detail, maxMessage),
			File: r.rebase("", rec.File), Line: rec.Line, PID: c.pid})
	case "end":
		if rec.ExitStatus == nil {
			return fmt.Errorf("an end record without exit status")
		}
		p.Ended, p.ExitStatus, p.Stopped = true, *rec.ExitStatus, bound(rec.Stopped, maxMessage)
		c.ended = n
	default:
		return fmt.Errorf("unknown record kind %q", rec.Kind)
	}
	return nil
}

func (r *pytestReader) test(c *conn, rec record) error {
	if rec.File == "" || rec.Name == "" || !rec.Outcome.Valid() {
		return fmt.Errorf("a test record without file, name or valid outcome")
	}
	d := rec.Duration
	if math.IsNaN(d) || d < 0 || d > 1e6 {
		d = 0
	}
	r.rep.add(Result{
		ID:       ID{File: r.rebase(c.rootdir, rec.File), Class: strings.Join(rec.Classes, "::"), Name: rec.Name, Params: rec.Params},
		Outcome:  rec.Outcome,
		Phase:    rec.Phase,
		Duration: time.Duration(d * float64(time.Second)),
		Message:  bound(rec.Message, maxMessage),
		Longrepr: bound(rec.Longrepr, maxLongrepr),
	})
	return nil
}

// tripwires marks each session whose process had a tripwire: one that
// connected before the session did (its connection number is lower: the
// agent numbers them in the order they connected). When the tripwire's
// connection closed says nothing: the agent reads every connection at once,
// so a tripwire closed at its process's exit may be recorded ahead of
// several records the session sent before it. Whether the tripwire was
// still the process's own at the session's end is the plugin's own check
// (an integrity record of kind "tripwire").
func (r *pytestReader) tripwires() {
	order := slices.Sorted(maps.Keys(r.conns))
	for _, sn := range order {
		s := r.conns[sn]
		if s.role != roleSession {
			continue
		}
		for _, tn := range order {
			if t := r.conns[tn]; tn < sn && t.role == roleTripwire && t.pid == s.pid {
				r.rep.Processes[s.process].Tripwire = true
			}
		}
	}
}

// rebase names a path relative to the workspace root: a path of a
// session's node ids is relative to its rootdir, an absolute path (a
// tripwire's) is taken as it is; a path outside the root stays absolute.
func (r *pytestReader) rebase(rootdir, p string) string {
	if p == "" {
		return ""
	}
	abs := path.Join(rootdir, p)
	if path.IsAbs(p) {
		abs = path.Clean(p)
	}
	if rel, ok := strings.CutPrefix(abs, strings.TrimSuffix(r.root, "/")+"/"); ok {
		return rel
	}
	if abs == r.root {
		return "."
	}
	return abs
}
