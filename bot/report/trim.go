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
	max   func(n int) int // the most units there are, for a log of n attempts
	apply func(t *trim, k int)
}

func older(n int) int {
	if n == 0 {
		return 0
	}
	return n - 1
}

func newest(units int) func(n int) int {
	return func(n int) int {
		if n == 0 {
			return 0
		}
		return units
	}
}

// oldest applies set to the first k attempts.
func oldest(set func(*attemptlog.AttemptTrim)) func(t *trim, k int) {
	return func(t *trim, k int) {
		for i := 0; i < k; i++ {
			set(&t.opts.Attempts[i])
		}
	}
}

// last applies set to the newest attempt when k is 1.
func last(set func(*attemptlog.AttemptTrim)) func(t *trim, k int) {
	return func(t *trim, k int) {
		if k > 0 {
			set(&t.opts.Attempts[len(t.opts.Attempts)-1])
		}
	}
}

// steps are the kinds of trimming fit tries, in order. A text with a size
// limit holds the attempt log in full when it fits. When it does not, fit
// leaves parts of the log out, one kind at a time and oldest attempts
// first, taking the fewest attempts (or bytes) that make the text fit
// before moving on to the next kind:
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
var steps = []step{
	{older, oldest(func(a *attemptlog.AttemptTrim) { a.Output = true })},
	{older, oldest(func(a *attemptlog.AttemptTrim) { a.Code = true })},
	{older, oldest(func(a *attemptlog.AttemptTrim) { a.Feedback = true })},
	{older, oldest(func(a *attemptlog.AttemptTrim) { a.Details = true })},
	{func(int) int { return 1 }, func(t *trim, k int) { t.opts.NoContextFiles = k > 0 }},
	{newest(attemptlog.MarkdownOutputCap - minOutput), func(t *trim, k int) {
		t.opts.Attempts[len(t.opts.Attempts)-1].MaxOutput = attemptlog.MarkdownOutputCap - k
	}},
	{newest(1), last(func(a *attemptlog.AttemptTrim) { a.Code = true })},
	{older, oldest(func(a *attemptlog.AttemptTrim) { a.Row = true })},
	{newest(minOutput), func(t *trim, k int) {
		a := &t.opts.Attempts[len(t.opts.Attempts)-1]
		a.MaxOutput = minOutput - k
		a.Output = k == minOutput
	}},
	{newest(1), last(func(a *attemptlog.AttemptTrim) { a.Feedback = true })},
	{newest(1), last(func(a *attemptlog.AttemptTrim) { a.Details = true })},
	{func(int) int { return 1 }, func(t *trim, k int) { t.noLog = k > 0 }},
}

// fit renders a text with as little of log left out as makes it fit in
// limit units; draw renders the whole text under a trim.
func fit(log *attemptlog.Log, u unit, limit int, draw func(trim) string) string {
	// Test output may hold bytes that are not UTF-8; GitHub would refuse
	// them or count them differently.
	render := func(t trim) string { return strings.ToValidUTF8(draw(t), "\uFFFD") }
	t := trim{opts: attemptlog.MarkdownOptions{Attempts: make([]attemptlog.AttemptTrim, len(log.Attempts))}}
	out := render(t)
	if u.count(out) <= limit {
		return out
	}
	n := len(log.Attempts)
	for _, s := range steps {
		max := s.max(n)
		if max == 0 {
			continue
		}
		try := func(k int) (string, bool) {
			c := t.clone()
			s.apply(&c, k)
			out := render(c)
			return out, u.count(out) <= limit
		}
		if _, ok := try(max); !ok {
			s.apply(&t, max)
			continue
		}
		// The fewest units that make the text fit.
		k := sort.Search(max, func(k int) bool { _, ok := try(k); return ok })
		s.apply(&t, k)
		return render(t)
	}
	return u.cut(render(t), limit)
}

// note says what t leaves out of log and why, or is empty when t leaves
// nothing out; limit names the limit, e.g. "GitHub's 65,536-character
// limit".
func (t trim) note(log *attemptlog.Log, limit string) string {
	const where = "; the full log is in the job's artifact or log."
	if t.noLog {
		return "The attempt log is left out to fit " + limit + where
	}
	var output, code, feedback, details, rows []int
	for i, a := range log.Attempts {
		at := t.opts.Attempts[i]
		switch {
		case at.Row:
			rows = append(rows, a.Index)
		case at.Details:
			details = append(details, a.Index)
		default:
			if a.Run != nil && a.Run.Output != "" && (at.Output || at.MaxOutput > 0 && at.MaxOutput < attemptlog.MarkdownOutputCap && len(a.Run.Output) > at.MaxOutput) {
				output = append(output, a.Index)
			}
			if at.Code && (a.Patch != "" || a.Code != "") {
				code = append(code, a.Index)
			}
			if at.Feedback && a.Feedback != "" {
				feedback = append(feedback, a.Index)
			}
		}
	}
	var parts []string
	add := func(what string, idx []int) {
		if len(idx) > 0 {
			parts = append(parts, what+" of "+attemptlog.AttemptList(idx))
		}
	}
	add("output", output)
	add("code", code)
	add("feedback", feedback)
	add("details", details)
	add("rows and details", rows)
	if c := log.Context; t.opts.NoContextFiles && c != nil && len(c.Included)+len(c.Omitted) > 0 {
		parts = append(parts, "the list of files in the context")
	}
	if len(parts) == 0 {
		return ""
	}
	return capitalize(join(parts)) + " trimmed to fit " + limit + where
}

// logMarkdown renders log as attemptlog does, leaving out what t says.
func logMarkdown(log *attemptlog.Log, t trim) string {
	var b strings.Builder
	opts := t.opts
	opts.NoProof = true             // the body shows it at its top
	log.WriteMarkdownWith(&b, opts) // a strings.Builder does not fail
	return b.String()
}
