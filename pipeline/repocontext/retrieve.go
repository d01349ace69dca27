package repocontext

import (
	"cmp"
	"math"
	"path"
	"slices"
	"strings"
)

const (
	// maxTerms caps the words of an issue retrieval searches for.
	maxTerms = 32
	// minTermLen is the shortest word retrieval searches for.
	minTermLen = 3
	// maxRetrieved is how many files retrieval picks.
	maxRetrieved = 3
	// maxMoreRetrieved is how many more files retrieval picks, ranked
	// after the seeds' neighbours.
	maxMoreRetrieved = 6
	// BM25's parameters, as commonly set.
	bm25K1, bm25B = 1.2, 0.75
	// pathBoost weighs a word of the issue found in a file's path (a
	// directory or the file's name) against one occurrence in its text.
	pathBoost = 3
	// titleBoost weighs a word of the issue's title against one found only
	// in its body, in ranking the files.
	titleBoost = 2
)

// termHit is how often a file uses one word of the issue.
type termHit struct {
	term, count int32
}

// queryTerms returns the words of an issue retrieval searches for: the
// parts of its identifiers (snake_case and camelCase split), in lower
// case and without a plural s, in order of first use, common English and
// Python words left out; the first inTitle of them are the title's.
func queryTerms(iss Issue) (terms []string, inTitle int) {
	var out []string
	seen := make(map[string]bool)
	for k, text := range []string{iss.Title, iss.Body} {
		if k == 1 {
			inTitle = len(out)
		}
		eachPart([]byte(text), func(part []byte) {
			t := string(part)
			if len(out) < maxTerms && len(t) >= minTermLen && !seen[t] && !isStopWord(t) {
				seen[t] = true
				out = append(out, t)
			}
		})
	}
	return out, inTitle
}

// isStopWord reports whether a word, its plural s perhaps cut, is too
// common to search for.
func isStopWord(w string) bool {
	return stopWords[w] || stopWords[w+"s"] || stopNames[w]
}

// eachPart calls fn with each part of each identifier of src, split at
// underscores and at a lower-case letter followed by a capital, in lower
// case, with a final s cut from parts over three letters. The slice fn
// gets is reused.
func eachPart(src []byte, fn func(part []byte)) {
	var buf [64]byte
	n := 0
	flush := func() {
		if n > len(buf) {
			n = 0 // too long to be a word of the issue
		}
		if n > 3 && buf[n-1] == 's' && buf[n-2] != 's' {
			n--
		}
		if n > 0 {
			fn(buf[:n])
		}
		n = 0
	}
	lower := false
	for _, c := range src {
		switch partClass[c] {
		case classLower:
			lower = true
		case classUpper:
			if lower {
				flush()
			}
			lower = false
			c += 'a' - 'A'
		default:
			if n > 0 {
				flush()
			}
			lower = false
			continue
		}
		if n < len(buf) {
			buf[n] = c
		}
		n++
	}
	flush()
}

// Byte classes of eachPart: lower-case letters and digits, capitals, and
// the bytes that end a part (an underscore among them).
const (
	classEnd = iota
	classLower
	classUpper
)

// partClass maps each byte to its class.
var partClass = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = classLower
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = classUpper
	}
	return t
}()

// termIndex finds the words of an issue by their index in queryTerms.
type termIndex struct {
	ids map[string]int32
	// longest is the length of the longest word, past which no part is
	// looked up; ends marks the first and last letters of the words, so
	// that most parts are not looked up at all.
	longest int
	ends    *[1 << 16]bool
}

// newTermIndex indexes terms.
func newTermIndex(terms []string) termIndex {
	ti := termIndex{ids: make(map[string]int32, len(terms)), ends: new([1 << 16]bool)}
	for k, t := range terms {
		ti.ids[t] = int32(k)
		ti.longest = max(ti.longest, len(t))
		ti.ends[endsKey([]byte(t))] = true
	}
	return ti
}

// endsKey packs the first and last bytes of a non-empty word.
func endsKey(w []byte) uint16 {
	return uint16(w[0])<<8 | uint16(w[len(w)-1])
}

// count counts the words of the issue in src, and the identifier parts
// src has.
func (ti termIndex) count(src []byte) ([]termHit, int) {
	var hits []termHit
	size := 0
	eachPart(src, func(part []byte) {
		size++
		if len(part) < minTermLen || len(part) > ti.longest || !ti.ends[endsKey(part)] {
			return
		}
		k, ok := ti.ids[string(part)]
		if !ok {
			return
		}
		for i := range hits {
			if hits[i].term == k {
				hits[i].count++
				return
			}
		}
		hits = append(hits, termHit{term: k, count: 1})
	})
	return hits, size
}

// retrieval scores the source files that are not tests (those the scan
// counted words in) by BM25 over the words of the issue, a word in the
// file's path counting pathBoost times, a word of the title weighing
// titleBoost times its inverse document frequency.
type retrieval struct {
	// weights are the words of the issue with their inverse document
	// frequency, and ranking the same with the title's words weighed
	// titleBoost times, as the files are ranked (see rerank).
	weights, ranking map[string]float64
	score            []float64
	// words are the issue's words each file holds, best first, up to
	// four.
	words [][]string
	// order, when set, are the files ranked first again by their best
	// defs (see rerank), best first.
	order []int
}

// retrieve ranks files by the words of the issue they use, the first
// inTitle of terms being the title's.
func retrieve(r *repo, terms []string, inTitle int, scans []fileScan) retrieval {
	ret := retrieval{weights: make(map[string]float64), ranking: make(map[string]float64), score: make([]float64, len(r.files)), words: make([][]string, len(r.files))}
	if len(terms) == 0 {
		return ret
	}
	index := newTermIndex(terms)
	df := make([]int, len(terms))
	docs, total := 0, 0
	for _, s := range scans {
		if s.size > 0 {
			docs++
			total += s.size
		}
		for _, h := range s.terms {
			df[h.term]++
		}
	}
	if docs == 0 {
		return ret
	}
	avg := float64(total) / float64(docs)
	idf := make([]float64, len(terms))
	for k, t := range terms {
		idf[k] = math.Log(1 + (float64(docs)-float64(df[k])+0.5)/(float64(df[k])+0.5))
		ret.weights[t] = idf[k]
		if k < inTitle {
			idf[k] *= titleBoost
		}
		ret.ranking[t] = idf[k]
	}
	for f, s := range scans {
		if s.size == 0 {
			continue
		}
		tf := make(map[int32]float64, len(s.terms))
		for _, h := range s.terms {
			tf[h.term] += float64(h.count)
		}
		pathTerms, _ := index.count([]byte(strings.TrimSuffix(r.files[f], path.Ext(r.files[f]))))
		for _, h := range pathTerms {
			tf[h.term] += pathBoost
		}
		type hit struct {
			term  int32
			score float64
		}
		var hits []hit
		for k, n := range tf {
			v := idf[k] * n * (bm25K1 + 1) / (n + bm25K1*(1-bm25B+bm25B*float64(s.size)/avg))
			ret.score[f] += v
			hits = append(hits, hit{k, v})
		}
		slices.SortFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.term, b.term)) })
		for _, h := range hits[:min(len(hits), 4)] {
			ret.words[f] = append(ret.words[f], terms[h.term])
		}
	}
	return ret
}

// best returns up to n files by score, best first, ties by path order,
// of those holding at least minWordHits distinct words of the issue.
func (ret retrieval) best(n int) []int {
	var files []int
	for f, w := range ret.words {
		if len(w) >= minWordHits {
			files = append(files, f)
		}
	}
	slices.SortStableFunc(files, func(a, b int) int { return cmp.Compare(ret.score[b], ret.score[a]) })
	if len(ret.order) > 0 {
		first := make(map[int]bool, len(ret.order))
		for _, f := range ret.order {
			first[f] = true
		}
		files = append(slices.Clone(ret.order), slices.DeleteFunc(files, func(f int) bool { return first[f] })...)
	}
	return files[:min(len(files), n)]
}
