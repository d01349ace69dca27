package repocontext

import (
	"cmp"
	"slices"
	"strings"
)

const (
	// chunkPool is how many files, best first by their BM25 over the
	// issue's words, are ranked again by their best definitions.
	chunkPool = 40
	// nameBoost weighs a word of the issue in a def's name against one
	// occurrence in its body.
	nameBoost = 3
)

// defScore is one function or method of a Python file scored against the
// words of the issue: BM25 over its identifier parts (snake_case and
// camelCase split), a word in its name weighed nameBoost times, and the
// distinct words it holds, best first.
type defScore struct {
	// def is the def's index, or -1 for a block of a class's own lines.
	def   int
	r     lineRange
	score float64
	hits  []string
}

// defTerms counts the words of the issue in each function and method of o
// (its name weighed in); size counts its identifier parts.
type defTerms struct {
	// def is the def's index, or -1 for a block of a class's own lines
	// (see classBlocks); r its lines.
	def  int
	r    lineRange
	tf   map[string]float64
	size int
}

// countDefs counts the words weights holds in each def of o that is not a
// class (a class's methods are its chunks).
func countDefs(o *pyOutline, weights map[string]float64) []defTerms {
	var out []defTerms
	for k, d := range o.defs {
		if d.class {
			continue
		}
		t := defTerms{def: k, r: lineRange{d.start, d.end}, tf: make(map[string]float64)}
		eachPart([]byte(d.name), func(part []byte) {
			if _, ok := weights[string(part)]; ok {
				t.tf[string(part)] += nameBoost
			}
		})
		t.count(o, weights)
		out = append(out, t)
	}
	return out
}

// count adds the words weights holds in the lines of t to its counts.
func (t *defTerms) count(o *pyOutline, weights map[string]float64) {
	for _, line := range o.lines[t.r.start-1 : t.r.end] {
		eachPart([]byte(line), func(part []byte) {
			t.size++
			if _, ok := weights[string(part)]; ok {
				t.tf[string(part)]++
			}
		})
	}
}

// classBlocks counts the words weights holds in each block of class k's
// own lines: its docstring and class-level statements, outside its
// methods and nested classes, split at blank lines into paragraphs.
func classBlocks(o *pyOutline, k int, weights map[string]float64) []defTerms {
	d := o.defs[k]
	own := make([]bool, d.end-d.body+1)
	for i := range own {
		own[i] = true
	}
	for _, c := range o.defs[k+1:] {
		if c.start > d.end {
			break
		}
		if c.parent == k {
			for n := c.start; n <= c.end; n++ {
				own[n-d.body] = false
			}
		}
	}
	var out []defTerms
	start := 0
	for n := d.body; n <= d.end+1; n++ {
		if n <= d.end && own[n-d.body] && strings.TrimSpace(o.lines[n-1]) != "" {
			if start == 0 {
				start = n
			}
			continue
		}
		if start > 0 {
			t := defTerms{def: -1, r: lineRange{start, n - 1}, tf: make(map[string]float64)}
			t.count(o, weights)
			out = append(out, t)
			start = 0
		}
	}
	return out
}

// avgSize is the mean size of defs, at least 1.
func avgSize(defs []defTerms) float64 {
	total := 0
	for _, d := range defs {
		total += d.size
	}
	return max(float64(total)/float64(max(len(defs), 1)), 1)
}

// scoreDefs scores defs by BM25 against weights (each word's inverse
// document frequency), with avg the mean def size, best first, ties by
// the shorter def.
func scoreDefs(o *pyOutline, defs []defTerms, weights map[string]float64, avg float64) []defScore {
	out := make([]defScore, 0, len(defs))
	for _, d := range defs {
		s := defScore{def: d.def, r: d.r}
		type hit struct {
			word  string
			score float64
		}
		var hits []hit
		for w, n := range d.tf {
			hits = append(hits, hit{w, weights[w] * n * (bm25K1 + 1) / (n + bm25K1*(1-bm25B+bm25B*float64(d.size)/avg))})
		}
		// Sum in word order: a sum in map order may differ in its last
		// bits from one run to the next, and so may the order of ties.
		slices.SortFunc(hits, func(a, b hit) int { return cmp.Compare(a.word, b.word) })
		for _, h := range hits {
			s.score += h.score
		}
		slices.SortFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.word, b.word)) })
		for _, h := range hits {
			s.hits = append(s.hits, h.word)
		}
		if s.score > 0 {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b defScore) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.r.end-a.r.start, b.r.end-b.r.start))
	})
	return out
}

// rerank orders the chunkPool files retrieval ranks first again by their
// file score and their best def's score, each relative to the pool's
// best: a file whose one function holds the words together ranks
// above one that holds them scattered. A file that is not Python keeps its
// file score for both.
func (ret *retrieval) rerank(r *repo) {
	pool := ret.best(chunkPool)
	if len(pool) < 2 {
		return
	}
	defs := make([][]defTerms, len(pool))
	outlines := make([]*pyOutline, len(pool))
	var all []defTerms
	for k, f := range pool {
		if langOf(r.files[f]) != langPython {
			continue
		}
		data, reason := r.read(f)
		if reason != "" {
			continue
		}
		outlines[k] = parsePython(data)
		defs[k] = countDefs(outlines[k], ret.ranking)
		all = append(all, defs[k]...)
	}
	avg := avgSize(all)
	best := make([]float64, len(pool))
	topFile, topDef := 0.0, 0.0
	for k, f := range pool {
		topFile = max(topFile, ret.score[f])
		if outlines[k] != nil {
			if s := scoreDefs(outlines[k], defs[k], ret.ranking, avg); len(s) > 0 {
				best[k] = s[0].score
				topDef = max(topDef, best[k])
			}
		}
	}
	if topFile == 0 || topDef == 0 {
		return
	}
	combined := make(map[int]float64, len(pool))
	for k, f := range pool {
		file := ret.score[f] / topFile
		def := best[k] / topDef
		if outlines[k] == nil {
			def = file
		}
		combined[f] = file + def
	}
	slices.SortStableFunc(pool, func(a, b int) int { return cmp.Compare(combined[b], combined[a]) })
	ret.order = pool
}
