package report

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// unit is how a limit measures a text.
type unit int

const (
	runes unit = iota // characters, as GitHub counts bodies
	bytes             // bytes, as the job summary is counted
)

func (u unit) count(s string) int {
	if u == bytes {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

// cut returns the longest prefix of s within n units.
func (u unit) cut(s string, n int) string {
	if u == bytes {
		return cutBytes(s, n)
	}
	return cutRunes(s, n)
}

// trim is what a rendering leaves out of the attempt log.
type trim struct {
	opts  attemptlog.MarkdownOptions
	noLog bool // leave out the whole log
}

func (t trim) clone() trim {
	t.opts.Attempts = append([]attemptlog.AttemptTrim(nil), t.opts.Attempts...)
	return t
}

// The newest attempt's output is first shortened from the usual cap down
// to minOutput bytes, later from minOutput down to nothing.
const minOutput = 1000

// step is one kind of trimming, applied to k units: k attempts, k bytes
// of output.
type step struct {
	units func(n int) int // how many units there are, for a log of n attempts
	apply func(t *trim, k int)
}

// older leaves set out of the k oldest attempts, of all but the newest.
func older(set func(*attemptlog.AttemptTrim)) step {
	return step{
		units: func(n int) int { return max(n-1, 0) },
		apply: func(t *trim, k int) {
			for i := range k {
				set(&t.opts.Attempts[i])
			}
		},
	}
}

// newest leaves set out of the newest attempt.
func newest(set func(*attemptlog.AttemptTrim)) step {
	return step{
		units: func(n int) int { return min(n, 1) },
		apply: func(t *trim, k int) {
			if k > 0 {
				set(&t.opts.Attempts[len(t.opts.Attempts)-1])
			}
		},
	}
}

// newestOutput shortens the newest attempt's test output from `from`
// bytes down to `to`; down to 0 leaves it out.
func newestOutput(from, to int) step {
	return step{
		units: func(n int) int { return min(n, 1) * (from - to) },
		apply: func(t *trim, k int) {
			a := &t.opts.Attempts[len(t.opts.Attempts)-1]
			a.MaxOutput = from - k
			a.Output = a.MaxOutput == 0
		},
	}
}

// whole leaves set out once, whatever the number of attempts.
func whole(set func(*trim)) step {
	return step{
		units: func(int) int { return 1 },
		apply: func(t *trim, k int) {
			if k > 0 {
				set(t)
			}
		},
	}
}

// policy is what a text with a size limit leaves out of the attempt log,
// in order; the one place that decides it. The text holds the log in
// full when it fits. When it does not, fit takes one kind of trimming at
// a time, oldest attempts first, and the fewest attempts (or bytes) that
// make the text fit before moving on to the next kind:
//
//  1. the test output of every attempt but the newest,
//  2. then their patches or code,
//  3. then their feedback,
//  4. then their folded details as a whole,
//  5. the list of files in the model's context,
//  6. the newest attempt's test output, shortened down to 1,000 bytes,
//  7. the newest attempt's patch (the pull request shows the change),
//  8. the table rows of every attempt but the newest,
//  9. the newest attempt's test output, shortened further, then left out,
//  10. its feedback, then its details,
//  11. the whole attempt log.
//
// The newest attempt thus keeps its details longest: it is the one the
// pull request holds. Should the text still be too long, which takes a
// limit of a few hundred characters, it is cut at the limit.
var policy = []step{
	older(func(a *attemptlog.AttemptTrim) { a.Output = true }),
	older(func(a *attemptlog.AttemptTrim) { a.Code = true }),
	older(func(a *attemptlog.AttemptTrim) { a.Feedback = true }),
	older(func(a *attemptlog.AttemptTrim) { a.Details = true }),
	whole(func(t *trim) { t.opts.NoContextFiles = true }),
	newestOutput(attemptlog.MarkdownOutputCap, minOutput),
	newest(func(a *attemptlog.AttemptTrim) { a.Code = true }),
	older(func(a *attemptlog.AttemptTrim) { a.Row = true }),
	newestOutput(minOutput, 0),
	newest(func(a *attemptlog.AttemptTrim) { a.Feedback = true }),
	newest(func(a *attemptlog.AttemptTrim) { a.Details = true }),
	whole(func(t *trim) { t.noLog = true }),
}

// fit renders a text with as little of log left out as makes it fit in
// limit units, following policy; draw renders the whole text under a
// trim.
func fit(log *attemptlog.Log, u unit, limit int, draw func(trim) string) string {
	// Test output may hold bytes that are not UTF-8; GitHub would refuse
	// them or count them differently.
	render := func(t trim) string { return strings.ToValidUTF8(draw(t), "\uFFFD") }
	t := trim{opts: attemptlog.MarkdownOptions{Attempts: make([]attemptlog.AttemptTrim, len(log.Attempts))}}
	out := render(t)
	if u.count(out) <= limit {
		return out
	}
	for _, s := range policy {
		units := s.units(len(log.Attempts))
		if units == 0 {
			continue
		}
		try := func(k int) bool {
			c := t.clone()
			s.apply(&c, k)
			return u.count(render(c)) <= limit
		}
		if !try(units) {
			s.apply(&t, units)
			continue
		}
		// The fewest units that make the text fit.
		s.apply(&t, sort.Search(units, try))
		return render(t)
	}
	return u.cut(render(t), limit)
}

// writeLog writes the attempt log under t, after a note on what t leaves
// out; limit names the limit, e.g. "GitHub's 65,536-character limit".
func writeLog(b *strings.Builder, log *attemptlog.Log, t trim, limit string) {
	const where = "; the full log is in the job's artifact or log."
	if t.noLog {
		b.WriteString("> [!NOTE]\n" + quote("The attempt log is left out to fit "+limit+where) + "\n\n")
		return
	}
	var md strings.Builder
	opts := t.opts
	opts.NoProof = true                            // the text shows it at its top
	omitted, _ := log.WriteMarkdownWith(&md, opts) // a strings.Builder does not fail
	if what := leftOut(omitted); what != "" {
		b.WriteString("> [!NOTE]\n" + quote(what+" trimmed to fit "+limit+where) + "\n\n")
	}
	b.WriteString(md.String() + "\n")
}

// leftOut says what a rendering of the attempt log left out, e.g.
// "Output of attempts 0–2 and code of attempt 0", or is empty.
func leftOut(o attemptlog.Omitted) string {
	var parts []string
	for _, p := range []struct {
		what string
		idx  []int
	}{{"output", o.Output}, {"code", o.Code}, {"feedback", o.Feedback}, {"details", o.Details}, {"rows and details", o.Rows}} {
		if len(p.idx) > 0 {
			parts = append(parts, p.what+" of "+attemptlog.AttemptList(p.idx))
		}
	}
	if o.ContextFiles {
		parts = append(parts, "the list of files in the context")
	}
	return capitalize(join(parts))
}
