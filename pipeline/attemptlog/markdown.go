package attemptlog

import (
	"fmt"
	"io"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/capsulehq/capsule/internal/markdown"
	"github.com/capsulehq/capsule/sandbox/limits"
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

// Omitted is what a rendering left out of a log: only parts the log has,
// so that a text can say what is missing. Attempts are named by index.
type Omitted struct {
	// Output lists the attempts whose test output was left out, or
	// shortened below MarkdownOutputCap.
	Output []int
	// Code, Feedback and Details list the attempts whose patch or code,
	// feedback to the model, or folded details as a whole were left out.
	Code, Feedback, Details []int
	// Rows lists the attempts left out of the table of attempts, and so
	// without details.
	Rows []int
	// ContextFiles reports that the list of files in the model's context
	// was left out.
	ContextFiles bool
}

// WriteMarkdown renders the log for people: a summary, a table of
// attempts, and the details of each attempt folded away.
func (l *Log) WriteMarkdown(w io.Writer) error {
	_, err := l.WriteMarkdownWith(w, MarkdownOptions{})
	return err
}

// WriteMarkdownWith renders the log as WriteMarkdown does, leaving out
// what opts says, and reports what it left out.
func (l *Log) WriteMarkdownWith(w io.Writer, opts MarkdownOptions) (Omitted, error) {
	m := rendering{opts: opts}
	m.summary(l)
	m.proof(l)
	m.baseline(l.Baseline)
	m.reproduction(l)
	m.tests(l)
	m.context(l.Context)
	m.devcontainer(l.Devcontainer)
	m.setup(l.Setup)
	m.setupCache(l.SetupCache)
	m.setupSecrets(l.SetupSecrets)
	m.table(l.Attempts)
	for i := range l.Attempts {
		if t := m.trim(i); !t.Row && !t.Details {
			m.details(&l.Attempts[i], t)
		}
	}
	_, err := io.WriteString(w, m.String())
	return m.omitted, err
}

// rendering is one Markdown rendering of a log: the text so far, what to leave
// out, and what was left out. Only the sections a rendering may shorten
// read opts.
type rendering struct {
	strings.Builder
	opts    MarkdownOptions
	omitted Omitted
}

// trim is what the rendering leaves out of attempt i.
func (m *rendering) trim(i int) AttemptTrim {
	if i < len(m.opts.Attempts) {
		return m.opts.Attempts[i]
	}
	return AttemptTrim{}
}

// summary says how the loop ended and what it spent.
func (m *rendering) summary(l *Log) {
	prompt, completion := l.Tokens()
	fmt.Fprintf(m, "%s %d model calls, %d prompt and %d completion tokens, %s in all.\n\n",
		verdict(l), l.ModelCalls(), prompt, completion, l.Duration.Round(time.Millisecond))
	if l.Spend != nil {
		m.WriteString(l.Spend.Line() + "\n\n")
	}
	if l.Environment != nil {
		m.WriteString(l.Environment.Report() + "\n")
	}
}

// verdict is the summary's first sentence: proven, unproven, passing or
// not.
func verdict(l *Log) string {
	k, name := l.AttemptIndex, AttemptName(l.AttemptIndex)
	switch {
	case l.Environment != nil:
		return "**Stopped before any model call: the tests cannot run in the sandbox.**"
	case l.Outcome == Solved:
		return fmt.Sprintf("**Solved** at attempt %d (%s): the tests that show the issue pass now, and no test that passed before fails.", k, name)
	case l.Outcome == Unproven && len(l.SpecialCasing()) > 0:
		return fmt.Sprintf("**Tests pass, but the change refers to the test environment**, so they cannot show that the issue is fixed (see the special-casing of attempt %d). Passed at attempt %d (%s), with no regressions.", k, k, name)
	case l.Outcome == Unproven && l.Tampered() != nil:
		return fmt.Sprintf("**Tests pass, but nothing shows that the issue is fixed**: attempt %d reached into the test runner (see its tampering). Passed at attempt %d (%s), with no regressions.", l.Tampered().Index, k, name)
	case l.Outcome == Unproven:
		return fmt.Sprintf("**Tests pass, but nothing shows that the issue is fixed**: no test reproduced it. Passed at attempt %d (%s), with no regressions.", k, name)
	case l.Solved:
		return fmt.Sprintf("**Tests pass** at attempt %d (%s).", k, name)
	}
	return "**Tests do not pass.** " + nonEmpty(l.Stopped, "No attempt passed.")
}

// proof writes the gate's proof table, unless the text shows it itself.
func (m *rendering) proof(l *Log) {
	if v := l.Proof(); v != nil && !m.opts.NoProof {
		m.WriteString(v.ProofTable() + "\n")
	}
}

// tests names the test command and how it was chosen.
func (m *rendering) tests(l *Log) {
	if l.TestCommand != "" {
		fmt.Fprintf(m, "Tests: `%s` (%s).\n\n", l.TestCommand, nonEmpty(l.TestReason, "configured"))
	}
	if l.ModuleNames != "" {
		fmt.Fprintf(m, "Module names no new file may shadow: %s.\n\n", l.ModuleNames)
	}
}

// context says how much of its budget the model's context used, and
// lists its files folded away.
func (m *rendering) context(c *Context) {
	if c == nil {
		return
	}
	fmt.Fprintf(m, "Context: %d of %d tokens, %d files shown", c.Tokens, c.Budget, len(c.Included))
	if len(c.Omitted) > 0 {
		fmt.Fprintf(m, ", %d left out", len(c.Omitted))
	}
	m.WriteString(".\n\n")
	switch {
	case len(c.Included)+len(c.Omitted) == 0:
	case m.opts.NoContextFiles:
		m.WriteString("The list of files in the context is left out.\n\n")
		m.omitted.ContextFiles = true
	default:
		m.WriteString("<details><summary>Files in the context</summary>\n\n")
		for _, f := range c.Included {
			fmt.Fprintf(m, "- %s\n", f)
		}
		for _, f := range c.Omitted {
			fmt.Fprintf(m, "- left out: %s\n", f)
		}
		m.WriteString("\n</details>\n\n")
	}
}

// setup says how the set-up command went.
func (m *rendering) setup(r *Run) {
	if r != nil {
		fmt.Fprintf(m, "Set-up: `%s` in `%s`: %s.\n\n", shellJoin(r.Command), r.Image, runVerdict(r))
	}
}

// setupCache says whether the kept set-up was reused or kept.
func (m *rendering) setupCache(c *SetupCache) {
	switch {
	case c == nil:
	case c.Reused:
		fmt.Fprintf(m, "Set-up: reused the kept set-up `%s` (%s, built in %s), copied in %s; the set-up command did not run.\n\n",
			shortKey(c.Key), limits.FormatBytes(c.Bytes), c.Built.Round(time.Millisecond), c.Copy.Round(time.Millisecond))
	case c.Kept:
		fmt.Fprintf(m, "Set-up kept as `%s` (%s) for the next job of the same key (it ran: %s).\n\n", shortKey(c.Key), limits.FormatBytes(c.Bytes), c.Why)
	case c.NotKept != "":
		fmt.Fprintf(m, "Set-up not kept (`%s`): %s.\n\n", shortKey(c.Key), c.NotKept)
	}
}

// setupSecrets says what secrets the set-up had, by name.
func (m *rendering) setupSecrets(s *SetupSecrets) {
	switch {
	case s == nil:
	case s.Withheld != "":
		fmt.Fprintf(m, "Set-up secrets withheld: %s.\n\n", s.Withheld)
	default:
		fmt.Fprintf(m, "Set-up secrets given: %s", strings.Join(s.Given, ", "))
		if len(s.Given) == 0 {
			m.WriteString("none")
		}
		if len(s.Missing) > 0 {
			fmt.Fprintf(m, "; no value from the operator for %s", strings.Join(s.Missing, ", "))
		}
		m.WriteString(".\n\n")
	}
}

// shortKey is the first 12 characters of a set-up key.
func shortKey(k string) string { return k[:min(len(k), 12)] }

// table writes one row per attempt, then says which attempts it left
// out and whose details are left out.
func (m *rendering) table(attempts []Attempt) {
	m.WriteString("| attempt | mode | result | feedback | tokens (prompt/completion) | model time | test time |\n")
	m.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	for i := range attempts {
		a, t := &attempts[i], m.trim(i)
		switch {
		case t.Row:
			m.omitted.Rows = append(m.omitted.Rows, a.Index)
			continue
		case t.Details:
			m.omitted.Details = append(m.omitted.Details, a.Index)
		}
		m.row(a)
	}
	if rows := m.omitted.Rows; len(rows) > 0 {
		fmt.Fprintf(m, "\n%s left out of the table.\n", capitalize(AttemptList(rows)))
	}
	if details := m.omitted.Details; len(details) > 0 {
		fmt.Fprintf(m, "\nDetails of %s left out.\n", AttemptList(details))
	}
}

// row writes the attempt's row in the table of attempts.
func (m *rendering) row(a *Attempt) {
	result, testTime := "no code", "-"
	if a.Run != nil {
		result = "pass"
		if !a.Run.Passed {
			result = "fail: " + a.Run.Reason
		}
		testTime = a.Run.Duration.Round(time.Millisecond).String()
	}
	fmt.Fprintf(m, "| %d | %s | %s | %s | %d/%d | %s | %s |\n",
		a.Index, a.Mode, cell(result), cell(nonEmpty(a.FeedbackKind, "-")),
		a.PromptTokens, a.CompletionTokens, a.ModelDuration.Round(time.Millisecond), testTime)
}

// details writes the attempt's folded details, leaving out what t says.
func (m *rendering) details(a *Attempt, t AttemptTrim) {
	fmt.Fprintf(m, "\n<details><summary>Attempt %d (%s)</summary>\n\n", a.Index, a.Mode)
	m.facts(a)
	m.requests(a, t.Feedback)
	m.code(a, t.Code)
	m.feedback(a, t.Feedback)
	m.output(a, t)
	m.WriteString("</details>\n")
}

// facts writes the short parts of an attempt, which are never left out:
// the test command, the files changed, the edits refused and the example
// calls removed.
func (m *rendering) facts(a *Attempt) {
	if a.Run != nil {
		fmt.Fprintf(m, "Command `%s` in image `%s`: exit status %d.\n\n", shellJoin(a.Run.Command), a.Run.Image, a.Run.ExitCode)
		if a.Run.Also != "" {
			fmt.Fprintf(m, "Also ran %s.\n\n", a.Run.Also)
		}
	}
	if len(a.Changes) > 0 {
		m.WriteString("Files changed:")
		for _, c := range a.Changes {
			fmt.Fprintf(m, " `%s` (%s, +%d -%d)", c.Path, c.Status, c.Added, c.Removed)
		}
		m.WriteString(".\n\n")
	}
	for _, r := range a.Refused {
		fmt.Fprintf(m, "Refused: %s\n\n", r)
	}
	for _, c := range a.Cleaned {
		fmt.Fprintf(m, "Cleaned: %s.\n\n", c)
	}
	for _, f := range a.SpecialCasing {
		fmt.Fprintf(m, "Special-casing: `%s` line %d: `%s`, %s.\n\n", f.File, f.Line, f.What, f.Why)
	}
	if len(a.Removed) > 0 {
		fmt.Fprintf(m, "Removed top-level example calls at lines %s.\n\n", ranges(a.Removed))
	}
}

// code writes the attempt's patch, or its code in function mode.
func (m *rendering) code(a *Attempt, leaveOut bool) {
	name, lang, text := "Patch", "diff", a.Patch
	if text == "" {
		name, lang, text = "Code", "python", a.Code
	}
	switch {
	case text == "":
	case leaveOut:
		m.leftOut(&m.omitted.Code, a.Index, name, text)
	default:
		m.WriteString(markdown.Fence(lang, text) + "\n\n")
	}
}

// requests writes the attempt's requests: what each asked for, how it
// went, and what the model got back, which is left out with the
// feedback.
func (m *rendering) requests(a *Attempt, leaveOut bool) {
	for _, r := range a.Requests {
		items := "nothing it could read"
		if len(r.Items) > 0 {
			items = "`" + strings.Join(r.Items, "`, `") + "`"
		}
		if r.Refused != "" {
			fmt.Fprintf(m, "Request refused, using up nothing: %s. It asked for %s.\n\n", strings.TrimSuffix(r.Refused, "."), items)
		} else {
			fmt.Fprintf(m, "Request %d answered, %d tokens of the repository: %s.\n\n", r.Number, r.Tokens, items)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(m, "- not shown: %s\n", n)
		}
		if len(r.Notes) > 0 {
			m.WriteString("\n")
		}
		if leaveOut {
			m.leftOut(&m.omitted.Feedback, a.Index, fmt.Sprintf("What request %s got back", requestName(r)), r.Reply)
			continue
		}
		fmt.Fprintf(m, "What the request got back:\n\n%s\n\n", markdown.Fence("text", r.Reply))
	}
}

// requestName names a request in a line: its number, or "refused".
func requestName(r Request) string {
	if r.Number == 0 {
		return "(refused)"
	}
	return fmt.Sprint(r.Number)
}

// feedback writes what the model was told about the attempt.
func (m *rendering) feedback(a *Attempt, leaveOut bool) {
	switch {
	case a.Feedback == "":
	case leaveOut:
		m.leftOut(&m.omitted.Feedback, a.Index, "Feedback to the model", a.Feedback)
	default:
		m.WriteString("Feedback to the model:\n\n")
		m.WriteString(markdown.Fence("text", a.Feedback) + "\n\n")
	}
}

// output writes the test output, shortened to t.MaxOutput bytes
// (MarkdownOutputCap when not positive).
func (m *rendering) output(a *Attempt, t AttemptTrim) {
	if a.Run == nil || a.Run.Output == "" {
		return
	}
	out, max := a.Run.Output, t.MaxOutput
	if max <= 0 {
		max = MarkdownOutputCap
	}
	if t.Output {
		m.leftOut(&m.omitted.Output, a.Index, "Test output", out)
		return
	}
	m.WriteString("Test output:\n\n")
	m.WriteString(markdown.Fence("text", shorten(out, max)) + "\n\n")
	if max < MarkdownOutputCap && len(out) > max {
		m.omitted.Output = append(m.omitted.Output, a.Index)
	}
}

// leftOut writes the line that stands in for a part left out of attempt
// index, and notes the attempt in list.
func (m *rendering) leftOut(list *[]int, index int, name, text string) {
	fmt.Fprintf(m, "%s left out (%s).\n\n", name, lineCount(text))
	if n := len(*list); n == 0 || (*list)[n-1] != index {
		*list = append(*list, index)
	}
}

// baseline says how the untouched tree's tests went and what the gate
// compares with, or why only the exit status counts.
func (m *rendering) baseline(bl *Baseline) {
	if bl == nil {
		return
	}
	runs := make([]string, len(bl.Runs))
	for i, r := range bl.Runs {
		runs[i] = fmt.Sprintf("%s in %s", runVerdict(r), r.Duration.Round(time.Millisecond))
	}
	fmt.Fprintf(m, "Baseline: %s. Runs on the untouched tree: %s.\n\n", bl.Plan, strings.Join(runs, "; "))
	if bl.Fallback != "" {
		fmt.Fprintf(m, "**Only the exit status counts:** %s.\n\n", bl.Fallback)
		return
	}
	fmt.Fprintf(m, "%d tests ran on the untouched tree; %d already failing, %d flaky.", bl.Tests, len(bl.Failing), len(bl.Flaky))
	if bl.Timeout != "" {
		fmt.Fprintf(m, " Time: %s.", bl.Timeout)
	}
	if len(bl.Targets) > 0 {
		fmt.Fprintf(m, " Target tests (%s): %s.", bl.TargetsFrom, "`"+strings.Join(bl.Targets, "`, `")+"`")
	}
	m.WriteString("\n\n")
}

// reproduction says what the test designer did: the test it wrote and
// each refused answer's reason, or why it was not asked.
func (m *rendering) reproduction(l *Log) {
	r := l.Reproduction
	if r == nil {
		return
	}
	prompt, completion := l.DesignTokens()
	switch {
	case r.Skipped != "":
		fmt.Fprintf(m, "Reproduction (%s): none written, because %s.\n\n", r.Mode, r.Skipped)
		return
	case r.Accepted:
		fmt.Fprintf(m, "Reproduction (%s): the test designer's `%s`", r.Mode, r.File)
		if r.Placed != "" {
			fmt.Fprintf(m, ", placed %s", r.Placed)
		}
	default:
		fmt.Fprintf(m, "Reproduction (%s): none: %s", r.Mode, r.Stopped)
	}
	fmt.Fprintf(m, " (%d model calls, %d prompt and %d completion tokens).\n\n", len(r.Tries), prompt, completion)
	m.designTries(r.Tries)
	if r.Accepted {
		m.WriteString("\n<details><summary>The reproducing test</summary>\n\n")
		m.WriteString(markdown.Fence(fenceLanguage(r.File), r.Content) + "\n\n")
		m.WriteString("</details>\n\n")
	} else if len(r.Tries) > 0 {
		m.WriteString("\n")
	}
}

// fenceLanguage is the language of a code block showing the file at
// path p, from its extension: python for .py, go, rust for .rs, else the
// extension itself (ts, js, java), "" for none.
func fenceLanguage(p string) string {
	switch ext := strings.TrimPrefix(path.Ext(p), "."); ext {
	case "py":
		return "python"
	case "rs":
		return "rust"
	default:
		return ext
	}
}

// designTries lists the test designer's answers that revised the test or
// were refused.
func (m *rendering) designTries(tries []DesignTry) {
	for i, t := range tries {
		switch {
		case t.Revision && t.Problem == "":
			fmt.Fprintf(m, "- answer %d revised the test, after the programmer's attempts kept failing it alone\n", i+1)
		case t.Revision:
			fmt.Fprintf(m, "- answer %d, asked to revise the test, changed nothing: %s\n", i+1, cell(t.Problem))
		case t.Problem != "":
			fmt.Fprintf(m, "- answer %d refused: %s\n", i+1, cell(t.Problem))
		}
	}
}

// shorten cuts the middle out of an output longer than max bytes,
// keeping its head and tail; the cuts fall between UTF-8 sequences.
func shorten(out string, max int) string {
	if len(out) <= max {
		return out
	}
	head, tail := max/2, len(out)-max/2
	for head > 0 && !utf8.RuneStart(out[head]) {
		head--
	}
	for tail < len(out) && !utf8.RuneStart(out[tail]) {
		tail++
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

// AttemptName names attempt k: "the first generation", or "fix k".
func AttemptName(k int) string {
	if k == 0 {
		return "the first generation"
	}
	return fmt.Sprintf("fix %d", k)
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
