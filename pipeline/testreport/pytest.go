package testreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"
)

// record is one line of the plugin's report; which fields are set depends
// on Kind.
type record struct {
	Kind    string `json:"kind"`
	PID     int    `json:"pid"`
	Session int    `json:"session"`
	// start
	Rootdir string `json:"rootdir"`
	Pytest  string `json:"pytest"`
	// collect-error
	Path string `json:"path"`
	// collected
	Count int `json:"count"`
	// test
	File     string   `json:"file"`
	Classes  []string `json:"classes"`
	Name     string   `json:"name"`
	Params   string   `json:"params"`
	Outcome  Outcome  `json:"outcome"`
	Phase    string   `json:"phase"`
	Duration float64  `json:"duration"`
	// collect-error and test
	Message  string `json:"message"`
	Longrepr string `json:"longrepr"`
	// end
	ExitStatus *int   `json:"exitstatus"`
	Stopped    string `json:"stopped"`
}

// session names a pytest session: its process, and its number among the
// sessions of that process (a test may call pytest.main).
type session struct{ pid, n int }

func (s session) String() string {
	if s.n > 1 {
		return fmt.Sprintf("pid %d session %d", s.pid, s.n)
	}
	return "pid " + strconv.Itoa(s.pid)
}

// pytestReader builds a Report from the plugin's records.
type pytestReader struct {
	rep  *Report
	root string
	// current maps a session to its process in rep.Processes, rootdir to
	// the directory its paths are relative to.
	current map[session]int
	rootdir map[session]string
}

// ParsePytest reads the plugin's report file. root is the workspace's
// directory as the sandbox saw it: test files are named relative to it.
// It never fails: what cannot be read is noted in the Report.
func ParsePytest(data []byte, root string) *Report {
	r := &pytestReader{rep: newReport(), root: path.Clean(root), current: map[session]int{}, rootdir: map[session]string{}}
	for n, line := range lines(r.rep, data) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := r.read(line); err != nil {
			r.rep.malformed(n, err.Error())
		}
	}
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

func (r *pytestReader) read(line []byte) error {
	var rec record
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return fmt.Errorf("not a report record: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("more than one record")
	}
	key := session{rec.PID, rec.Session}
	if rec.Kind == "start" {
		r.current[key] = len(r.rep.Processes)
		r.rootdir[key] = rec.Rootdir
		r.rep.Processes = append(r.rep.Processes, Process{Name: key.String()})
		return nil
	}
	i, ok := r.current[key]
	if !ok || r.rep.Processes[i].Ended {
		return fmt.Errorf("a %q record of %s, which had not started", rec.Kind, key)
	}
	p := &r.rep.Processes[i]
	switch rec.Kind {
	case "collect-error":
		p.CollectErrors = append(p.CollectErrors, CollectError{Path: r.rebase(key, rec.Path), Message: bound(rec.Message, maxMessage)})
	case "collected":
		p.Collected = rec.Count
	case "test":
		return r.test(key, rec)
	case "end":
		if rec.ExitStatus == nil {
			return fmt.Errorf("an end record without exit status")
		}
		p.Ended, p.ExitStatus, p.Stopped = true, *rec.ExitStatus, bound(rec.Stopped, maxMessage)
	default:
		return fmt.Errorf("unknown record kind %q", rec.Kind)
	}
	return nil
}

func (r *pytestReader) test(key session, rec record) error {
	if rec.File == "" || rec.Name == "" || !rec.Outcome.Valid() {
		return fmt.Errorf("a test record without file, name or valid outcome")
	}
	d := rec.Duration
	if math.IsNaN(d) || d < 0 || d > 1e6 {
		d = 0
	}
	r.rep.add(Result{
		ID:       ID{File: r.rebase(key, rec.File), Class: strings.Join(rec.Classes, "::"), Name: rec.Name, Params: rec.Params},
		Outcome:  rec.Outcome,
		Phase:    rec.Phase,
		Duration: time.Duration(d * float64(time.Second)),
		Message:  bound(rec.Message, maxMessage),
		Longrepr: bound(rec.Longrepr, maxLongrepr),
	})
	return nil
}

// rebase names a path of a process's node ids (relative to its rootdir)
// relative to the workspace root; a path outside the root stays absolute.
func (r *pytestReader) rebase(key session, p string) string {
	if p == "" {
		return ""
	}
	abs := path.Join(r.rootdir[key], p)
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
