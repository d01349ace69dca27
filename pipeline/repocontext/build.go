package repocontext

import (
	"fmt"
	"slices"
	"strings"
)

// treeShare is the part of the budget the file tree may take, one
// sixteenth: what a larger tree would take goes to the files, which the
// fix needs more than a deeper listing.
const treeShare = 16

// builder builds one Context.
type builder struct {
	r     *repo
	issue Issue
	opts  Options
	a     *analysis
	// names are the symbols the issue names, and ret the repository's
	// files scored by the words of the issue, for picking spans.
	names map[string]bool
	ret   retrieval
	// best are the functions of the repository that hold the issue's
	// words best, by file (see repoDefs), shown as spans.
	best map[int][]repoDef
	// trace records the ranking and each placement for an explanation;
	// nil when none is asked for.
	trace *trace
}

// newBuilder returns a builder for issue in r.
func newBuilder(r *repo, issue Issue, opts Options) *builder {
	return &builder{r: r, issue: issue, opts: opts}
}

// build ranks the files, then fits the tree and the files into the
// budget.
func (b *builder) build() Context {
	iss, scans := b.retrieve()
	b.best = b.repoDefs()
	picks := rank(b.r, b.a, scans, b.ret, iss, b.best)
	b.trace.ranked(picks, scans)

	ctx := Context{Symbols: symbolsOf(b.a, scans)}
	issueTokens := EstimateTokens(b.issue.Title + "\n\n" + b.issue.Body)
	l := &layout{left: b.opts.Budget - issueTokens}
	treeBytes := 4 * min(b.opts.Budget/treeShare, l.left-EstimateTokens(treeHeading))
	if ctx.Tree = renderTree(b.r.files, focusOf(b.r, picks), treeBytes); ctx.Tree != "" {
		l.add(treeHeading + ctx.Tree)
	}
	// The best functions' spans are kept budget for until their files'
	// turn: files ranked before them may not take it.
	reserved := make(map[int]int, len(b.best))
	for f := range b.best {
		reserved[f] = b.reserve(f)
		l.left -= reserved[f]
	}
	var partial []placed
	widened := false
	for _, p := range picks {
		if p.tier >= tierTest && !widened {
			// The files shown in part are shown whole, if they fit,
			// before the tests and the README take what is left.
			widened = true
			b.widen(l, &ctx, partial)
			partial = nil
		}
		l.left += reserved[p.file]
		delete(reserved, p.file)
		left := l.left
		pl, why := b.place(l, p)
		b.trace.placed(pl.in, p, left, left-l.left, why)
		if why != "" {
			ctx.Omitted = append(ctx.Omitted, Omitted{Path: b.r.files[p.file], Why: why})
			continue
		}
		if pl.whole != "" {
			pl.included = len(ctx.Included)
			partial = append(partial, pl)
		}
		ctx.Included = append(ctx.Included, pl.in)
	}
	for _, n := range reserved {
		l.left += n
	}
	b.widen(l, &ctx, partial)
	ctx.Text = strings.Join(l.parts, "")
	ctx.Tokens = issueTokens + EstimateTokens(ctx.Text)
	return ctx
}

// place adds the file of p to the layout if it can be shown and fits; else
// it returns why not. A small file is shown whole; a large one as its
// outline and the spans that matter (see placeLarge).
func (b *builder) place(l *layout, p pick) (placed, string) {
	path := b.r.files[p.file]
	data, reason := b.r.read(p.file)
	if reason != "" {
		return placed{}, reason + " (" + p.why + ")"
	}
	f := file{path: path, why: p.why, readOnly: b.opts.Protected != nil && b.opts.Protected(path)}
	f.content = strings.ToValidUTF8(string(data), "\uFFFD")
	whole := fileSection(f.path, f.why, f.readOnly, f.content)
	if b.opts.WholeFiles || EstimateTokens(whole) <= SmallFileTokens {
		if need := l.cost(whole); need > l.left {
			return placed{}, overBudget(need, l.left, p.why)
		}
		return f.whole(l, whole), ""
	}
	return b.placeLarge(l, p, f, whole)
}

// retrieve reads the issue, scans the files for what it names and for its
// words, and scores the files by those words: it sets b.a, b.names and
// b.ret, and returns the issue's text and the scans.
func (b *builder) retrieve() (issueText, []fileScan) {
	iss := parseIssue(b.issue)
	b.a = b.r.analyze(iss)
	names := make([]string, len(b.a.symbols))
	b.names = make(map[string]bool, len(names))
	for k, s := range b.a.symbols {
		names[k] = s.name
		b.names[s.name] = true
	}
	terms, inTitle := queryTerms(b.issue)
	scans := b.r.scan(names, terms, iss)
	b.a.quotedIn(scans)
	b.ret = retrieve(b.r, terms, inTitle, scans)
	b.ret.rerank(b.r)
	return iss, scans
}

// placed is a file added to the layout: what Context.Included says of it,
// and its part of the layout. A file shown in part carries its whole
// section, shown instead when the budget leaves room after the files
// before the tests are placed (after every file for a test or the
// README), in rank order; included is then its index in
// Context.Included.
type placed struct {
	in       Included
	part     int
	whole    string
	included int
}

// file is a ranked file to show.
type file struct {
	path, why, content string
	readOnly           bool
}

// whole adds the file's whole section to the layout.
func (f file) whole(l *layout, section string) placed {
	in := Included{Path: f.path, Tokens: EstimateTokens(section), Why: f.why, ReadOnly: f.readOnly}
	if n := len(splitLines(f.content)); n > 0 {
		in.Lines, in.Spans = n, []Span{{Start: 1, End: n, Why: "whole file"}}
	}
	return placed{in: in, part: l.addFile(section)}
}

// placeLarge shows a file over SmallFileTokens. A Python file shows its
// outline and the spans findSpans picks: the primary ones while the
// budget lasts, the others while the section stays within the file's
// share of the budget. A seed or retrieved file no span points into is
// shown whole if it fits that share, and one shown in part may be shown
// whole later (see placed). Another language is shown whole if it fits,
// else by its head and tail.
func (b *builder) placeLarge(l *layout, p pick, f file, whole string) (placed, string) {
	// top marks the files the issue points at, not their neighbours: their
	// share of the budget is larger.
	top := p.tier == tierSeed || p.tier == tierRetrieved
	share := max(b.opts.Budget/6, SmallFileTokens)
	if top {
		share = max(b.opts.Budget/3, SmallFileTokens)
	}
	part := &partial{path: f.path, why: f.why, readOnly: f.readOnly, lines: splitLines(f.content)}
	var cands []candidate
	if langOf(f.path) == langPython {
		o := parsePython([]byte(f.content))
		cands = findSpans(o, spanQuery{names: b.names, lines: b.a.lines[p.file], quoted: b.a.quoted[p.file], words: b.ret.weights, top: top, best: b.best[p.file]})
		// The outline may not take what the repository's best functions
		// in this file need.
		left := l.left - b.reserve(p.file)
		part.outline = outlineText(o, cands, 4*min(b.opts.Budget/16, max(left/4, 0)))
	}
	need := l.cost(whole)
	switch {
	case top && need <= min(l.left, b.opts.Budget/3):
		// A file the issue points at, shown whole while it takes at most a
		// third of the budget: spans miss what the fix needs more often
		// than a whole file costs.
		return f.whole(l, whole), ""
	case len(cands) == 0 && (top && need <= min(l.left, share) || part.outline == "" && need <= l.left):
		return f.whole(l, whole), ""
	}
	if part.outline == "" && len(b.best[p.file]) == 0 {
		cands = headAndTail(part.lines, 4*min(l.left, share))
	}
	in := Included{Path: f.path, Why: f.why, ReadOnly: f.readOnly, Lines: len(part.lines), Outline: part.outline != ""}
	var chosen []Span
	cost := l.cost(part.render())
	// A span that mentions a name the issue names may take, over the
	// file's share, what the repository's best functions took of it.
	bestCost := 0
	for _, c := range cands {
		s := Span{Start: c.start, End: c.end, Why: c.why}
		part.spans = merged(append(slices.Clone(chosen), s))
		need := l.cost(part.render())
		limit := share
		if c.named {
			limit += bestCost
		}
		switch {
		case need > l.left:
			s.Why = fmt.Sprintf("over budget: needs %d more tokens, %d left (%s)", need-cost, max(l.left-cost, 0), c.why)
		case c.kind == spanSecondary && need > limit:
			s.Why = fmt.Sprintf("over the file's share of the budget: %d tokens, more than %d (%s)", need, limit, c.why)
		default:
			if c.best {
				bestCost += need - cost
			}
			chosen, cost = append(chosen, s), need
			continue
		}
		in.LeftOut = append(in.LeftOut, s)
	}
	part.spans = merged(chosen)
	section := part.render()
	if need := l.cost(section); need > l.left || len(chosen) == 0 && part.outline == "" {
		return placed{}, overBudget(need, l.left, p.why)
	}
	if top && l.files == 0 && 3*l.cost(section) >= 2*need && need <= l.left {
		// The first file, its spans taking two thirds of what the whole
		// file takes, is shown whole if it fits: the rest costs little
		// and may hold what the fix changes.
		return f.whole(l, whole), ""
	}
	in.Tokens, in.Spans = EstimateTokens(section), part.spans
	return placed{in: in, part: l.addFile(section), whole: whole}, ""
}

// headAndTail returns spans for the first lines of a file, in three
// quarters of limit bytes, and its last lines, in the rest.
func headAndTail(lines []string, limit int) []candidate {
	head, size := 0, 0
	for head < len(lines) && size+len(lines[head])+1 <= limit*3/4 {
		size += len(lines[head]) + 1
		head++
	}
	tail := len(lines)
	for tail > head && size+len(lines[tail-1])+1 <= limit {
		size += len(lines[tail-1]) + 1
		tail--
	}
	var out []candidate
	if head > 0 {
		out = append(out, candidate{lineRange: lineRange{1, head}, why: "head of the file"})
	}
	if tail < len(lines) {
		out = append(out, candidate{lineRange: lineRange{tail + 1, len(lines)}, why: "tail of the file"})
	}
	return out
}

// splitLines splits text into lines without their endings.
func splitLines(text string) []string {
	text = strings.TrimSuffix(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// overBudget is the reason a file that needs need tokens is left out.
func overBudget(need, left int, why string) string {
	return fmt.Sprintf("over budget: needs %d tokens, %d left (%s)", need, max(left, 0), why)
}

// layout is the text being assembled and the budget it has left. Each
// part is charged its own estimate, which never undercounts the whole.
type layout struct {
	parts []string
	left  int
	files int
}

// add appends a part of the text, charges it to the budget and returns
// its index.
func (l *layout) add(part string) int {
	l.parts = append(l.parts, part)
	l.left -= EstimateTokens(part)
	return len(l.parts) - 1
}

// replace replaces part i, charging the difference.
func (l *layout) replace(i int, part string) {
	l.left += EstimateTokens(l.parts[i]) - EstimateTokens(part)
	l.parts[i] = part
}

// cost is what adding a file's section takes: the section, and the files
// heading before the first.
func (l *layout) cost(section string) int {
	if l.files == 0 {
		return EstimateTokens(filesHeading) + EstimateTokens(section)
	}
	return EstimateTokens(section)
}

// addFile adds a file's section, after the files heading if it is the
// first, and returns the section's index.
func (l *layout) addFile(section string) int {
	if l.files == 0 {
		l.add(filesHeading)
	}
	l.files++
	return l.add(section)
}

// focusOf returns the paths the tree should always show: the seeds, the
// files the issue is most likely about.
func focusOf(r *repo, picks []pick) map[string]bool {
	focus := make(map[string]bool)
	for _, p := range picks {
		if p.tier == tierSeed {
			focus[r.files[p.file]] = true
		}
	}
	return focus
}

// symbolsOf lists the symbols to report, in order of first mention: those
// written as code on purpose, and the others the repository defines.
func symbolsOf(a *analysis, scans []fileScan) []string {
	defined := make([]bool, len(a.symbols))
	for _, s := range scans {
		for _, n := range s.defines {
			defined[n] = true
		}
	}
	var out []string
	for k, s := range a.symbols {
		if s.listed && (s.strong || defined[k]) {
			out = append(out, s.spelled)
		}
	}
	return out
}

// widen shows whole, in rank order, the files of partial whose whole
// sections fit in what the budget has left.
func (b *builder) widen(l *layout, ctx *Context, partial []placed) {
	for _, pl := range partial {
		if delta := EstimateTokens(pl.whole) - EstimateTokens(l.parts[pl.part]); delta <= l.left {
			l.replace(pl.part, pl.whole)
			in := &ctx.Included[pl.included]
			b.trace.widened(*in, delta)
			in.Tokens, in.Outline, in.LeftOut = EstimateTokens(pl.whole), false, nil
			in.Spans = []Span{{Start: 1, End: in.Lines, Why: "whole file: the budget left room"}}
		}
	}
}
