package repocontext

import (
	"fmt"
	"strings"
)

// builder builds one Context.
type builder struct {
	r     *repo
	issue Issue
	opts  Options
}

// newBuilder returns a builder for issue in r.
func newBuilder(r *repo, issue Issue, opts Options) *builder {
	return &builder{r: r, issue: issue, opts: opts}
}

// build ranks the files, then fits the tree and the files into the
// budget.
func (b *builder) build() Context {
	a := b.r.analyze(parseIssue(b.issue))
	names := make([]string, len(a.symbols))
	for k, s := range a.symbols {
		names[k] = s.name
	}
	scans := b.r.scan(names)
	picks := rank(b.r, a, scans)

	ctx := Context{Symbols: symbolsOf(a, scans)}
	issueTokens := EstimateTokens(b.issue.Title + "\n\n" + b.issue.Body)
	l := &layout{left: b.opts.Budget - issueTokens}
	treeBytes := 4 * min(b.opts.Budget/10, l.left-EstimateTokens(treeHeading))
	if ctx.Tree = renderTree(b.r.files, focusOf(b.r, picks), treeBytes); ctx.Tree != "" {
		l.add(treeHeading + ctx.Tree)
	}
	for _, p := range picks {
		if in, why := b.place(l, p); why != "" {
			ctx.Omitted = append(ctx.Omitted, Omitted{Path: b.r.files[p.file], Why: why})
		} else {
			ctx.Included = append(ctx.Included, in)
		}
	}
	ctx.Text = l.text.String()
	ctx.Tokens = issueTokens + EstimateTokens(ctx.Text)
	return ctx
}

// place adds the file of p to the layout if it can be shown and fits; else
// it returns why not.
func (b *builder) place(l *layout, p pick) (Included, string) {
	path := b.r.files[p.file]
	data, reason := b.r.read(p.file)
	if reason != "" {
		return Included{}, reason + " (" + p.why + ")"
	}
	readOnly := b.opts.Protected != nil && b.opts.Protected(path)
	section := fileSection(path, p.why, readOnly, strings.ToValidUTF8(string(data), "\uFFFD"))
	if l.files == 0 {
		if need := EstimateTokens(filesHeading) + EstimateTokens(section); need > l.left {
			return Included{}, fmt.Sprintf("over budget: needs %d tokens, %d left (%s)", need, max(l.left, 0), p.why)
		}
		l.add(filesHeading)
	}
	if need := EstimateTokens(section); need > l.left {
		return Included{}, fmt.Sprintf("over budget: needs %d tokens, %d left (%s)", need, max(l.left, 0), p.why)
	}
	l.add(section)
	l.files++
	return Included{Path: path, Tokens: EstimateTokens(section), Why: p.why, ReadOnly: readOnly}, ""
}

// layout is the text being assembled and the budget it has left. Each
// part is charged its own estimate, which never undercounts the whole.
type layout struct {
	text  strings.Builder
	left  int
	files int
}

// add appends a part of the text and charges it to the budget.
func (l *layout) add(part string) {
	l.text.WriteString(part)
	l.left -= EstimateTokens(part)
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
