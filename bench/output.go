package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/capsulehq/capsule/bench/report"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// Files written into the output directory.
const (
	ResultsFile = "results.jsonl"
	SummaryFile = "summary.json"
	ChartFile   = "chart.svg"
	LogsDir     = "logs"
)

// output is the run's directory: results are appended one line per
// problem, and read back to resume.
type output struct {
	dir     string
	mu      sync.Mutex
	results *os.File
	done    map[string]report.Result
}

// openOutput creates dir if needed and reads the problems an earlier run
// finished. A torn last line (the process died while writing it) is
// dropped, so that problem runs again.
func openOutput(dir string) (*output, error) {
	if dir == "" {
		return nil, errors.New("no output directory (--out)")
	}
	if err := os.MkdirAll(filepath.Join(dir, LogsDir), 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	o := &output{dir: dir, done: make(map[string]report.Result)}
	path := filepath.Join(dir, ResultsFile)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read earlier results: %w", err)
	}
	var keep []byte
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var r report.Result
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.TaskID == "" {
			continue
		}
		o.done[r.TaskID] = r
		keep = append(append(keep, sc.Bytes()...), '\n')
	}
	if err := os.WriteFile(path, keep, 0o644); err != nil {
		return nil, fmt.Errorf("rewrite %s: %w", path, err)
	}
	o.results, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return o, nil
}

// append records one finished problem durably.
func (o *output) append(r report.Result) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.results.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", ResultsFile, err)
	}
	return o.results.Sync()
}

// writeLog stores a problem's attempt log as JSON and Markdown.
func (o *output) writeLog(l *attemptlog.Log) error {
	base := filepath.Join(o.dir, LogsDir, safeName(l.TaskID))
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".json", data, 0o644); err != nil {
		return fmt.Errorf("write attempt log: %w", err)
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# %s\n\n", l.TaskID)
	if err := l.WriteMarkdown(&md); err != nil {
		return err
	}
	return os.WriteFile(base+".md", []byte(md.String()), 0o644)
}

// writeSummary writes summary.json and the chart.
func (o *output) writeSummary(s report.Summary) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.dir, SummaryFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	f, err := os.Create(filepath.Join(o.dir, ChartFile))
	if err != nil {
		return fmt.Errorf("write chart: %w", err)
	}
	if err := report.WriteSVG(f, s); err != nil {
		f.Close()
		return fmt.Errorf("write chart: %w", err)
	}
	return f.Close()
}

func (o *output) Close() error { return o.results.Close() }

// safeName turns a task ID such as HumanEval/12 into a file name.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, id)
}
