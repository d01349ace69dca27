package repocontext

import (
	"cmp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

const (
	// maxDefFiles caps the files whose functions are scored against the
	// issue: the Python files that are not tests and hold at least
	// minWordHits of its words, best first by their BM25.
	maxDefFiles = 400
	// maxRepoDefs is how many of the repository's functions and methods,
	// best first, are shown as spans before any file is shown whole.
	maxRepoDefs = 6
	// minRepoDefShare is the least share of the best def's score a def
	// must reach to be among them.
	minRepoDefShare = 0.5
	// identBoost weighs a word that is part of an identifier the issue
	// names against a word of its prose.
	identBoost = 2
	// spanOverhead is about what a span's line range, fence and elision
	// mark take, and sectionOverhead what a file's heading takes.
	spanOverhead    = 30
	sectionOverhead = 80
)

// repoDef is a function or method of the repository that holds the words
// of the issue well.
type repoDef struct {
	file int
	lineRange
	name  string
	score float64
	hits  []string
	// tokens is about what showing it as a span takes, with the lines
	// around it; whole about what its whole file takes.
	tokens, whole int
}

// repoDefs scores the functions and methods of the Python files that hold
// the words (up to maxDefFiles of them, best first by retrieval)
// by BM25 over their bodies and names against the words of the issue: a
// word of an identifier the issue names counts identBoost times, a word in
// a def's name counts nameBoost times less the more defs share that name.
// It returns up to maxRepoDefs defs, best first, each scoring at least
// minRepoDefShare of the best, by file.
func (b *builder) repoDefs() map[int][]repoDef {
	ret := b.ret
	if len(ret.weights) == 0 || b.opts.WholeFiles {
		return nil
	}
	var files []int
	for f, w := range ret.words {
		if len(w) >= minWordHits && langOf(b.r.files[f]) == langPython && !isTestFile(b.r.files[f]) {
			files = append(files, f)
		}
	}
	slices.SortStableFunc(files, func(x, y int) int { return cmp.Compare(ret.score[y], ret.score[x]) })
	files = files[:min(len(files), maxDefFiles)]
	weights := make(map[string]float64, len(ret.weights))
	idents := make(map[string]bool)
	for _, s := range b.a.symbols {
		eachPart([]byte(s.name), func(part []byte) { idents[string(part)] = true })
	}
	for w, v := range ret.weights {
		if idents[w] {
			v *= identBoost
		}
		weights[w] = v
	}
	outlines := make([]*pyOutline, len(files))
	defs := make([][]defTerms, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= len(files) {
					return
				}
				if data, reason := b.r.read(files[k]); reason == "" {
					outlines[k] = parsePython(data)
					defs[k] = countDefs(outlines[k], weights)
				}
			}
		})
	}
	wg.Wait()
	// A name defined in many places (__init__, visit, run) says little:
	// its words count in the def's body only.
	named := make(map[string]int)
	for k := range files {
		for _, d := range defs[k] {
			named[outlines[k].defs[d.def].name]++
		}
	}
	var all []defTerms
	for k := range files {
		for i, d := range defs[k] {
			if n := named[outlines[k].defs[d.def].name]; n > maxDefiners {
				eachPart([]byte(outlines[k].defs[d.def].name), func(part []byte) {
					if _, ok := d.tf[string(part)]; ok {
						d.tf[string(part)] = max(d.tf[string(part)]-nameBoost, 0)
					}
				})
				defs[k][i] = d
			}
		}
		all = append(all, defs[k]...)
	}
	avg := avgSize(all)
	var best []repoDef
	for k, f := range files {
		if outlines[k] == nil {
			continue
		}
		for _, s := range scoreDefs(outlines[k], defs[k], weights, avg) {
			d := outlines[k].defs[s.def]
			if len(s.hits) < minWordHits || d.end-d.start >= maxSpanLines {
				continue
			}
			best = append(best, repoDef{file: f, lineRange: lineRange{d.start, d.end}, name: d.name, score: s.score, hits: s.hits,
				tokens: EstimateTokens(strings.Join(outlines[k].lines[max(d.start-1-contextLines, 0):min(d.end+contextLines, len(outlines[k].lines))], "\n")) + spanOverhead,
				whole:  EstimateTokens(strings.Join(outlines[k].lines, "\n"))})
		}
	}
	slices.SortStableFunc(best, func(x, y repoDef) int {
		return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.end-x.start, y.end-y.start))
	})
	out := make(map[int][]repoDef)
	for _, d := range best[:min(len(best), maxRepoDefs)] {
		if d.score >= minRepoDefShare*best[0].score {
			out[d.file] = append(out[d.file], d)
		}
	}
	return out
}

// reserve is about what showing the best defs of file f takes: its whole
// section when the file is small enough to be shown whole, else their
// spans.
func (b *builder) reserve(f int) int {
	defs := b.best[f]
	if len(defs) == 0 {
		return 0
	}
	if defs[0].whole+sectionOverhead <= SmallFileTokens {
		return defs[0].whole + sectionOverhead
	}
	n := sectionOverhead
	for _, d := range defs {
		n += d.tokens
	}
	return n
}

// why says why a def of the repository is shown.
func (d repoDef) why() string {
	return "among the functions holding the issue's words best: " + strings.Join(d.hits[:min(len(d.hits), 5)], ", ")
}
