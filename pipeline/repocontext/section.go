package repocontext

import (
	"fmt"
	"slices"
	"strings"
)

const (
	// maxHeaderBytes caps a signature in the outline.
	maxHeaderBytes = 120
	// maxMergeGap is the most omitted lines between two spans that are
	// shown joined rather than with an elision mark.
	maxMergeGap = 2
)

// Span is a range of lines of a file shown in the context, or left out.
type Span struct {
	// Start and End are line numbers from 1, both included.
	Start, End int
	// Why says why the span was chosen, e.g. "defines divide"; for a span
	// left out, why it was left out first.
	Why string
}

// String formats a span as "lines 3-9 (defines divide)".
func (s Span) String() string {
	return fmt.Sprintf("lines %s (%s)", lineRange{s.Start, s.End}, s.Why)
}

// partial is a large file shown in part: its outline, if any, and spans.
type partial struct {
	path, why string
	readOnly  bool
	lines     []string
	outline   string
	spans     []Span // in line order, merged
	// intro, when set, follows the line count in the heading instead of
	// saying the file is too long to show whole (a lookup's answer).
	intro string
}

// merged returns spans sorted by line and joined where they overlap or
// lie at most maxMergeGap lines apart.
func merged(spans []Span) []Span {
	s := slices.Clone(spans)
	slices.SortFunc(s, func(a, b Span) int { return a.Start - b.Start })
	var out []Span
	for _, sp := range s {
		if k := len(out) - 1; k >= 0 && sp.Start <= out[k].End+maxMergeGap+1 {
			out[k].End = max(out[k].End, sp.End)
			if !strings.Contains(out[k].Why, sp.Why) {
				out[k].Why += "; " + sp.Why
			}
			continue
		}
		out = append(out, sp)
	}
	return out
}

// render writes the section: the heading, the outline, then each span's
// exact text in a fenced block under its line range, with a mark for
// every run of omitted lines.
func (p *partial) render() string {
	var b strings.Builder
	b.WriteString("\n### ")
	b.WriteString(p.path)
	if p.readOnly {
		b.WriteString(" (read-only)")
	}
	fmt.Fprintf(&b, " (%s)\n%d lines", p.why, len(p.lines))
	switch {
	case p.intro != "":
		b.WriteString(p.intro + "\n")
	case p.outline != "":
		b.WriteString(", too long to show whole: its outline (definitions with their lines), then the parts that matter.\n")
	default:
		b.WriteString(", too long to show whole: the parts that matter.\n")
	}
	if p.outline != "" {
		b.WriteString("```text\n")
		b.WriteString(p.outline)
		b.WriteString("```\n")
	}
	next := 1
	for _, s := range p.spans {
		if s.Start > next {
			fmt.Fprintf(&b, "⋮ lines %s omitted\n", lineRange{next, s.Start - 1})
		}
		fmt.Fprintf(&b, "Lines %s (%s):\n", lineRange{s.Start, s.End}, s.Why)
		text := strings.Join(p.lines[s.Start-1:s.End], "\n") + "\n"
		fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
		b.WriteString(fence + langTag(p.path) + "\n" + text + fence + "\n")
		next = s.End + 1
	}
	if next <= len(p.lines) {
		fmt.Fprintf(&b, "⋮ lines %s omitted\n", lineRange{next, len(p.lines)})
	}
	return b.String()
}

// outlineText lists the imports and the defs and classes of o that are
// not inside a function, each with its lines, within limit bytes. When
// that is too long, classes holding none of the spans collapse to one
// line; when still too long, the imports, the classes and the defs
// holding spans are kept first, then the others in file order while they
// fit, and a last line counts those left out.
func outlineText(o *pyOutline, spans []candidate, limit int) string {
	holds := func(d pyDef) bool {
		for _, s := range spans {
			if s.start <= d.end && d.start <= s.end {
				return true
			}
		}
		return false
	}
	var entries []outlineEntry
	for _, collapse := range []bool{false, true} {
		entries = o.entries(collapse, holds)
		size := 0
		for _, e := range entries {
			size += len(e.text)
		}
		if size <= limit {
			var b strings.Builder
			for _, e := range entries {
				b.WriteString(e.text)
			}
			return b.String()
		}
	}
	return keepWithin(entries, limit)
}

// An outlineEntry is one line of a file's outline; the important ones
// (imports, top-level classes, defs holding spans) are kept first.
type outlineEntry struct {
	text      string
	important bool
}

// entries returns the outline's lines: the imports, then the defs listed
// (see depth), classes holding no span collapsed when collapse is set.
func (o *pyOutline) entries(collapse bool, holds func(pyDef) bool) []outlineEntry {
	var entries []outlineEntry
	for _, r := range o.imports {
		entries = append(entries, outlineEntry{fmt.Sprintf("imports  # lines %s\n", r), true})
	}
	for k, d := range o.defs {
		depth, visible := o.depth(k, collapse, holds)
		if !visible {
			continue
		}
		h := d.header
		if len(h) > maxHeaderBytes {
			h = strings.ToValidUTF8(h[:maxHeaderBytes], "") + "…"
		}
		note := ""
		if n := o.children(k); collapse && d.class && n > 0 && !holds(d) {
			note = fmt.Sprintf(", %d defs not listed", n)
		}
		text := fmt.Sprintf("%s%s  # lines %s%s\n", strings.Repeat("    ", depth), h, lineRange{d.start, d.end}, note)
		entries = append(entries, outlineEntry{text, d.class && depth == 0 || holds(d)})
	}
	return entries
}

// keepWithin keeps the important entries, then the others, in file order
// while they fit in limit bytes with a last line counting those left out;
// "" when none fits.
func keepWithin(entries []outlineEntry, limit int) string {
	keep := make([]bool, len(entries))
	used, kept := len("… 100000 more entries\n"), 0
	for _, pass := range []bool{true, false} {
		for k, e := range entries {
			if !keep[k] && e.important == pass && used+len(e.text) <= limit {
				keep[k], used, kept = true, used+len(e.text), kept+1
			}
		}
	}
	if kept == 0 {
		return ""
	}
	var b strings.Builder
	for k, e := range entries {
		if keep[k] {
			b.WriteString(e.text)
		}
	}
	fmt.Fprintf(&b, "… %d more entries\n", len(entries)-kept)
	return b.String()
}

// depth returns the nesting of def k and whether the outline lists it:
// not inside a function, nor, when collapse is set, inside a class that
// holds no span.
func (o *pyOutline) depth(k int, collapse bool, holds func(pyDef) bool) (int, bool) {
	depth := 0
	for p := o.defs[k].parent; p >= 0; p = o.defs[p].parent {
		if !o.defs[p].class || collapse && !holds(o.defs[p]) {
			return 0, false
		}
		depth++
	}
	return depth, true
}

// children counts the defs directly inside def k.
func (o *pyOutline) children(k int) int {
	n := 0
	for _, d := range o.defs[k+1:] {
		if d.parent == k {
			n++
		}
	}
	return n
}
