package gate

import (
	"fmt"
	"strings"

	"github.com/capsulehq/capsule/pipeline/testreport"
)

// Bounds of the lists that are shown.
const (
	maxFeedbackItems = 10
	maxTableRows     = 50
	maxShownID       = 200
)

// Feedback explains a failed verdict to the programmer, most important
// first: the signs of tampering, the target tests that do not pass, then
// the regressions, then the files that could not be collected and the
// tests that did not run, then why the report cannot be trusted. It is
// empty when the verdict passed.
func (v Verdict) Feedback() string {
	if v.Passed {
		return ""
	}
	var lines []string
	if len(v.Tampered) > 0 {
		lines = append(lines, "Your change tampered with the test run; fix the code, never the way its tests run or report:")
		lines = appendBounded(lines, v.Tampered, func(f Finding) string { return "- " + f.String() })
	}
	for _, t := range v.Targets {
		if !t.After.Passing() {
			lines = append(lines, fmt.Sprintf("%s shows the issue and %s", code(t.ID), now(t)))
		}
	}
	lines = appendBounded(lines, v.Regressions, func(c Change) string {
		return fmt.Sprintf("%s passed before your change and %s", code(c.ID), now(c))
	})
	lines = appendBounded(lines, v.NewFailures, func(c Change) string {
		return fmt.Sprintf("%s did not run before your change and %s", code(c.ID), now(c))
	})
	lines = appendBounded(lines, v.CollectErrors, func(e testreport.CollectError) string {
		return fmt.Sprintf("%s could not be collected: %s", code(e.Path), e.Message)
	})
	if len(v.Missing) > 0 && (v.Stopped != "" || len(v.CollectErrors) > 0) {
		why := "the test session stopped at a collection error"
		if v.Stopped != "" {
			why = "the test session stopped early: " + v.Stopped
		}
		lines = append(lines, fmt.Sprintf("%s that ran before your change did not run (%s), such as %s", count(len(v.Missing), "test"), why, code(v.Missing[0])))
	}
	if v.Untrusted != "" {
		lines = append(lines, "The test run cannot be trusted: "+v.Untrusted+".")
	}
	return strings.Join(lines, "\n") + "\n"
}

// now says how a test that does not pass ended in the attempt.
func now(c Change) string {
	var s string
	switch c.After {
	case "":
		return "did not run"
	case testreport.Failed:
		s = "fails now"
	case testreport.Error:
		s = "errors now"
	default:
		s = "is " + string(c.After) + " now"
	}
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}

// appendBounded appends one line per item, at most maxFeedbackItems, and
// a count of the rest.
func appendBounded[T any](lines []string, items []T, line func(T) string) []string {
	for i, it := range items {
		if i == maxFeedbackItems {
			return append(lines, fmt.Sprintf("... and %d more", len(items)-i))
		}
		lines = append(lines, line(it))
	}
	return lines
}

// ProofTable renders the proof for a pull request in Markdown: each target
// test with its result before and after, the count of tests that passed
// before and after with the regressions, then the already-failing and
// flaky tests, collapsed.
func (v Verdict) ProofTable() string {
	var b strings.Builder
	if len(v.Targets) == 0 {
		b.WriteString("No test reproduces the issue: nothing shows that it is fixed.\n\n")
	} else {
		b.WriteString("| Test that shows the issue | Before | After |\n|---|---|---|\n")
		for i, t := range v.Targets {
			if i == maxTableRows {
				fmt.Fprintf(&b, "| ... and %d more | | |\n", len(v.Targets)-i)
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(code(t.ID)), shown(t.Before), shown(t.After))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s passed before and after, %s.\n", count(v.Kept, "test"), count(len(v.Regressions), "regression"))
	if len(v.Regressions) > 0 {
		b.WriteString("\n")
		for i, c := range v.Regressions {
			if i == maxTableRows {
				fmt.Fprintf(&b, "- ... and %d more\n", len(v.Regressions)-i)
				break
			}
			fmt.Fprintf(&b, "- %s passed before and %s\n", code(c.ID), now(Change{After: c.After}))
		}
	}
	if len(v.NewFailures) > 0 {
		fmt.Fprintf(&b, "\n%s that did not run before the change %s now:\n\n", count(len(v.NewFailures), "test"), map[bool]string{true: "fails", false: "fail"}[len(v.NewFailures) == 1])
		for i, c := range v.NewFailures {
			if i == maxTableRows {
				fmt.Fprintf(&b, "- ... and %d more\n", len(v.NewFailures)-i)
				break
			}
			fmt.Fprintf(&b, "- %s %s\n", code(c.ID), now(Change{After: c.After}))
		}
	}
	v.tampering(&b)
	details(&b, fmt.Sprintf("Already failing before the change, never blocking: %s", count(len(v.AlreadyFailing), "test")),
		v.AlreadyFailing, func(c Change) string {
			return fmt.Sprintf("%s: %s before, %s after", code(c.ID), shown(c.Before), shown(c.After))
		})
	details(&b, fmt.Sprintf("Flaky, their outcome changed between runs of the same code, never blocking: %s", count(len(v.Flaky), "test")),
		v.Flaky, code[ID])
	details(&b, fmt.Sprintf("Seen in code the change did not touch, never blocking: %s", count(len(v.Seen), "event")),
		v.Seen, Finding.String)
	return b.String()
}

// tampering writes what the tripwire and the integrity checks saw: the
// signs of tampering, or that none was seen, and the test processes that
// ran without the tripwire.
func (v Verdict) tampering(b *strings.Builder) {
	var lines []string
	switch {
	case len(v.Tampered) > 0:
		lines = append(lines, "Tampering seen:", "")
		lines = appendBounded(lines, v.Tampered, func(f Finding) string { return "- " + f.String() })
	case v.Unwatched == 0 && v.Watched > 0:
		lines = append(lines, "No tampering seen.")
	}
	if v.Unwatched > 0 {
		processes := fmt.Sprintf("%d test processes", v.Unwatched)
		if v.Unwatched == 1 {
			processes = "1 test process"
		}
		if len(v.Tampered) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, fmt.Sprintf("Tripwire not installed in %s; tampering could not be watched.", processes))
	}
	if len(lines) > 0 {
		b.WriteString("\n" + strings.Join(lines, "\n") + "\n")
	}
}

// String says what a finding is and where it came from, on one line.
func (f Finding) String() string {
	var s string
	if f.Kind == KindIntegrity {
		s = fmt.Sprintf("integrity check %s failed", code(f.Event))
	} else {
		s = fmt.Sprintf("audit event %s", code(f.Event))
	}
	switch {
	case f.File != "" && f.Line > 0:
		s += fmt.Sprintf(" at %s", code(fmt.Sprintf("%s:%d", f.File, f.Line)))
	case f.File != "":
		s += fmt.Sprintf(" in %s", code(f.File))
	}
	// The detail is the test process's text: shown as code, never as
	// Markdown.
	if f.Detail != "" {
		s += ": " + code(f.Detail)
	}
	return s
}

// details writes a collapsed list, or nothing for an empty one.
func details[T any](b *strings.Builder, summary string, items []T, line func(T) string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n<details><summary>%s</summary>\n\n", summary)
	for i, it := range items {
		if i == maxTableRows {
			fmt.Fprintf(b, "- ... and %d more\n", len(items)-i)
			break
		}
		b.WriteString("- " + line(it) + "\n")
	}
	b.WriteString("\n</details>\n")
}

// shown names an outcome in the table; the empty outcome did not run.
func shown(o Outcome) string {
	if o == "" {
		return "not run"
	}
	return string(o)
}

// count writes n with a noun, in the plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// code shows a test or path as inline code: on one line, bounded, in a
// fence longer than any run of backticks in it.
func code[T interface{ ID | string }](x T) string {
	var s string
	switch x := any(x).(type) {
	case ID:
		s = x.String()
	case string:
		s = x
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxShownID {
		s = strings.ToValidUTF8(s[:maxShownID], "") + "..."
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// cell escapes a table cell's pipes, which GitHub reads as column breaks
// even inside code.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
