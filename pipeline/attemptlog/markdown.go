package attemptlog

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// maxOutputInMarkdown caps the run output shown per attempt; the JSON log
// keeps all that was captured.
const maxOutputInMarkdown = 4000

// WriteMarkdown renders the log for people: a summary, a table of
// attempts, and the details of each attempt folded away.
func (l *Log) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	prompt, completion := l.Tokens()
	if l.Solved {
		fmt.Fprintf(&b, "**Tests pass** at attempt %d (%s).", l.AttemptIndex, attemptName(l.AttemptIndex))
	} else {
		fmt.Fprintf(&b, "**Tests do not pass.** %s", nonEmpty(l.Stopped, "No attempt passed."))
	}
	fmt.Fprintf(&b, " %d model calls, %d prompt and %d completion tokens, %s in all.\n\n",
		l.ModelCalls(), prompt, completion, l.Duration.Round(time.Millisecond))
	if l.TestCommand != "" {
		fmt.Fprintf(&b, "Tests: `%s` (%s).\n\n", l.TestCommand, nonEmpty(l.TestReason, "configured"))
	}
	if c := l.Context; c != nil {
		fmt.Fprintf(&b, "Context: %d of %d tokens, %d files shown", c.Tokens, c.Budget, len(c.Included))
		if len(c.Omitted) > 0 {
			fmt.Fprintf(&b, ", %d left out", len(c.Omitted))
		}
		b.WriteString(".\n\n")
		if len(c.Included)+len(c.Omitted) > 0 {
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
	for _, a := range l.Attempts {
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
	for _, a := range l.Attempts {
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
		case a.Patch != "":
			writeFenced(&b, "diff", a.Patch)
		case a.Code != "":
			writeFenced(&b, "python", a.Code)
		}
		if a.Feedback != "" {
			b.WriteString("Feedback to the model:\n\n")
			writeFenced(&b, "text", a.Feedback)
		}
		if a.Run != nil && a.Run.Output != "" {
			out := a.Run.Output
			if len(out) > maxOutputInMarkdown {
				out = out[:maxOutputInMarkdown/2] + "\n[... output shortened ...]\n" + out[len(out)-maxOutputInMarkdown/2:]
			}
			b.WriteString("Test output:\n\n")
			writeFenced(&b, "text", out)
		}
		b.WriteString("</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
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
