package edits

import (
	"fmt"
	"slices"
	"strings"
)

// match is where a SEARCH part lies in a file: lines [start, end), and how
// its indentation differs from the file's.
type match struct {
	start, end int
	indent     shift
}

// shift is a uniform indentation offset: the file's lines have add before
// the SEARCH lines' indentation, or lack remove from it.
type shift struct{ add, remove string }

// apply re-indents REPLACE lines by the offset found for SEARCH.
func (s shift) apply(lines []string) []string {
	if s == (shift{}) {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		switch {
		case isBlank(l):
			out[i] = l
		case s.add != "":
			out[i] = s.add + l
		default:
			out[i] = strings.TrimPrefix(l, s.remove)
		}
	}
	return out
}

// locate finds the one place search quotes in file: exactly; else the same
// lines up to trailing white space and a uniform indentation offset; else,
// when search has "..." lines, each piece between them once, in order. It
// refuses a SEARCH that matches nowhere or more than once, with an error
// written for the model.
func locate(file, search []string) (match, error) {
	if ms := find(file, search); len(ms) > 0 || !hasElision(search) {
		return only(file, search, ms)
	}
	pieces := splitElided(search)
	if len(pieces[0]) == 0 || len(pieces[len(pieces)-1]) == 0 {
		return match{}, fmt.Errorf(`the SEARCH part starts or ends with a "..." line; its first and last lines must be lines of the file`)
	}
	var whole match
	for k, p := range pieces {
		if len(p) == 0 {
			continue // two "..." lines in a row
		}
		m, err := only(file, p, find(file, p))
		if err != nil {
			return match{}, fmt.Errorf(`piece %d of the SEARCH part (between "..." lines): %w`, k+1, err)
		}
		switch {
		case k == 0:
			whole = m
		case m.start < whole.end:
			return match{}, fmt.Errorf(`piece %d of the SEARCH part (between "..." lines) is at line %d, before the piece above it ends (line %d); the pieces must be in the file's order`,
				k+1, m.start+1, whole.end)
		case m.indent != whole.indent:
			return match{}, fmt.Errorf(`piece %d of the SEARCH part (between "..." lines) is indented differently from the first piece`, k+1)
		default:
			whole.end = m.end
		}
	}
	return whole, nil
}

// splitElided splits search at its "..." lines.
func splitElided(search []string) [][]string {
	pieces := [][]string{nil}
	for _, l := range search {
		if isElision(l) {
			pieces = append(pieces, nil)
			continue
		}
		pieces[len(pieces)-1] = append(pieces[len(pieces)-1], l)
	}
	return pieces
}

// find returns the exact matches of search in file or, when there are none,
// the matches up to trailing white space and a uniform indentation offset.
func find(file, search []string) []match {
	var exact, loose []match
	for i := 0; i+len(search) <= len(file); i++ {
		if slices.Equal(file[i:i+len(search)], search) {
			exact = append(exact, match{start: i, end: i + len(search)})
		} else if s, ok := looseMatch(file[i:i+len(search)], search); ok && len(exact) == 0 {
			loose = append(loose, match{start: i, end: i + len(search), indent: s})
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return loose
}

// looseMatch compares lines up to trailing white space and one indentation
// offset shared by every non-blank line.
func looseMatch(file, search []string) (shift, bool) {
	var s shift
	found := false
	for j, q := range search {
		f, q := strings.TrimRight(file[j], " \t\r"), strings.TrimRight(q, " \t\r")
		if f == "" || q == "" {
			if f != q {
				return shift{}, false
			}
			continue
		}
		fi, qi := leading(f), leading(q)
		if f[len(fi):] != q[len(qi):] {
			return shift{}, false
		}
		var d shift
		switch {
		case strings.HasSuffix(fi, qi):
			d.add = fi[:len(fi)-len(qi)]
		case strings.HasSuffix(qi, fi):
			d.remove = qi[:len(qi)-len(fi)]
		default:
			return shift{}, false
		}
		if found && d != s {
			return shift{}, false
		}
		s, found = d, true
	}
	return s, found
}

// leading returns the indentation of a line.
func leading(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// only returns the single match, or an error for none or several.
func only(file, search []string, ms []match) (match, error) {
	switch len(ms) {
	case 1:
		return ms[0], nil
	case 0:
		return match{}, notFound(file, search)
	}
	var at []string
	for _, m := range ms[:min(len(ms), 8)] {
		at = append(at, fmt.Sprint(m.start+1))
	}
	if len(ms) > 8 {
		at = append(at, "…")
	}
	return match{}, fmt.Errorf("the SEARCH text occurs %d times in the file, at lines %s; quote more lines around the place to change so that it matches once",
		len(ms), strings.Join(at, ", "))
}

// notFound explains a SEARCH part that is nowhere in the file and shows the
// most similar lines, numbered.
func notFound(file, search []string) error {
	if len(file) == 0 {
		return fmt.Errorf("the SEARCH text is not in the file, which is empty")
	}
	start, end := closest(file, search)
	var b strings.Builder
	fmt.Fprintf(&b, "the SEARCH text is not in the file (%d lines). The most similar lines are %d-%d:\n", len(file), start+1, end)
	for i := start; i < end; i++ {
		fmt.Fprintf(&b, "    %d|%s\n", i+1, strings.TrimRight(" "+file[i], " "))
	}
	b.WriteString("  SEARCH must copy the file's lines exactly, with their indentation.")
	return fmt.Errorf("%s", b.String())
}

// closest returns the window of file, as long as search, whose lines are
// most similar to search's, line by line.
func closest(file, search []string) (int, int) {
	n := min(len(search), len(file))
	fs := make([][]uint32, len(file))
	for i, l := range file {
		fs[i] = bigrams(l)
	}
	qs := make([][]uint32, n)
	for j := range n {
		qs[j] = bigrams(search[j])
	}
	best, bestScore := 0, -1.0
	for i := 0; i+n <= len(file); i++ {
		score := 0.0
		for j := range n {
			score += dice(fs[i+j], qs[j])
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best, best + n
}

// bigrams returns the sorted byte bigrams of a line without its
// surrounding white space.
func bigrams(s string) []uint32 {
	s = strings.TrimSpace(s)
	if len(s) < 2 {
		if s == "" {
			return nil
		}
		return []uint32{uint32(s[0])}
	}
	out := make([]uint32, len(s)-1)
	for i := range out {
		out[i] = uint32(s[i])<<8 | uint32(s[i+1])
	}
	slices.Sort(out)
	return out
}

// dice is the Dice coefficient of two sorted multisets: 1 for equal lines
// (blank lines included), 0 for lines with nothing in common.
func dice(a, b []uint32) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	common, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}
