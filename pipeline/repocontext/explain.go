package repocontext

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ErrTarget reports a file or lines Options.Explain names that the
// repository does not have: a path outside it, a missing file, a
// directory, lines past the end of the file or in the wrong order.
var ErrTarget = errors.New("repocontext: cannot explain")

// Target names the file, and perhaps the lines of it, an explanation is
// about (see Options.Explain).
type Target struct {
	// Path is the file relative to the repository (as the context writes
	// it), or an absolute path inside the repository.
	Path string
	// Start and End are the lines asked about, from 1, both included;
	// both zero ask about the whole file.
	Start, End int
}

// Explanation says where one file stands in a context, and why: where
// the ranking put it and for what reason, what it would take, whether it
// (or the lines asked about) is shown, and what took the budget before
// its turn came.
type Explanation struct {
	// Path is the file, slash-separated and relative to the repository.
	Path string
	// Start and End are the lines asked about; zero for the whole file.
	Start, End int
	// Lines is the file's number of lines; zero when it cannot be read.
	Lines int
	// Rank is the file's place in the ranking, from 1; zero when nothing
	// ranked it. Ranked is how many files the ranking picked.
	Rank, Ranked int
	// Tier names the ranking tier that picked the file, e.g. "tier 1,
	// the files the issue points at", and Why is the reason the ranking
	// gave, e.g. "defines divide"; both empty when nothing ranked it.
	Tier, Why string
	// Seen says what the ranking saw of the file, whatever reason it
	// gave: the names of the issue it defines and how many files define
	// each, the names a test mentions, the ranked files it imports or
	// that import it, where the issue's words put it; or that it lies
	// where the context never looks.
	Seen []string
	// Unreadable says why the file cannot be shown at all (binary, too
	// large, ...); empty when it can.
	Unreadable string
	// WholeTokens is what the file's section takes when shown whole.
	// SpanTokens is what a section showing only lines Start-End takes
	// (its heading, the lines, the marks for the lines omitted, no
	// outline); zero when no lines are asked about.
	WholeTokens, SpanTokens int
	// Included is the file's entry in Context.Included; nil when the
	// context does not show it.
	Included *Included
	// Omitted is why the ranking's pick was left out, as in
	// Context.Omitted; empty when it is shown or was not ranked.
	Omitted string
	// Shown are the parts of the lines asked about (of the file, when
	// none are) that the context shows, with why each span was chosen.
	// LeftOut are the spans over them that were chosen but left out,
	// why first.
	Shown, LeftOut []Span
	// Budget is the context's token budget; IssueTokens, TreeTokens and
	// HeadingTokens what the issue, the file tree and the heading of the
	// files took of it, the heading only when a file was placed before
	// the file's turn.
	Budget, IssueTokens, TreeTokens, HeadingTokens int
	// Left is the budget left when the file's turn came, never below
	// zero; for a file nothing ranked, what was left once every ranked
	// file was placed. Unused is what the context left of the budget in
	// the end, every file placed and widened.
	Left, Unused int
	// Before are the files placed before the file's turn, in rank order,
	// with the tokens each took; Skipped counts the ranked files before
	// it that were left out, which took none.
	Before  []Use
	Skipped int
	// Widened are the files shown in part that were shown whole once
	// every ranked file was placed, because the budget left room, with
	// the tokens that took.
	Widened []Use
}

// Use is a file that took part of the budget.
type Use struct {
	// Rank is the file's place in the ranking, from 1.
	Rank int
	// Path is slash-separated and relative to the repository.
	Path string
	// Why is the reason the ranking gave.
	Why string
	// Tokens is what the file's section took of the budget, as in
	// Included.Tokens when it was placed.
	Tokens int
	// Whole reports that the file was shown whole.
	Whole bool
}

// tierNames describe the ranking's tiers.
var tierNames = map[int]string{
	tierSeed:      "tier 1, the files the issue points at",
	tierRetrieved: "tier 2, the files named like the issue's words or using them most",
	tierNeighbour: "tier 3, the files tier 1 imports or that import it, and more files using the issue's words",
	tierTest:      "tier 4, the tests",
	tierProject:   "tier 5, the README and setup files",
}

// trace records what a build decided about every ranked file, for
// explaining one. Its methods do nothing on a nil trace.
type trace struct {
	r      *repo
	target Target
	// file is the target's index in repo.files; -1 when the walk does not
	// list it, unlisted then saying why.
	file     int
	unlisted string
	// content is the target's text, or unreadable why it cannot be shown.
	content, unreadable string

	picks []pick
	scans []fileScan
	steps []step
	wider []Use
}

// step is the placement of one ranked file.
type step struct {
	use Use
	// left is the budget left before it, took what it took (the files
	// heading included for the first file); omitted is why it was left
	// out.
	left, took int
	omitted    string
}

// newTrace checks a target against the repository and reads the file.
func (r *repo) newTrace(t Target) (*trace, error) {
	if t.Start < 0 || t.End < t.Start || (t.Start == 0) != (t.End == 0) {
		return nil, fmt.Errorf("%w: lines %d-%d: want 1 <= START <= END", ErrTarget, t.Start, t.End)
	}
	rel, err := r.relative(t.Path)
	if err != nil {
		return nil, err
	}
	t.Path = rel
	tr := &trace{r: r, target: t, file: -1}
	if i, ok := r.index[rel]; ok {
		tr.file = i
		data, reason := r.read(i)
		tr.content, tr.unreadable = string(data), reason
	} else if tr.unlisted, err = r.unlisted(rel); err != nil {
		return nil, err
	} else {
		tr.content, tr.unreadable = r.readUnlisted(rel)
	}
	tr.content = strings.ToValidUTF8(tr.content, "\uFFFD")
	if n := len(splitLines(tr.content)); t.End > n && tr.unreadable == "" {
		return nil, fmt.Errorf("%w: lines %d-%d of %s: the file has %d lines", ErrTarget, t.Start, t.End, rel, n)
	}
	return tr, nil
}

// relative returns p as a clean slash path relative to the repository:
// p is relative to it, or absolute inside it.
func (r *repo) relative(p string) (string, error) {
	orig := p
	if p == "" {
		return "", fmt.Errorf("%w: no file named", ErrTarget)
	}
	if filepath.IsAbs(p) {
		// The repository's own path has its symlinks resolved: resolve
		// the directory of p the same way, when it exists.
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(dir, filepath.Base(p))
		}
		rel, err := filepath.Rel(r.dir, p)
		if err != nil {
			return "", fmt.Errorf("%w: %s is outside the repository", ErrTarget, orig)
		}
		p = rel
	}
	rel := path.Clean(filepath.ToSlash(p))
	switch {
	case rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel):
		return "", fmt.Errorf("%w: %s is outside the repository", ErrTarget, orig)
	case rel == ".":
		return "", fmt.Errorf("%w: %s is the repository, not a file in it", ErrTarget, orig)
	}
	return rel, nil
}

// unlisted says why the walk does not list the file at rel, which
// exists in the repository; an error when it does not.
func (r *repo) unlisted(rel string) (string, error) {
	fi, err := r.root.Lstat(filepath.FromSlash(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%w: %s: no such file in the repository", ErrTarget, rel)
	case err != nil:
		return "", fmt.Errorf("%w: %s: %w", ErrTarget, rel, err)
	case fi.IsDir():
		return "", fmt.Errorf("%w: %s is a directory, not a file", ErrTarget, rel)
	case r.inSkipped(rel):
		return "it lies in a directory the context never walks (version control, dependencies, virtual environments, caches, build output, hidden or excluded directories)", nil
	case fi.Mode()&irregular != 0:
		return "it is not a regular file", nil
	}
	return "the walk does not list it (a symlinked directory leads to it)", nil
}

// readUnlisted reads a file the walk does not list, through the root,
// by the rules of read; it returns the reason it cannot be shown, if
// any.
func (r *repo) readUnlisted(rel string) (string, string) {
	fi, err := r.root.Stat(filepath.FromSlash(rel))
	switch {
	case err != nil:
		return "", fmt.Sprintf("unreadable: %v", err)
	case !fi.Mode().IsRegular():
		return "", reasonIrreg
	case fi.Size() > maxFileSize:
		return "", "too large: over the 1 MiB limit"
	}
	data, err := r.root.ReadFile(filepath.FromSlash(rel))
	switch {
	case err != nil:
		return "", fmt.Sprintf("unreadable: %v", err)
	case isBinary(data):
		return "", reasonBinary
	}
	return string(data), ""
}

// ranked records the ranking.
func (t *trace) ranked(picks []pick, scans []fileScan) {
	if t != nil {
		t.picks, t.scans = picks, scans
	}
}

// placed records the placement of pick p: what it shows, in, the budget
// left before it, what it took, and why it was left out if it was.
func (t *trace) placed(in Included, p pick, left, took int, omitted string) {
	if t == nil {
		return
	}
	u := Use{Rank: len(t.steps) + 1, Path: t.r.files[p.file], Why: p.why, Tokens: in.Tokens, Whole: omitted == "" && in.Whole()}
	t.steps = append(t.steps, step{use: u, left: left, took: took, omitted: omitted})
}

// widened records a file shown whole after every ranked file was placed.
func (t *trace) widened(in Included, took int) {
	if t == nil {
		return
	}
	for _, s := range t.steps {
		if s.use.Path == in.Path {
			t.wider = append(t.wider, Use{Rank: s.use.Rank, Path: in.Path, Why: in.Why, Tokens: took, Whole: true})
			return
		}
	}
}

// explain explains the target in ctx, built by b; nil on a nil trace.
func (t *trace) explain(b *builder, ctx Context) *Explanation {
	if t == nil {
		return nil
	}
	e := &Explanation{
		Path: t.target.Path, Start: t.target.Start, End: t.target.End,
		Lines: len(splitLines(t.content)), Ranked: len(t.picks), Unreadable: t.unreadable,
		Budget:      b.opts.Budget,
		IssueTokens: ctx.Tokens - EstimateTokens(ctx.Text),
		Widened:     t.wider,
	}
	if ctx.Tree != "" {
		e.TreeTokens = EstimateTokens(treeHeading + ctx.Tree)
	}
	for k, p := range t.picks {
		if p.file == t.file {
			e.Rank, e.Tier, e.Why = k+1, tierNames[p.tier], p.why
		}
	}
	e.Left = e.Budget - e.IssueTokens - e.TreeTokens
	for _, s := range t.steps {
		if s.use.Rank == e.Rank {
			e.Left, e.Omitted = s.left, s.omitted
			break
		}
		if s.omitted != "" {
			e.Skipped++
			continue
		}
		e.Before = append(e.Before, s.use)
		e.HeadingTokens += s.took - s.use.Tokens
		e.Left = s.left - s.took
	}
	e.Unused = e.Budget - e.IssueTokens - e.TreeTokens
	if n := len(t.steps); n > 0 {
		e.Unused = t.steps[n-1].left - t.steps[n-1].took
	}
	for _, u := range t.wider {
		e.Unused -= u.Tokens
	}
	e.Left, e.Unused = max(e.Left, 0), max(e.Unused, 0)
	e.Seen = t.seen(b)
	t.measure(e, b)
	for k := range ctx.Included {
		if in := ctx.Included[k]; in.Path == e.Path {
			e.Included = &in
			e.Shown, e.LeftOut = t.overlap(in)
		}
	}
	return e
}

// measure sets what the file takes whole and the lines asked about take
// as a span.
func (t *trace) measure(e *Explanation, b *builder) {
	if t.unreadable != "" {
		return
	}
	why := cmp.Or(e.Why, "not ranked")
	readOnly := b.opts.Protected != nil && b.opts.Protected(e.Path)
	e.WholeTokens = EstimateTokens(fileSection(e.Path, why, readOnly, t.content))
	if e.Start > 0 {
		part := &partial{path: e.Path, why: why, readOnly: readOnly, lines: splitLines(t.content),
			spans: []Span{{Start: e.Start, End: e.End, Why: "the lines asked about"}}}
		e.SpanTokens = EstimateTokens(part.render())
	}
}

// overlap returns the parts of the target's lines that in shows, and the
// spans over them it left out.
func (t *trace) overlap(in Included) (shown, leftOut []Span) {
	lo, hi := t.target.Start, t.target.End
	if lo == 0 {
		lo, hi = 1, max(in.Lines, 1)
	}
	for _, s := range in.Spans {
		if s.Start <= hi && lo <= s.End {
			shown = append(shown, Span{Start: max(s.Start, lo), End: min(s.End, hi), Why: s.Why})
		}
	}
	for _, s := range in.LeftOut {
		if s.Start <= hi && lo <= s.End {
			leftOut = append(leftOut, s)
		}
	}
	return shown, leftOut
}

// maxNotedFiles caps the ranked files a note of Explanation.Seen names.
const maxNotedFiles = 3

// seen says what the ranking saw of the target.
func (t *trace) seen(b *builder) []string {
	if t.file < 0 {
		return []string{t.unlisted}
	}
	f, p := t.file, t.r.files[t.file]
	var notes []string
	if len(t.scans) > f {
		s := t.scans[f]
		if len(s.defines) > 0 {
			notes = append(notes, "defines names of the issue: "+t.definers(b, s.defines))
		}
		if len(s.mentions) > 0 {
			notes = append(notes, "a test that mentions names of the issue: "+t.symbolNames(b, s.mentions))
		}
		if ranked := t.rankedAmong(b, s.imports); ranked != "" {
			notes = append(notes, "imports ranked files: "+ranked)
		}
		if ranked := t.importers(b, f); ranked != "" {
			notes = append(notes, "imported by ranked files: "+ranked)
		}
	}
	switch {
	case langOf(p) == langNone:
		notes = append(notes, "not a source file: neither searched for the issue's names nor scored by its words")
	case isTestFile(p):
		notes = append(notes, "a test: not scored by the issue's words")
	default:
		notes = append(notes, t.retrieval(b, f))
	}
	return notes
}

// definers lists names with how many files define each.
func (t *trace) definers(b *builder, names []int32) string {
	count := make(map[int32]int)
	for _, s := range t.scans {
		for _, n := range s.defines {
			count[n]++
		}
	}
	var out []string
	for _, n := range names {
		out = append(out, fmt.Sprintf("%s (defined in %s)", b.a.symbols[n].name, plural(count[n], "file")))
	}
	return strings.Join(out, ", ")
}

// symbolNames lists the names of the issue's symbols ns.
func (t *trace) symbolNames(b *builder, ns []int32) string {
	var out []string
	for _, n := range ns {
		out = append(out, b.a.symbols[n].name)
	}
	return strings.Join(out, ", ")
}

// rankedAmong lists the ranked files among files with their ranks, up to
// maxNotedFiles; "" when none is ranked.
func (t *trace) rankedAmong(b *builder, files []int32) string {
	var out []string
	for k, p := range t.picks {
		if slices.Contains(files, int32(p.file)) {
			out = append(out, fmt.Sprintf("%s (rank %d)", t.r.files[p.file], k+1))
		}
	}
	if len(out) > maxNotedFiles {
		out = append(out[:maxNotedFiles], fmt.Sprintf("%d more", len(out)-maxNotedFiles))
	}
	return strings.Join(out, ", ")
}

// importers lists the ranked files that import file f.
func (t *trace) importers(b *builder, f int) string {
	var files []int32
	for _, p := range t.picks {
		if p.file < len(t.scans) && slices.Contains(t.scans[p.file].imports, int32(f)) {
			files = append(files, int32(p.file))
		}
	}
	return t.rankedAmong(b, files)
}

// retrieval says where the issue's words put source file f among the
// files that use any of them.
func (t *trace) retrieval(b *builder, f int) string {
	ret := b.ret
	if f >= len(ret.score) || ret.score[f] == 0 {
		return "uses none of the issue's words"
	}
	place := 1
	for g, s := range ret.score {
		if s > ret.score[f] || s == ret.score[f] && g < f {
			place++
		}
	}
	scored := 0
	for _, s := range ret.score {
		if s > 0 {
			scored++
		}
	}
	note := fmt.Sprintf("rank %d of %d files by the issue's words (BM25), using %s", place, scored, strings.Join(ret.words[f], ", "))
	if len(ret.words[f]) < minWordHits {
		note += fmt.Sprintf("; retrieval wants at least %d of them", minWordHits)
	}
	return note
}
