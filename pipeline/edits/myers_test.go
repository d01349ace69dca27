package edits

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// lcsLen is the length of a longest common subsequence, by dynamic
// programming: the reference that diffLines must match.
func lcsLen(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkScript fails unless del and ins describe a shortest edit script from
// a to b.
func checkScript(t *testing.T, a, b []string, del, ins []bool) {
	t.Helper()
	var keptA, keptB []string
	for i, d := range del {
		if !d {
			keptA = append(keptA, a[i])
		}
	}
	for j, d := range ins {
		if !d {
			keptB = append(keptB, b[j])
		}
	}
	if strings.Join(keptA, "|") != strings.Join(keptB, "|") || len(keptA) != len(keptB) {
		t.Fatalf("kept lines differ for %q -> %q:\n%q\n%q", a, b, keptA, keptB)
	}
	if want := lcsLen(a, b); len(keptA) != want {
		t.Fatalf("%q -> %q keeps %d lines, a longest common subsequence has %d", a, b, len(keptA), want)
	}
}

// TestDiffLinesExhaustive checks every pair of sequences over two lines up
// to length 6.
func TestDiffLinesExhaustive(t *testing.T) {
	var seqs [][]string
	var gen func(prefix []string)
	gen = func(prefix []string) {
		seqs = append(seqs, prefix)
		if len(prefix) == 6 {
			return
		}
		for _, l := range []string{"a", "b"} {
			gen(append(prefix[:len(prefix):len(prefix)], l))
		}
	}
	gen(nil)
	for _, a := range seqs {
		for _, b := range seqs {
			del, ins := diffLines(a, b)
			checkScript(t, a, b, del, ins)
		}
	}
}

// TestDiffLinesRandom checks random sequences with few distinct lines, where
// many alignments compete.
func TestDiffLinesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		alphabet := 1 + r.IntN(6)
		seq := func() []string {
			s := make([]string, r.IntN(60))
			for i := range s {
				s[i] = string(rune('a' + r.IntN(alphabet)))
			}
			return s
		}
		a, b := seq(), seq()
		del, ins := diffLines(a, b)
		checkScript(t, a, b, del, ins)
	}
}
