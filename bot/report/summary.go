package report

import (
	"fmt"
	"strings"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// StepSummary renders the outcome and the attempt log for a GitHub
// Actions job summary ($GITHUB_STEP_SUMMARY), in Markdown, within
// MaxStepSummary bytes. pullRequestURL is empty when no pull request was
// opened.
func StepSummary(issue Issue, log *attemptlog.Log, pullRequestURL string) string {
	log = orEmpty(log)
	return fit(log, bytes, MaxStepSummary, func(t trim) string {
		return stepSummary(issue, log, pullRequestURL, t)
	})
}

func stepSummary(issue Issue, log *attemptlog.Log, pullRequestURL string, t trim) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Capsule on %s/%s#%d", issue.Owner, issue.Repo, issue.Number)
	if title := strings.Join(strings.Fields(issue.Title), " "); title != "" {
		b.WriteString(": " + text(clip(title, MaxTitle)))
	}
	b.WriteString("\n\n")
	if log.Solved {
		b.WriteString(passVerdict(log) + "\n\n")
	} else {
		b.WriteString("**The tests do not pass.** " + text(stopReason(log)) + "\n\n")
	}
	switch {
	case pullRequestURL == "":
		b.WriteString("No pull request was opened.\n\n")
	case log.Solved:
		fmt.Fprintf(&b, "Pull request: %s\n\n", clip(pullRequestURL, maxURL))
	default:
		fmt.Fprintf(&b, "Draft pull request: %s (not passing; do not merge it as it is)\n\n", clip(pullRequestURL, maxURL))
	}
	writeFiles(&b, log)
	writeStats(&b, log)
	b.WriteString("#### Attempt log\n\n")
	writeLog(&b, log, t, "the 1 MiB limit of a job summary")
	return strings.TrimRight(b.String(), "\n") + "\n"
}
