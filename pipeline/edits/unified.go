package edits

import (
	"fmt"
	"strings"
)

// contextLines is the number of unchanged lines around each change in a
// hunk, as in git's default.
const contextLines = 3

// line is one line of a unified diff: kind is ' ', '-' or '+', and a and b
// count the old and new lines before it.
type line struct {
	kind byte
	text string
	a, b int
}

// script turns the marks of diffLines into the lines of a unified diff,
// deletions before insertions within each change.
func script(old, new []string, del, ins []bool) []line {
	out := make([]line, 0, max(len(old), len(new)))
	i, j := 0, 0
	for i < len(old) || j < len(new) {
		switch {
		case i < len(old) && del[i]:
			out = append(out, line{'-', old[i], i, j})
			i++
		case j < len(new) && ins[j]:
			out = append(out, line{'+', new[j], i, j})
			j++
		default:
			out = append(out, line{' ', old[i], i, j})
			i, j = i+1, j+1
		}
	}
	return out
}

// writeHunks writes the hunks that turn old into new, each with up to
// contextLines unchanged lines around its changes. Changes closer than twice
// that share a hunk.
func writeHunks(w *strings.Builder, lines []line) {
	for i := 0; i < len(lines); {
		if lines[i].kind == ' ' {
			i++
			continue
		}
		start, end := max(i-contextLines, 0), i+1 // end follows the last change
		for j := end; j < len(lines) && j-end <= 2*contextLines; j++ {
			if lines[j].kind != ' ' {
				end = j + 1
			}
		}
		stop := min(end+contextLines, len(lines))
		writeHunk(w, lines[start:stop])
		i = stop
	}
}

// writeHunk writes one hunk: its header and its lines, with git's marker
// after a line that does not end in a newline.
func writeHunk(w *strings.Builder, h []line) {
	var oldCount, newCount int
	for _, l := range h {
		if l.kind != '+' {
			oldCount++
		}
		if l.kind != '-' {
			newCount++
		}
	}
	fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(h[0].a, oldCount), hunkRange(h[0].b, newCount))
	for _, l := range h {
		w.WriteByte(l.kind)
		w.WriteString(l.text)
		if !strings.HasSuffix(l.text, "\n") {
			w.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange formats the lines a hunk covers on one side, given the number of
// lines before it: "start,count", or "start" alone for one line. An empty
// range names the line before it.
func hunkRange(before, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprint(before + 1)
	default:
		return fmt.Sprintf("%d,%d", before+1, count)
	}
}
