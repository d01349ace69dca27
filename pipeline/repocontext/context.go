package repocontext

import (
	"errors"
	"fmt"
	"strings"
)

// DefaultBudget is the token budget when [Options.Budget] is zero.
const DefaultBudget = 24000

// Issue is the issue the context is built for.
type Issue struct {
	Title, Body string
}

// Options tune [Build]; the zero value is ready to use.
type Options struct {
	// Budget is the most tokens, as counted by EstimateTokens, that the
	// issue (title and body) and Context.Text may take together; zero means
	// DefaultBudget.
	Budget int
	// Protected reports whether the model may not edit a file, given its
	// slash-separated path relative to the repository; such files are
	// marked "(read-only)" in the text. Nil protects nothing.
	Protected func(path string) bool
	// Exclude names further directories to skip: a bare name ("docs")
	// skips every directory so named, a path ("docs/api") only that one.
	Exclude []string
	// WholeFiles shows every file whole, as Build did before it showed
	// large files in part: for measuring the two side by side.
	WholeFiles bool
	// Explain names a file, and perhaps lines of it, for Build to explain
	// in Context.Explanation: where it ranked, why, what it would take
	// and what took the budget before it. It leaves the context as it
	// would be without it. Nil explains nothing.
	Explain *Target
}

// Context is the repository context for one issue.
type Context struct {
	// Text is the rendered context for the prompt: the file tree, then the
	// included files in rank order, each whole in a fenced block or, when
	// over SmallFileTokens, as its outline and spans (each span's exact
	// text in a fenced block under its line range, omitted lines marked
	// "⋮ lines 120-340 omitted"). It does not repeat the issue.
	Text string
	// Tree is the file listing in Text, collapsed to fit about a sixteenth
	// of the budget.
	Tree string
	// Included are the files shown in Text, in rank order.
	Included []Included
	// Omitted are the ranked files that could not be shown, and why.
	Omitted []Omitted
	// Tokens is the estimate counted against the budget: the issue plus
	// Text. It exceeds the budget only when the issue alone does.
	Tokens int
	// Symbols are the functions, classes and names the issue names, as it
	// writes them: a signature when it gives one ("def divide(a, b)"), else
	// the name ("divide", "calc.ops.divide"). Names seen only in code
	// blocks or in prose without code markup are listed only when the
	// repository defines them.
	Symbols []string
	// Explanation explains the file Options.Explain names; nil when it
	// names none.
	Explanation *Explanation
}

// Included is a file shown in the context.
type Included struct {
	// Path is slash-separated and relative to the repository.
	Path string
	// Tokens is the estimate of the file's section in Text.
	Tokens int
	// Why says why the file was picked, e.g. "defines divide".
	Why string
	// ReadOnly reports that Options.Protected protects the file.
	ReadOnly bool
	// Lines is the file's number of lines.
	Lines int
	// Spans are the lines shown, in order, each with why: a single span
	// "whole file" for a file shown whole.
	Spans []Span
	// Outline reports that the file's outline is shown before its spans.
	Outline bool
	// LeftOut are the spans chosen but not shown, each with why first.
	LeftOut []Span
}

// Whole reports that the file is shown whole.
func (in Included) Whole() bool {
	return in.Lines == 0 || !in.Outline && len(in.Spans) == 1 && in.Spans[0].Start == 1 && in.Spans[0].End == in.Lines
}

// String describes the included file for a log: "calc/ops.py (defines
// divide)", followed for a file shown in part by its outline, spans and
// the spans left out.
func (in Included) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)", in.Path, in.Why)
	if in.Whole() {
		return b.String()
	}
	fmt.Fprintf(&b, ": %d lines", in.Lines)
	if in.Outline {
		b.WriteString("; the outline")
	}
	for _, s := range in.Spans {
		b.WriteString("; " + s.String())
	}
	for _, s := range in.LeftOut {
		b.WriteString("; left out: " + s.String())
	}
	return b.String()
}

// Omitted is a ranked file left out of the context.
type Omitted struct {
	// Path is slash-separated and relative to the repository.
	Path string
	// Why gives the reason, then why the file was picked, e.g.
	// "over budget: needs 5321 tokens, 1200 left (imports calc/ops.py)".
	Why string
}

// ErrBudget reports a negative budget.
var ErrBudget = errors.New("repocontext: negative budget")

// Build builds the context for issue from the repository checked out at
// repoDir. It fails only when the repository cannot be read at all, or
// when Options.Explain names a file or lines it does not have (ErrTarget);
// files it cannot show are listed in Context.Omitted.
func Build(repoDir string, issue Issue, opts Options) (Context, error) {
	if opts.Budget < 0 {
		return Context{}, fmt.Errorf("%w: %d", ErrBudget, opts.Budget)
	}
	if opts.Budget == 0 {
		opts.Budget = DefaultBudget
	}
	r, err := openRepo(repoDir, opts.Exclude)
	if err != nil {
		return Context{}, err
	}
	defer r.close()
	b := newBuilder(r, issue, opts)
	if opts.Explain != nil {
		if b.trace, err = r.newTrace(*opts.Explain); err != nil {
			return Context{}, err
		}
	}
	ctx := b.build()
	ctx.Explanation = b.trace.explain(b, ctx)
	return ctx, nil
}
