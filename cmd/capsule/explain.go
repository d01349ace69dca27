package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/capsulehq/capsule/pipeline/repocontext"
)

const (
	// explainHeading opens the explanation `capsule context --file`
	// prints, with the file (and lines) it is about.
	explainHeading = "==== Why %s ====\n"
	// maxBeforeRows is how many files placed before the explained one are
	// listed one a line; past that the first beforeHead and the last
	// beforeTail are, with a line summing up those between.
	maxBeforeRows = 12
	beforeHead    = 8
	beforeTail    = 2
)

// explainTarget reads the --file and --lines flags: nil when neither is
// set.
func explainTarget(file, lines string) (*repocontext.Target, error) {
	switch {
	case file != "" && lines != "":
		return nil, fmt.Errorf("%w: give --file or --lines, not both", errUsage)
	case file != "":
		return &repocontext.Target{Path: file}, nil
	case lines != "":
		t, err := parseLines(lines)
		if err != nil {
			return nil, fmt.Errorf("%w: --lines %q: %w", errUsage, lines, err)
		}
		return &t, nil
	}
	return nil, nil
}

// parseLines reads PATH:START-END, or PATH:LINE for one line.
func parseLines(s string) (repocontext.Target, error) {
	p, r, ok := cutLast(s, ":")
	if !ok || p == "" || r == "" {
		return repocontext.Target{}, fmt.Errorf("want PATH:START-END")
	}
	a, b, ok := strings.Cut(r, "-")
	if !ok {
		b = a
	}
	start, err1 := strconv.Atoi(a)
	end, err2 := strconv.Atoi(b)
	switch {
	case err1 != nil || err2 != nil:
		return repocontext.Target{}, fmt.Errorf("%q is not a range of lines: want START-END, two numbers", r)
	case start < 1 || end < start:
		return repocontext.Target{}, fmt.Errorf("lines %s: want 1 <= START <= END", r)
	}
	return repocontext.Target{Path: p, Start: start, End: end}, nil
}

// cutLast slices s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// writeExplanation prints where a file, or lines of it, stand in the
// context, and why.
func writeExplanation(w io.Writer, e *repocontext.Explanation) {
	lines := ""
	if e.Start > 0 {
		lines = fmt.Sprintf("lines %s", lineRange(e.Start, e.End))
	}
	name := e.Path
	if lines != "" {
		name += ", " + lines
	}
	fmt.Fprintf(w, explainHeading, name)
	if e.Rank > 0 {
		fmt.Fprintf(w, "Rank: %d of %d, %s: %s\n", e.Rank, e.Ranked, e.Tier, e.Why)
	} else {
		fmt.Fprintf(w, "Rank: not ranked (the ranking picked %d files)\n", e.Ranked)
	}
	for _, n := range e.Seen {
		fmt.Fprintf(w, "  seen: %s\n", n)
	}
	writeSize(w, e, lines)
	writeInContext(w, e, lines)
	turn := "when its turn came"
	if e.Rank == 0 {
		turn = "once every ranked file was placed"
	}
	heading := ""
	if e.HeadingTokens > 0 {
		heading = fmt.Sprintf(", the files heading %d", e.HeadingTokens)
	}
	fmt.Fprintf(w, "Budget: %d tokens: the issue took %d, the file tree %d%s; %d left %s, %d unused at the end\n",
		e.Budget, e.IssueTokens, e.TreeTokens, heading, e.Left, turn, e.Unused)
	writeBefore(w, e)
	for _, u := range e.Widened {
		fmt.Fprintf(w, "Then, the budget leaving room: %s (rank %d) shown whole, %d more tokens\n", u.Path, u.Rank, u.Tokens)
	}
}

// writeSize prints what the file, and the lines asked about, would take.
func writeSize(w io.Writer, e *repocontext.Explanation, lines string) {
	if e.Unreadable != "" {
		fmt.Fprintf(w, "Size: cannot be shown: %s\n", e.Unreadable)
		return
	}
	fmt.Fprintf(w, "Size: %d lines, %d tokens whole", e.Lines, e.WholeTokens)
	if lines != "" {
		fmt.Fprintf(w, "; %s alone, as a span, %d tokens", lines, e.SpanTokens)
	}
	fmt.Fprintln(w)
}

// writeInContext prints whether the file, and the lines asked about, are
// shown.
func writeInContext(w io.Writer, e *repocontext.Explanation, lines string) {
	in := e.Included
	switch {
	case in == nil && e.Omitted != "":
		fmt.Fprintf(w, "In the context: no: %s\n", e.Omitted)
	case in == nil:
		fmt.Fprintln(w, "In the context: no")
	case in.Whole():
		fmt.Fprintf(w, "In the context: whole, %d tokens\n", in.Tokens)
	default:
		fmt.Fprintf(w, "In the context: in part, %d tokens: %s\n", in.Tokens, shownParts(in))
	}
	if lines == "" {
		for _, s := range e.LeftOut {
			fmt.Fprintf(w, "  left out: %s\n", s)
		}
		return
	}
	switch covered := coveredLines(e.Shown); {
	case covered == 0 && in != nil && len(e.LeftOut) == 0:
		fmt.Fprintf(w, "Lines %s: not shown: no span was chosen over them\n", lineRange(e.Start, e.End))
	case covered == 0:
		fmt.Fprintf(w, "Lines %s: not shown\n", lineRange(e.Start, e.End))
	case covered == e.End-e.Start+1:
		fmt.Fprintf(w, "Lines %s: shown\n", lineRange(e.Start, e.End))
	default:
		fmt.Fprintf(w, "Lines %s: %d of %d shown\n", lineRange(e.Start, e.End), covered, e.End-e.Start+1)
	}
	for _, s := range e.Shown {
		fmt.Fprintf(w, "  shown: %s\n", s)
	}
	for _, s := range e.LeftOut {
		fmt.Fprintf(w, "  left out: %s\n", s)
	}
}

// shownParts lists what a file shown in part shows: "the outline, lines
// 3-9, lines 20-31".
func shownParts(in *repocontext.Included) string {
	var parts []string
	if in.Outline {
		parts = append(parts, "the outline")
	}
	for _, s := range in.Spans {
		parts = append(parts, "lines "+lineRange(s.Start, s.End))
	}
	return strings.Join(parts, ", ")
}

// coveredLines counts the lines spans cover; they do not overlap.
func coveredLines(spans []repocontext.Span) int {
	n := 0
	for _, s := range spans {
		n += s.End - s.Start + 1
	}
	return n
}

// writeBefore lists the files placed before the explained file's turn,
// the first and last of a long list, with a line for those between.
func writeBefore(w io.Writer, e *repocontext.Explanation) {
	total := 0
	for _, u := range e.Before {
		total += u.Tokens
	}
	skipped := ""
	if e.Skipped > 0 {
		skipped = fmt.Sprintf(" (%d ranked before it left out, taking none)", e.Skipped)
	}
	switch {
	case e.Rank == 1:
		fmt.Fprintln(w, "Before it: nothing, it came first")
		return
	case len(e.Before) == 0:
		fmt.Fprintf(w, "Before it: no file took any budget%s\n", skipped)
		return
	}
	fmt.Fprintf(w, "Before it: %d files took %d tokens%s:\n", len(e.Before), total, skipped)
	rows := e.Before
	var between []repocontext.Use
	if len(rows) > maxBeforeRows {
		between = rows[beforeHead : len(rows)-beforeTail]
		rows = append(rows[:beforeHead:beforeHead], rows[len(rows)-beforeTail:]...)
	}
	for k, u := range rows {
		if k == beforeHead && len(between) > 0 {
			sum := 0
			for _, b := range between {
				sum += b.Tokens
			}
			fmt.Fprintf(w, "  … %d more files, ranks %d-%d, %d tokens\n", len(between), between[0].Rank, between[len(between)-1].Rank, sum)
		}
		how := "whole"
		if !u.Whole {
			how = "in part"
		}
		fmt.Fprintf(w, "  %d. %s (%s): %d tokens, %s\n", u.Rank, u.Path, u.Why, u.Tokens, how)
	}
}

// lineRange formats lines a to b as "a-b", or "a" for one line.
func lineRange(a, b int) string {
	if a == b {
		return strconv.Itoa(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}
