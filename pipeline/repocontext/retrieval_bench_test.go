package repocontext

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// BenchmarkDevRetrieval measures retrieval alone on the holdout's
// development half: for every fixed file that is not a test, its place in
// the order retrieval gives the files (BM25 over the issue's words, the
// first ranked again by their best defs), as recall at 3, 9, 20 and 40
// and the median place, for all fixed files and for those the issue
// neither names nor defines a named symbol of (found by its words alone
// or not at all). It is quicker than BenchmarkHoldout for trying a
// change of retrieval; that one judges it. $CAPSULE_RETRIEVAL_RANKS=FILE
// writes each fixed file's place.
//
//	CAPSULE_LOCALIZATION_REPOS=$HOME/capsule-loc go test -run '^$' -bench DevRetrieval -benchtime 1x ./pipeline/repocontext/
func BenchmarkDevRetrieval(b *testing.B) {
	cases, dirs := holdoutCases(b, "dev")
	var all, unnamed []int
	var lines []string
	for b.Loop() {
		all, unnamed, lines = nil, nil, nil
		for i, c := range cases {
			r, err := openRepo(dirs[i], nil)
			if err != nil {
				b.Fatal(err)
			}
			bld := newBuilder(r, Issue{Title: c.Title, Body: c.Body}, Options{})
			_, scans := bld.retrieve()
			a, order := bld.a, bld.ret.best(len(r.files))
			pointed := make(map[int]bool)
			for _, p := range a.named {
				pointed[p.file] = true
			}
			for _, f := range a.quoters {
				pointed[f] = true
			}
			for f, s := range scans {
				if len(s.defines) > 0 {
					pointed[f] = true
				}
			}
			for _, g := range c.Gold {
				f, ok := r.index[g.File]
				if !ok || isTestFile(g.File) || langOf(g.File) == langNone {
					continue
				}
				place := slices.Index(order, f) + 1
				if place == 0 {
					place = 1 << 20
				}
				all = append(all, place)
				if !pointed[f] {
					unnamed = append(unnamed, place)
				}
				lines = append(lines, fmt.Sprintf("%s#%d %s %d of %d pointed=%v", c.Repo, c.Issue, g.File, place, len(order), pointed[f]))
			}
			r.close()
		}
	}
	var t strings.Builder
	for _, set := range []struct {
		name   string
		places []int
	}{{"all", all}, {"unnamed", unnamed}} {
		fmt.Fprintf(&t, "%-8s %3d files:", set.name, len(set.places))
		for _, k := range []int{3, 9, 20, 40} {
			n := 0
			for _, p := range set.places {
				if p <= k {
					n++
				}
			}
			fmt.Fprintf(&t, " @%d %.1f%%", k, pct(n, len(set.places)))
			b.ReportMetric(pct(n, len(set.places)), fmt.Sprintf("%s@%d", set.name, k))
		}
		sorted := slices.Sorted(slices.Values(set.places))
		median := 0
		if len(sorted) > 0 {
			median = sorted[len(sorted)/2]
		}
		fmt.Fprintf(&t, " median %d\n", median)
		b.ReportMetric(float64(median), set.name+"-median")
	}
	if out := os.Getenv("CAPSULE_RETRIEVAL_RANKS"); out != "" {
		if err := os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Log(t.String())
}
