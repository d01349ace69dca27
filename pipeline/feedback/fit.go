package feedback

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// part is one piece of a message. Pieces that may be cut (traces, long
// details) are shortened first; the others (the exception line, the
// request to the model) only when that is not enough.
type part struct {
	text     string
	cuttable bool
}

// draft is a message being built, one part per line or block.
type draft struct {
	kind  string
	parts []part
}

// add appends fixed lines; empty text is skipped.
func (d *draft) add(text string) {
	if text != "" {
		d.parts = append(d.parts, part{text: text})
	}
}

// addCuttable appends lines that may be cut in the middle.
func (d *draft) addCuttable(text string) {
	if text != "" {
		d.parts = append(d.parts, part{text: text, cuttable: true})
	}
}

// render joins the parts with newlines, within maxLen runes.
func (d *draft) render(maxLen int) string {
	return fit(d.parts, maxLen)
}

// fit joins parts with newlines and, when the result is longer than maxLen
// runes, cuts the middle of the longest cuttable parts, then of the longest
// other parts, and at last the end of the whole. Cuts level the longest
// parts rather than empty one of them, and each part is cut once, so that
// its marker tells how much is missing.
func fit(parts []part, maxLen int) string {
	lens := make([]int, len(parts))
	total := len(parts) - 1 // the newlines
	for i, p := range parts {
		lens[i] = utf8.RuneCountInString(p.text)
		total += lens[i]
	}
	for _, cuttable := range []bool{true, false} {
		for total > maxLen {
			i, second := longest(parts, lens, cuttable)
			if i < 0 {
				break
			}
			excess := total - maxLen
			target := max(lens[i]-excess, second)
			if target >= lens[i] {
				target = lens[i] - (excess+1)/2
			}
			target = max(target, minCut)
			total -= lens[i] - target
			lens[i] = target
		}
	}
	out := make([]part, len(parts))
	for i, p := range parts {
		out[i] = part{text: cutMiddle(p.text, lens[i]), cuttable: p.cuttable}
	}
	return truncate(join(out), maxLen)
}

// longest returns the index of the longest part with the given cuttable
// flag that is longer than minCut, or -1, and the length of the next
// longest such part, at least minCut.
func longest(parts []part, lens []int, cuttable bool) (index, second int) {
	index, best, second := -1, minCut, minCut
	for i, p := range parts {
		if p.cuttable != cuttable {
			continue
		}
		switch n := lens[i]; {
		case n > best:
			index, best, second = i, n, best
		case n > second:
			second = n
		}
	}
	return index, second
}

// minCut is the length below which a part is not cut in the middle: the
// marker would take its place.
const minCut = 40

func join(parts []part) string {
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.text
	}
	return strings.Join(texts, "\n")
}

// cutMiddle shortens s to at most n runes by replacing its middle with a
// marker saying how much was cut, at line ends where that loses little.
func cutMiddle(s string, n int) string {
	runes := []rune(s)
	if len(runes) <= n {
		return s
	}
	sep := " "
	if strings.Contains(s, "\n") {
		sep = "\n"
	}
	keep := n - utf8.RuneCountInString(cutMarker(sep, len(runes)))
	if keep < 2 {
		return truncate(s, n)
	}
	head, tail := string(runes[:keep/2]), string(runes[len(runes)-(keep-keep/2):])
	if sep == "\n" {
		// Whole lines read better; give up at most half of each side.
		if i := strings.LastIndexByte(head, '\n'); i >= len(head)/2 {
			head = head[:i]
		}
		if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/2 {
			tail = tail[i+1:]
		}
	}
	cut := len(runes) - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	return head + cutMarker(sep, cut) + tail
}

// cutMarker stands for n runes cut out of a text.
func cutMarker(sep string, n int) string {
	return fmt.Sprintf("%s[... %d characters cut ...]%s", sep, n, sep)
}

// truncate keeps the first n runes of s.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:max(n, 0)])
}
