package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/pipeline/repocontext"
)

// contextReportHeading separates the context from the report after it.
const contextReportHeading = "\n==== What the context holds ====\n"

func runContext(_ context.Context, env *environment, args []string) int {
	fs := newFlagSet("context", "Usage: capsule context --repo DIR --issue FILE|- [--budget N] [--file PATH | --lines PATH:START-END]\n\nPrints the repository context `capsule solve` would give the model for the\nissue, then the files and spans it includes and leaves out, and why. With\n--file or --lines it prints instead why that file, or those lines, are in\nthe context or not: where the file ranked and why, what it would take, and\nwhat took the budget before it.")
	dir := fs.String("repo", "", "the repository's directory (required)")
	issuePath := fs.String("issue", "", "the issue in Markdown, a `FILE` or - for standard input; its first \"# \" heading is the title (required)")
	budget := fs.Int("budget", 0, fmt.Sprintf("token budget of the repository context (default %d)", repocontext.DefaultBudget))
	file := fs.String("file", "", "explain where the file at `PATH`, relative to the repository, stands in the context")
	lines := fs.String("lines", "", "explain where lines of a file stand in the context: `LINES` is PATH:START-END, lines from 1, both included, PATH as for --file")
	if code := parseFlags(fs, env, args); code >= 0 {
		return code
	}
	if *dir == "" || *issuePath == "" || fs.NArg() > 0 {
		fmt.Fprintln(env.stderr, "capsule context: need --repo DIR and --issue FILE (or -), and no other arguments")
		return exitUsage
	}
	if *budget < 0 {
		return fail(env, fmt.Errorf("%w: --budget must not be negative", errUsage))
	}
	target, err := explainTarget(*file, *lines)
	if err != nil {
		return fail(env, err)
	}
	local, err := localTask(*dir, *issuePath)
	if err != nil {
		return fail(env, err)
	}
	// The plan is solve's, so the context is too; no test runs here, so
	// none needs to be found.
	plan, err := repo.NewPlan(local,
		repo.Overrides{TestCommand: "true", ContextBudget: *budget}, repo.Maxima{})
	if err != nil {
		return fail(env, fmt.Errorf("%w: %w", errUsage, err))
	}
	opts := repo.ContextOptions(plan)
	opts.Explain = target
	rc, err := repocontext.Build(plan.Dir, repocontext.Issue{Title: plan.Title, Body: plan.Body}, opts)
	if errors.Is(err, repocontext.ErrTarget) {
		err = fmt.Errorf("%w: %w", errUsage, err)
	}
	if err != nil {
		return fail(env, err)
	}
	if rc.Explanation != nil {
		writeExplanation(env.stdout, rc.Explanation)
		return exitOK
	}
	fmt.Fprint(env.stdout, rc.Text)
	writeContextReport(env.stdout, rc, *budget)
	return exitOK
}

// writeContextReport lists what the context includes and leaves out, and
// why.
func writeContextReport(w io.Writer, rc repocontext.Context, budget int) {
	if budget == 0 {
		budget = repocontext.DefaultBudget
	}
	fmt.Fprint(w, contextReportHeading)
	fmt.Fprintf(w, "Tokens: %d of a budget of %d, the issue included\n", rc.Tokens, budget)
	if len(rc.Symbols) > 0 {
		fmt.Fprintln(w, "Symbols the issue names:")
		for _, s := range rc.Symbols {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	fmt.Fprintln(w, "Included:")
	for _, in := range rc.Included {
		fmt.Fprintf(w, "  %s (%s), %d tokens", in.Path, in.Why, in.Tokens)
		if in.ReadOnly {
			fmt.Fprint(w, ", read-only")
		}
		if in.Whole() {
			fmt.Fprintln(w, ", whole")
			continue
		}
		fmt.Fprintf(w, ", in part: %d lines", in.Lines)
		if in.Outline {
			fmt.Fprint(w, ", the outline")
		}
		fmt.Fprintln(w)
		for _, s := range in.Spans {
			fmt.Fprintf(w, "    shown: %s\n", s)
		}
		for _, s := range in.LeftOut {
			fmt.Fprintf(w, "    left out: %s\n", s)
		}
	}
	if len(rc.Omitted) == 0 {
		fmt.Fprintln(w, "Left out: nothing")
		return
	}
	fmt.Fprintln(w, "Left out:")
	for _, o := range rc.Omitted {
		fmt.Fprintf(w, "  %s: %s\n", o.Path, o.Why)
	}
}
