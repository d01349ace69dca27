package report

import (
	"fmt"
	"strings"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/gate"
	"github.com/capsulehq/capsule/pipeline/specialcase"
)

// PullRequest renders the title and body of the pull request for a
// finished log.
//
// The title is the issue's title, prefixed "[not passing] " when the
// tests do not pass and "[unproven] " when they pass but no test showed
// the issue, within MaxTitle characters.
//
// The body of a proven fix starts with the gate's proof table and closes
// the issue. A passing but unproven one says in its first line that
// nothing shows the issue is fixed, and refers to the issue; so does a
// failing draft, which warns not to merge it. Then come the verdict, a table of the files changed, the model calls, tokens,
// duration, model and image, the attempt log as attemptlog renders it,
// and a footer with the Capsule version.
//
// The body keeps within limit characters (limit <= 0 means MaxBody) by
// leaving parts of the attempt log out, oldest attempts first, in a note
// that says what it left out.
func PullRequest(issue Issue, log *attemptlog.Log, version string, limit int) (title, body string) {
	if limit <= 0 {
		limit = MaxBody
	}
	log = orEmpty(log)
	body = fit(log, runes, limit, func(t trim) string {
		return pullRequestBody(issue, log, version, t, characterLimit(limit))
	})
	return pullRequestTitle(issue, log), body
}

// orEmpty stands an empty log in for a missing one.
func orEmpty(log *attemptlog.Log) *attemptlog.Log {
	if log == nil {
		return &attemptlog.Log{AttemptIndex: -1}
	}
	return log
}

func pullRequestTitle(issue Issue, log *attemptlog.Log) string {
	title := strings.Join(strings.Fields(issue.Title), " ")
	if title == "" {
		title = fmt.Sprintf("Fix #%d", issue.Number)
	}
	switch {
	case !log.Solved:
		title = notPassingTitle + title
	case log.Outcome == attemptlog.Unproven:
		title = "[unproven] " + title
	}
	return clip(title, MaxTitle)
}

// characterLimit names a limit on a body.
func characterLimit(limit int) string {
	if limit == MaxBody {
		return "GitHub's 65,536-character limit"
	}
	return "the " + attemptlog.Commas(limit) + "-character limit"
}

// notPassingWarning opens the body of a pull request whose tests do not
// pass; a passing round replaces it (see AddRound).
const notPassingWarning = "> [!WARNING]\n> **The tests do not pass.** This draft holds Capsule's best attempt; do not merge it as it is.\n"

// notPassingTitle prefixes the title of such a pull request.
const notPassingTitle = "[not passing] "

func pullRequestBody(issue Issue, log *attemptlog.Log, version string, t trim, limit string) string {
	var b strings.Builder
	proof := log.Proof()
	switch found := log.SpecialCasing(); {
	case log.Outcome == attemptlog.Unproven && len(found) > 0:
		b.WriteString("> [!WARNING]\n")
		b.WriteString("> **Nothing shows that the issue is fixed:** the change refers to the test runner or the test environment (below), so passing tests cannot show it. This draft needs a review that checks the fix by hand.\n\n")
		fmt.Fprintf(&b, "For #%d.\n\n", issue.Number)
		writeSpecialCasing(&b, found)
		writeProof(&b, proof)
		b.WriteString(passVerdict(log) + "\n\n")
	case log.Outcome == attemptlog.Unproven:
		b.WriteString("> [!WARNING]\n")
		b.WriteString("> **Nothing shows that the issue is fixed:** no test reproduced it. The tests pass with no regressions; this draft needs a review that checks the fix by hand.\n\n")
		fmt.Fprintf(&b, "For #%d.\n\n", issue.Number)
		writeProof(&b, proof)
		b.WriteString(passVerdict(log) + "\n\n")
	case log.Solved:
		writeProof(&b, proof)
		fmt.Fprintf(&b, "Closes #%d.\n\n", issue.Number)
		b.WriteString(passVerdict(log) + "\n\n")
	default:
		fmt.Fprintf(&b, "For #%d.\n\n", issue.Number)
		b.WriteString(notPassingWarning)
		b.WriteString(quote(text(stopReason(log))) + "\n\n")
		writeProof(&b, proof)
	}
	writeFiles(&b, log)
	writeStats(&b, log)
	b.WriteString("### Attempt log\n\n")
	writeLog(&b, log, t, limit)
	b.WriteString("---\n\n")
	if version == "" {
		b.WriteString("<sub>Made by Capsule.</sub>\n")
	} else {
		fmt.Fprintf(&b, "<sub>Made by Capsule %s.</sub>\n", text(version))
	}
	return b.String()
}

// writeProof writes the gate's proof table: the tests that show the
// issue before and after, the tests kept, the regressions, the already
// failing and flaky ones.
func writeProof(b *strings.Builder, proof *gate.Verdict) {
	if proof != nil {
		b.WriteString(proof.ProofTable() + "\n")
	}
}

// writeSpecialCasing lists what the change refers to of the test runner
// and the test environment, and where.
func writeSpecialCasing(b *strings.Builder, found []specialcase.Finding) {
	b.WriteString("### Special-casing\n\n")
	b.WriteString("Lines the change adds that refer to the test runner's internals or the test environment:\n\n")
	for _, f := range found {
		fmt.Fprintf(b, "- %s line %d: %s, %s.\n", code(f.File), f.Line, code(f.What), text(f.Why))
	}
	b.WriteString("\n")
}

// passVerdict says the tests pass; only for a solved log.
func passVerdict(log *attemptlog.Log) string {
	tests := "The tests pass"
	if log.TestCommand != "" {
		tests += " (" + code(log.TestCommand) + ")"
	}
	return fmt.Sprintf("%s at attempt %d (%s), after %s.", tests, log.AttemptIndex, attemptlog.AttemptName(log.AttemptIndex), plural(log.ModelCalls(), "model call"))
}

func stopReason(log *attemptlog.Log) string {
	if s := strings.TrimSpace(log.Stopped); s != "" {
		return s
	}
	return "No attempt passed."
}

// writeFiles writes the table of the files the final attempt changed:
// the change the pull request holds.
func writeFiles(b *strings.Builder, log *attemptlog.Log) {
	final := log.Final()
	if final == nil || len(final.Changes) == 0 {
		b.WriteString("No files changed.\n\n")
		return
	}
	b.WriteString("| File | Status | Lines |\n| --- | --- | --- |\n")
	for _, c := range final.Changes {
		fmt.Fprintf(b, "| %s | %s | +%d -%d |\n", cell(code(c.Path)), cell(c.Status), c.Added, c.Removed)
	}
	b.WriteString("\n")
}

// writeStats writes a one-row table of what the loop spent.
func writeStats(b *strings.Builder, log *attemptlog.Log) {
	prompt, completion := log.Tokens()
	b.WriteString("| Model calls | Tokens (prompt / completion) | Duration | Model | Image |\n")
	b.WriteString("| ---: | ---: | ---: | --- | --- |\n")
	fmt.Fprintf(b, "| %s | %s / %s | %s | %s | %s |\n\n", attemptlog.Commas(log.ModelCalls()), attemptlog.Commas(prompt), attemptlog.Commas(completion),
		duration(log.Duration), cell(code(log.Model)), cell(code(image(log))))
}

// image is the sandbox image the tests ran in.
func image(log *attemptlog.Log) string {
	if f := log.Final(); f != nil && f.Run.Image != "" {
		return f.Run.Image
	}
	if log.Setup != nil {
		return log.Setup.Image
	}
	return ""
}
