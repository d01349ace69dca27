package repocontext

import (
	"fmt"
	"slices"
	"strings"
)

const (
	// SmallFileTokens is the size, in estimated tokens of its whole
	// section, up to which a file is always shown whole: about 8 KiB, or
	// 200 to 250 lines of Python. Below that an outline and spans save
	// little (the outline and the elision marks cost a fair share of the
	// file), while the whole file shows every line an edit may need to
	// quote; ten such files still take less than the default budget.
	SmallFileTokens = 2000
	// contextLines are the lines shown around each span.
	contextLines = 3
	// tracebackLines are the lines shown on each side of a traceback's
	// line when no def holds it, or the def is long.
	tracebackLines = 10
	// maxSpanLines is the longest def shown as a traceback's span or a
	// class shown whole; a longer class shows only its header.
	maxSpanLines = 150
	// classHeadLines caps the header of a class too long to show whole.
	classHeadLines = 15
	// maxCallees and maxCallers cap the callees of the spans shown, and
	// the defs calling a named symbol.
	maxCallees = 6
	maxCallers = 4
	// maxSpans caps the spans of one file, however many traceback lines
	// or definitions point into it.
	maxSpans = 24
	// maxOverloads is the most defs a called name may have in the file
	// (overloads, or one method in several classes) to count as a callee.
	maxOverloads = 3
	// maxWordSpans caps the defs shown for the words of the issue when
	// nothing else points into a large file; minWordHits is the fewest
	// distinct words such a def must contain.
	maxWordSpans = 10
	minWordHits  = 2
)

// spanKind orders the candidate spans of a file: primary ones are fitted
// into whatever the budget has left, secondary ones only while the file's
// section stays within its share.
type spanKind int

const (
	spanPrimary spanKind = iota
	spanSecondary
)

// candidate is a span the file's section may show.
type candidate struct {
	lineRange
	why  string
	kind spanKind
	// code are the lines the span was chosen for, without the lines
	// around them: where its callees are looked for.
	code lineRange
	// named marks a span whose code mentions a name the issue names, and
	// best one of the repository's best functions (see repoDefs).
	named, best bool
}

// spanFinder picks the spans of one large Python file for an issue.
type spanFinder struct {
	o     *pyOutline
	names map[string]bool
	// weights weighs the words of the issue (see spanQuery).
	weights map[string]float64
	// counted holds the words of the issue in each def, counted once
	// (see counts).
	counted []defTerms
	// picked marks the defs already chosen, by index.
	picked map[int]bool
	out    []candidate
}

// findSpans returns the spans of the file outlined by o that matter to the
// issue, most important first: the code around the lines the issue quotes
// and the lines a traceback names, the definitions of the names the issue mentions, their callees
// in the file, the defs calling those names, and, when nothing else
// points into the file and it is a seed or retrieved (words is not nil),
// the defs that hold the rarest words of the issue.
func findSpans(o *pyOutline, q spanQuery) []candidate {
	f := &spanFinder{o: o, names: q.names, weights: q.words, picked: make(map[int]bool)}
	for _, n := range q.quoted {
		f.around(n, fmt.Sprintf("line %d quoted in the issue", n))
	}
	for _, n := range q.lines {
		f.around(n, fmt.Sprintf("line %d in the traceback", n))
	}
	for _, d := range q.best {
		for k, od := range o.defs {
			if n := len(f.out); od.start == d.start && od.end == d.end {
				f.add(k, d.lineRange, d.why(), spanPrimary)
				if len(f.out) > n {
					f.out[n].best = true
				}
			}
		}
	}
	for k, d := range o.defs {
		if q.names[d.name] {
			f.definition(k)
		}
	}
	if q.top {
		f.imports()
	}
	f.callees()
	f.callers()
	if q.top {
		f.words()
	}
	return f.out
}

// spanQuery is what findSpans looks for in a file: the names the issue
// names, the lines its traceback gives and the lines it quotes, and, for a
// file it points at (top), the file's imports and the weights of its
// words.
type spanQuery struct {
	names         map[string]bool
	lines, quoted []int
	words         map[string]float64
	top           bool
	// best are the file's functions among those of the repository that
	// hold the words best.
	best []repoDef
}

// maxImportLines caps the module's import lines shown as a span: a fix
// that needs another import must quote the lines it goes after. A longer
// head shows its last maxImportLines lines, where a project's own imports
// come, after the standard library's and third parties'.
const maxImportLines = 100

// imports adds the file's head: its top-level import statements from the
// first to the last before the first top-level def or class (a module's
// imports often come in several blocks, split by constants, a try or an
// if TYPE_CHECKING block), or the end of that head when it is too long.
func (f *spanFinder) imports() {
	if len(f.o.imports) == 0 {
		return
	}
	first := len(f.o.lines) + 1
	for _, d := range f.o.defs {
		if d.parent < 0 {
			first = d.start
			break
		}
	}
	r := f.o.imports[0]
	for _, imp := range f.o.imports[1:] {
		if imp.start < first {
			r.end = imp.end
		}
	}
	if r.end-r.start >= maxImportLines {
		r.start = r.end - maxImportLines + 1
	}
	f.add(-1, r, "imports", spanPrimary)
}

// add records a span, with the lines around it, once per def, up to
// maxSpans.
func (f *spanFinder) add(def int, r lineRange, why string, kind spanKind) {
	if len(f.out) == maxSpans {
		return
	}
	if def >= 0 {
		if f.picked[def] {
			return
		}
		f.picked[def] = true
	}
	code := lineRange{max(r.start, 1), min(r.end, len(f.o.lines))}
	if def >= 0 {
		code.start = f.o.defs[def].body
	}
	r = lineRange{max(r.start-contextLines, 1), min(r.end+contextLines, len(f.o.lines))}
	if r.start <= r.end {
		c := candidate{lineRange: r, why: why, kind: kind, code: code}
		for _, line := range f.o.lines[code.start-1 : max(code.end, code.start-1)] {
			if c.named = f.mentioned(line) != ""; c.named {
				break
			}
		}
		f.out = append(f.out, c)
	}
}

// around adds the def holding line n, or the lines around it: a line of a
// traceback, or one the issue quotes.
func (f *spanFinder) around(n int, why string) {
	if n < 1 || n > len(f.o.lines) {
		return
	}
	if k := f.o.innermost(n); k >= 0 {
		if d := f.o.defs[k]; d.end-d.start < maxSpanLines {
			f.add(k, lineRange{d.start, d.end}, why, spanPrimary)
			return
		}
	}
	f.add(-1, lineRange{n - tracebackLines, n + tracebackLines}, why, spanPrimary)
}

// definition adds def k: a function whole, a class whole when short, else
// its header.
func (f *spanFinder) definition(k int) {
	d := f.o.defs[k]
	r := lineRange{d.start, d.end}
	if d.class && d.end-d.start >= maxSpanLines {
		r.end = min(d.body-1+classHeadLines, d.end)
		for _, c := range f.o.defs[k+1:] {
			if c.parent == k {
				r.end = min(r.end, c.start-1)
				break
			}
		}
	}
	f.add(k, r, "defines "+d.name, spanPrimary)
	if r.end < d.end {
		f.classWords(k, r.end)
		for c, m := range f.o.defs[k+1:] {
			if m.parent == k && constructors[m.name] {
				f.add(k+1+c, lineRange{m.start, m.end}, "constructor of "+d.name, spanPrimary)
			}
		}
	}
}

// classWords adds the block of class k's own lines after line head (its
// docstring's paragraphs, its class-level statements) that holds the
// words of the issue best, when it holds minWordHits of them: a long class
// the issue names documents or sets there what its header does not show.
func (f *spanFinder) classWords(k, head int) {
	var blocks []defTerms
	for _, b := range classBlocks(f.o, k, f.weights) {
		if b.r.start > head {
			blocks = append(blocks, b)
		}
	}
	added := 0
	for _, s := range scoreDefs(f.o, blocks, f.weights, avgSize(f.counts())) {
		if added == maxClassBlocks || len(s.hits) < minWordHits {
			return
		}
		f.add(-1, s.r, "holds words of the issue in "+f.o.defs[k].name+": "+strings.Join(s.hits[:min(len(s.hits), 5)], ", "), spanPrimary)
		added++
	}
}

// maxClassBlocks caps the blocks of a long class's own lines shown for
// the words of the issue.
const maxClassBlocks = 3

// constructors are the methods that build an instance: shown with the
// header of a class too long to show whole.
var constructors = makeSet("__init__ __new__ __post_init__ __init_subclass__")

// callees adds the defs of the file that the spans so far call.
func (f *spanFinder) callees() {
	byName := make(map[string][]int)
	for k, d := range f.o.defs {
		if !d.class {
			byName[d.name] = append(byName[d.name], k)
		}
	}
	added := 0
	for _, c := range slices.Clone(f.out) {
		for _, name := range f.o.calls(c.code.start, c.code.end) {
			if defs := byName[name]; len(defs) <= maxOverloads {
				for _, k := range defs {
					if added < maxCallees && !f.picked[k] {
						d := f.o.defs[k]
						f.add(k, lineRange{d.start, d.end}, "called in lines "+c.code.String(), spanSecondary)
						added++
					}
				}
			}
		}
	}
}

// callers adds the innermost defs that mention a name the issue names.
func (f *spanFinder) callers() {
	added := 0
	for n, line := range f.o.lines {
		if added == maxCallers {
			return
		}
		name := f.mentioned(line)
		if name == "" {
			continue
		}
		if k := f.o.innermost(n + 1); k >= 0 && !f.picked[k] && f.o.defs[k].body <= n+1 {
			d := f.o.defs[k]
			f.add(k, lineRange{d.start, d.end}, "uses "+name, spanSecondary)
			added++
		}
	}
}

// mentioned returns a name of the issue that line mentions as a word; ""
// when none.
func (f *spanFinder) mentioned(line string) string {
	for _, w := range identifiers(line) {
		if f.names[w] {
			return w
		}
	}
	return ""
}

// counts returns the words of the issue each def of the file holds
// (countDefs), counted on the first call.
func (f *spanFinder) counts() []defTerms {
	if f.counted == nil {
		f.counted = countDefs(f.o, f.weights)
	}
	return f.counted
}

// words adds the functions that hold the words of the issue best, by
// BM25 over each def (see scoreDefs), the words weighed by f.weights
// (see spanQuery). A def must hold minWordHits distinct words, or one in
// its name.
func (f *spanFinder) words() {
	defs := f.counts()
	named := make(map[int]bool)
	for _, d := range defs {
		eachPart([]byte(f.o.defs[d.def].name), func(part []byte) {
			if _, ok := f.weights[string(part)]; ok {
				named[d.def] = true
			}
		})
	}
	added := 0
	for _, s := range scoreDefs(f.o, defs, f.weights, avgSize(defs)) {
		if added == maxWordSpans {
			break
		}
		if len(s.hits) >= minWordHits || named[s.def] {
			d := f.o.defs[s.def]
			f.add(s.def, lineRange{d.start, d.end}, "holds words of the issue: "+strings.Join(s.hits[:min(len(s.hits), 5)], ", "), spanSecondary)
			added++
		}
	}
}

// stopWords are English words too common to point at code.
var stopWords = makeSet(`
	that this with from have when what which there their then than they
	should would could does doesn done into only also some more most other
	such very just like will been were being about after before because
	while where using used uses make makes made instead now not but fix
	fixes fixed issue error bug bugs case cases correct correctly work
	works working value values none true false test tests return returns
	the and for are was has can its you use but now get set new add
`)

// identifiers returns the identifiers of a line of code.
func identifiers(line string) []string {
	var out []string
	for i := 0; i < len(line); {
		if !isIdentByte(line[i]) {
			i++
			continue
		}
		j := i
		for j < len(line) && isIdentByte(line[j]) {
			j++
		}
		out = append(out, line[i:j])
		i = j
	}
	return out
}

// String formats a range as "3-9", or "3" for one line.
func (r lineRange) String() string {
	if r.start == r.end {
		return fmt.Sprint(r.start)
	}
	return fmt.Sprintf("%d-%d", r.start, r.end)
}
