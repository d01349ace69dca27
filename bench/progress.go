package bench

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/capsulehq/capsule/bench/report"
)

// tracker prints one progress line per finished problem: done/total,
// solved so far, model calls, elapsed time and the estimated time left.
type tracker struct {
	w      io.Writer
	total  int
	start  time.Time
	mu     sync.Mutex
	done   int
	fresh  int // finished by this run, for the time estimate
	solved int
	calls  int
}

func newTracker(w io.Writer, total int, earlier []report.Result) *tracker {
	t := &tracker{w: w, total: total, start: time.Now()}
	for _, r := range earlier {
		t.count(r)
	}
	return t
}

func (t *tracker) count(r report.Result) {
	t.done++
	t.calls += r.ModelCalls
	if r.Solved {
		t.solved++
	}
}

func (t *tracker) finished(r report.Result) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.count(r)
	t.fresh++
	elapsed := time.Since(t.start)
	eta := time.Duration(float64(elapsed) / float64(t.fresh) * float64(t.total-t.done))
	verdict := "not solved"
	if r.Solved {
		verdict = fmt.Sprintf("solved at attempt %d", r.AttemptIndex)
	}
	fmt.Fprintf(t.w, "[%*d/%d] solved %d, model calls %d, elapsed %s, eta %s  %s %s\n",
		len(fmt.Sprint(t.total)), t.done, t.total, t.solved, t.calls,
		elapsed.Round(time.Second), eta.Round(time.Second), r.TaskID, verdict)
}

// setName names the dataset in the summary: the file name without its
// extensions, and the format when it was given.
func setName(cfg Config) string {
	name := filepath.Base(cfg.Dataset)
	if i := strings.Index(name, "."); i > 0 {
		name = name[:i]
	}
	return name
}
