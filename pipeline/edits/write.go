package edits

import (
	"slices"
	"strings"
)

// blockGap is the most unchanged lines between two changes that one block
// covers: a second block costs its markers and context.
const blockGap = 2

// BlocksFor writes the change from old to new as SEARCH/REPLACE blocks, in
// the file's order, that Resolve places back: each change of the line diff
// (changes at most blockGap lines apart together) with as few lines of
// context as make its SEARCH match once in the file as the blocks before it
// leave it. It is how a change is written in the answer format, for tests
// and for measuring answer sizes.
func BlocksFor(old, new string) []Block {
	a, b := splitLines(old), splitLines(new)
	del, ins := diffLines(a, b)
	cur := slices.Clone(a) // the file as the blocks so far leave it
	shift := 0             // len(cur) - len(a) before the current change
	var out []Block
	for i, j := 0, 0; i < len(a) || j < len(b); {
		if (i < len(a) && del[i]) || (j < len(b) && ins[j]) {
			i1, j1 := changeEnd(del, ins, i, j)
			at := i + shift
			from, to := widen(cur, at, at+(i1-i))
			search := cur[from:to]
			replace := slices.Concat(cur[from:at], b[j:j1], cur[at+(i1-i):to])
			out = append(out, Block{N: len(out) + 1, Search: strings.Join(search, ""), Replace: strings.Join(replace, "")})
			cur = slices.Concat(cur[:from], replace, cur[to:])
			shift += (j1 - j) - (i1 - i)
			i, j = i1, j1
			continue
		}
		i, j = i+1, j+1
	}
	return out
}

// changeEnd returns where the change starting at lines i of a and j of b
// ends, taking in later changes at most blockGap unchanged lines away.
func changeEnd(del, ins []bool, i, j int) (int, int) {
	for {
		i0, j0 := i, j
		for i < len(del) && del[i] {
			i++
		}
		for j < len(ins) && ins[j] {
			j++
		}
		k := 0 // unchanged lines that follow
		for i+k < len(del) && j+k < len(ins) && !del[i+k] && !ins[j+k] && k <= blockGap {
			k++
		}
		end := i+k == len(del) && j+k == len(ins)
		if end || k > blockGap || (k == 0 && i == i0 && j == j0) {
			return i, j
		}
		i, j = i+k, j+k
	}
}

// widen returns the lines around cur[from:to] that match once in cur: the
// range itself, else with lines of context added below and above in turn.
// An empty range (an insertion) always takes context.
func widen(cur []string, from, to int) (int, int) {
	below := true
	for from > 0 || to < len(cur) {
		if to > from && !isBlankRun(cur[from:to]) && countRun(cur, cur[from:to]) == 1 {
			break
		}
		if (below && to < len(cur)) || from == 0 {
			to++
		} else {
			from--
		}
		below = !below
	}
	return from, to
}

// isBlankRun reports whether every line of run is blank.
func isBlankRun(run []string) bool {
	return !slices.ContainsFunc(run, func(l string) bool { return !isBlank(l) })
}

// countRun counts the places where run occurs in lines, up to two, as
// Resolve compares them: without their newlines.
func countRun(lines, run []string) int {
	n := 0
	same := func(a, b string) bool { return strings.TrimSuffix(a, "\n") == strings.TrimSuffix(b, "\n") }
	for i := 0; i+len(run) <= len(lines) && n < 2; i++ {
		if slices.EqualFunc(lines[i:i+len(run)], run, same) {
			n++
		}
	}
	return n
}
