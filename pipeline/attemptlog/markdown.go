package attemptlog

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// MarkdownOutputCap caps the run output shown per attempt, in bytes; the
// JSON log keeps all that was captured.
const MarkdownOutputCap = 4000

// MarkdownOptions makes WriteMarkdownWith leave parts of a log out, for
// texts with a size limit such as a pull request body. The zero value
// leaves nothing out.
type MarkdownOptions struct {
	// Attempts, indexed like Log.Attempts, says what to leave out of each
	// attempt; attempts past its end are shown in full.
	Attempts []AttemptTrim
	// NoContextFiles leaves out the list of files in the model's context.
	NoContextFiles bool
	// NoProof leaves out the gate's proof table, for a text that shows it
	// itself (Log.Proof).
	NoProof bool
}

// AttemptTrim says what a rendering leaves out of one attempt. A part
// left out is replaced by a line saying so; parts the attempt does not
// have are not mentioned.
type AttemptTrim struct {
	// MaxOutput caps the test output shown, in bytes, keeping its head and
	// tail; 0 means MarkdownOutputCap.
	MaxOutput int
	Output    bool // leave out the test output
	Code      bool // leave out the patch or the code
	Feedback  bool // leave out the feedback to the model
	Details   bool // leave out the attempt's folded details
	Row       bool // leave out its row in the table of attempts, and its details
}

// WriteMarkdown renders the log for people: a summary, a table of
// attempts, and the details of each attempt folded away.
func (l *Log) WriteMarkdown(w io.Writer) error {
	return l.writeMarkdown(w, MarkdownOptions{}, false)
}

// WriteMarkdownWith renders the log as WriteMarkdown does, leaving out
// what opts says. Unlike WriteMarkdown, which shortens outputs at byte
// offsets, it never splits a UTF-8 sequence.
func (l *Log) WriteMarkdownWith(w io.Writer, opts MarkdownOptions) error {
	return l.writeMarkdown(w, opts, true)
}

func (l *Log) writeMarkdown(w io.Writer, opts MarkdownOptions, runeSafe bool) error {
	var b strings.Builder
	prompt, completion := l.Tokens()
	switch {
	case l.Outcome == Solved:
		fmt.Fprintf(&b, "**Solved** at attempt %d (%s): the tests that show the issue pass now, and no test that passed before fails.", l.AttemptIndex, attemptName(l.AttemptIndex))
	case l.Outcome == Unproven:
		fmt.Fprintf(&b, "**Tests pass, but nothing shows that the issue is fixed**: no test reproduced it. Passed at attempt %d (%s), with no regressions.", l.AttemptIndex, attemptName(l.AttemptIndex))
	case l.Solved:
		fmt.Fprintf(&b, "**Tests pass** at attempt %d (%s).", l.AttemptIndex, attemptName(l.AttemptIndex))
	default:
		fmt.Fprintf(&b, "**Tests do not pass.** %s", nonEmpty(l.Stopped, "No attempt passed."))
	}
	fmt.Fprintf(&b, " %d model calls, %d prompt and %d completion tokens, %s in all.\n\n",
		l.ModelCalls(), prompt, completion, l.Duration.Round(time.Millisecond))
	if v := l.Proof(); v != nil && !opts.NoProof {
		b.WriteString(v.ProofTable() + "\n")
	}
	if bl := l.Baseline; bl != nil {
		writeBaseline(&b, bl)
	}
	if r := l.Reproduction; r != nil {
		writeReproduction(&b, l, r)
	}
	if l.TestCommand != "" {
		fmt.Fprintf(&b, "Tests: `%s` (%s).\n\n", l.TestCommand, nonEmpty(l.TestReason, "configured"))
	}
	if c := l.Context; c != nil {
		fmt.Fprintf(&b, "Context: %d of %d tokens, %d files shown", c.Tokens, c.Budget, len(c.Included))
		if len(c.Omitted) > 0 {
			fmt.Fprintf(&b, ", %d left out", len(c.Omitted))
		}
		b.WriteString(".\n\n")
		if len(c.Included)+len(c.Omitted) > 0 && opts.NoContextFiles {
			b.WriteString("The list of files in the context is left out.\n\n")
		} else if len(c.Included)+len(c.Omitted) > 0 {
			b.WriteString("<details><summary>Files in the context</summary>\n\n")
			for _, f := range c.Included {
				fmt.Fprintf(&b, "- %s\n", f)
			}
			for _, f := range c.Omitted {
				fmt.Fprintf(&b, "- left out: %s\n", f)
			}
			b.WriteString("\n</details>\n\n")
		}
	}
	if l.Setup != nil {
		fmt.Fprintf(&b, "Set-up: `%s` in `%s`: %s.\n\n", shellJoin(l.Setup.Command), l.Setup.Image, runVerdict(l.Setup))
	}

	b.WriteString("| attempt | mode | result | feedback | tokens (prompt/completion) | model | tests |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	trim := func(i int) AttemptTrim {
		if i < len(opts.Attempts) {
			return opts.Attempts[i]
		}
		return AttemptTrim{}
	}
	var noRow, noDetails []int
	for i, a := range l.Attempts {
		if t := trim(i); t.Row {
			noRow = append(noRow, a.Index)
			continue
		} else if t.Details {
			noDetails = append(noDetails, a.Index)
		}
		result, testTime := "no code", "-"
		if a.Run != nil {
			result = "pass"
			if !a.Run.Passed {
				result = "fail: " + a.Run.Reason
			}
			testTime = a.Run.Duration.Round(time.Millisecond).String()
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %d/%d | %s | %s |\n",
			a.Index, a.Mode, cell(result), cell(nonEmpty(a.FeedbackKind, "-")),
			a.PromptTokens, a.CompletionTokens, a.ModelDuration.Round(time.Millisecond), testTime)
	}
	if len(noRow) > 0 {
		fmt.Fprintf(&b, "\n%s left out of the table.\n", capitalize(AttemptList(noRow)))
	}
	if len(noDetails) > 0 {
		fmt.Fprintf(&b, "\nDetails of %s left out.\n", AttemptList(noDetails))
	}
	for i, a := range l.Attempts {
		t := trim(i)
		if t.Row || t.Details {
			continue
		}
		fmt.Fprintf(&b, "\n<details><summary>Attempt %d (%s)</summary>\n\n", a.Index, a.Mode)
		if a.Run != nil {
			fmt.Fprintf(&b, "Command `%s` in image `%s`: exit status %d.\n\n", shellJoin(a.Run.Command), a.Run.Image, a.Run.ExitCode)
		}
		if len(a.Changes) > 0 {
			b.WriteString("Files changed:")
			for _, c := range a.Changes {
				fmt.Fprintf(&b, " `%s` (%s, +%d -%d)", c.Path, c.Status, c.Added, c.Removed)
			}
			b.WriteString(".\n\n")
		}
		for _, r := range a.Refused {
			fmt.Fprintf(&b, "Refused: %s\n\n", r)
		}
		for _, c := range a.Cleaned {
			fmt.Fprintf(&b, "Cleaned: %s.\n\n", c)
		}
		if len(a.Removed) > 0 {
			fmt.Fprintf(&b, "Removed top-level example calls at lines %s.\n\n", ranges(a.Removed))
		}
		switch {
		case a.Patch != "" && t.Code:
			fmt.Fprintf(&b, "Patch left out (%s).\n\n", lineCount(a.Patch))
		case a.Patch != "":
			writeFenced(&b, "diff", a.Patch)
		case a.Code != "" && t.Code:
			fmt.Fprintf(&b, "Code left out (%s).\n\n", lineCount(a.Code))
		case a.Code != "":
			writeFenced(&b, "python", a.Code)
		}
		if a.Feedback != "" && t.Feedback {
			fmt.Fprintf(&b, "Feedback to the model left out (%s).\n\n", lineCount(a.Feedback))
		} else if a.Feedback != "" {
			b.WriteString("Feedback to the model:\n\n")
			writeFenced(&b, "text", a.Feedback)
		}
		if a.Run != nil && a.Run.Output != "" && t.Output {
			fmt.Fprintf(&b, "Test output left out (%s).\n\n", lineCount(a.Run.Output))
		} else if a.Run != nil && a.Run.Output != "" {
			b.WriteString("Test output:\n\n")
			writeFenced(&b, "text", shorten(a.Run.Output, t.MaxOutput, runeSafe))
		}
		b.WriteString("</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeBaseline says how the untouched tree's tests went and what the
// gate compares with, or why only the exit status counts.
func writeBaseline(b *strings.Builder, bl *Baseline) {
	runs := make([]string, len(bl.Runs))
	for i, r := range bl.Runs {
		runs[i] = fmt.Sprintf("%s in %s", runVerdict(r), r.Duration.Round(time.Millisecond))
	}
	fmt.Fprintf(b, "Baseline: %s. Runs on the untouched tree: %s.\n\n", bl.Plan, strings.Join(runs, "; "))
	if bl.Fallback != "" {
		fmt.Fprintf(b, "**Only the exit status counts:** %s.\n\n", bl.Fallback)
		return
	}
	fmt.Fprintf(b, "%d tests ran on the untouched tree; %d already failing, %d flaky.", bl.Tests, len(bl.Failing), len(bl.Flaky))
	if len(bl.Targets) > 0 {
		fmt.Fprintf(b, " Target tests (%s): %s.", bl.TargetsFrom, "`"+strings.Join(bl.Targets, "`, `")+"`")
	}
	b.WriteString("\n\n")
}

// writeReproduction says what the test designer did: the test it wrote
// and each refused answer's reason, or why it was not asked.
func writeReproduction(b *strings.Builder, l *Log, r *Reproduction) {
	prompt, completion := l.DesignTokens()
	switch {
	case r.Skipped != "":
		fmt.Fprintf(b, "Reproduction (%s): none written, because %s.\n\n", r.Mode, r.Skipped)
		return
	case r.Accepted:
		fmt.Fprintf(b, "Reproduction (%s): the test designer's `%s`", r.Mode, r.File)
	default:
		fmt.Fprintf(b, "Reproduction (%s): none: %s", r.Mode, r.Stopped)
	}
	fmt.Fprintf(b, " (%d model calls, %d prompt and %d completion tokens).\n\n", len(r.Tries), prompt, completion)
	for i, t := range r.Tries {
		switch {
		case t.Revision && t.Problem == "":
			fmt.Fprintf(b, "- answer %d revised the test, after the programmer's attempts kept failing it alone\n", i+1)
		case t.Revision:
			fmt.Fprintf(b, "- answer %d, asked to revise the test, changed nothing: %s\n", i+1, cell(t.Problem))
		case t.Problem != "":
			fmt.Fprintf(b, "- answer %d refused: %s\n", i+1, cell(t.Problem))
		}
	}
	if r.Accepted {
		b.WriteString("\n<details><summary>The reproducing test</summary>\n\n")
		writeFenced(b, "python", r.Content)
		b.WriteString("</details>\n\n")
	} else if len(r.Tries) > 0 {
		b.WriteString("\n")
	}
}

// shorten cuts the middle out of an output longer than max bytes (0 means
// MarkdownOutputCap), keeping its head and tail; with runeSafe the cuts
// fall between UTF-8 sequences.
func shorten(out string, max int, runeSafe bool) string {
	if max <= 0 {
		max = MarkdownOutputCap
	}
	if len(out) <= max {
		return out
	}
	head, tail := max/2, len(out)-max/2
	if runeSafe {
		for head > 0 && !utf8.RuneStart(out[head]) {
			head--
		}
		for tail < len(out) && !utf8.RuneStart(out[tail]) {
			tail++
		}
	}
	return out[:head] + "\n[... output shortened ...]\n" + out[tail:]
}

// lineCount says how many lines text has, e.g. "3 lines".
func lineCount(text string) string {
	n := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// AttemptList names attempts by index, joining consecutive ones into
// ranges: "attempt 3", "attempts 0–2, 5".
func AttemptList(idx []int) string {
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, fmt.Sprint(idx[i]))
		case j == i+1:
			parts = append(parts, fmt.Sprint(idx[i]), fmt.Sprint(idx[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d–%d", idx[i], idx[j]))
		}
		i = j + 1
	}
	if len(idx) == 1 {
		return "attempt " + parts[0]
	}
	return "attempts " + strings.Join(parts, ", ")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// shellJoin writes argv as a shell would read it back, quoting arguments
// that hold spaces or quotes.
func shellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

func runVerdict(r *Run) string {
	if r.Passed {
		return "passed"
	}
	return r.Reason
}

func attemptName(k int) string {
	if k == 0 {
		return "the first generation"
	}
	return fmt.Sprintf("fix %d", k)
}

// writeFenced writes text in a fence longer than any backtick run inside.
func writeFenced(b *strings.Builder, lang, text string) {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	fmt.Fprintf(b, "%s%s\n%s\n%s\n\n", fence, lang, strings.TrimRight(text, "\n"), fence)
}

// cell makes text safe for one Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

func ranges(rs [][2]int) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		if r[0] == r[1] {
			parts[i] = fmt.Sprint(r[0])
		} else {
			parts[i] = fmt.Sprintf("%d-%d", r[0], r[1])
		}
	}
	return strings.Join(parts, ", ")
}

func nonEmpty(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
