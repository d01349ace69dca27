package report

import (
	"fmt"
	"strings"

	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// Status is the state of a job as shown in the status comment.
type Status struct {
	State work.State
	// Attempt and Of, while Running, are the index of the latest attempt
	// (0 for the generation, k for the k-th fix) and the last index there
	// may be; Attempt < 0 means no attempt has ended yet.
	Attempt, Of int
	// LastResult is how the latest attempt ended, e.g. "3 failed, 12
	// passed" or "no code in the answer".
	LastResult       string
	PullRequestURL   string
	DraftPullRequest bool
	// Reason says, for Failed and Skipped, why: a configuration error,
	// "model endpoint unreachable: ...", "the tests do not pass after 6
	// attempts".
	Reason string
	// Busy adds a line saying a second trigger arrived while the job was
	// active.
	Busy bool
	// Waiting, while Queued, says what the job waits for besides its
	// turn, e.g. "the model endpoint, which does not answer".
	Waiting string
	// Log, when done or failed, goes in a folded section, trimmed to fit.
	Log *attemptlog.Log
	// RunURL links to the workflow run (Action); empty for none.
	RunURL string
	// Round, when set, makes this the status comment of a round on the
	// pull request: it carries the round's marker, names the round, and
	// says what it pushed instead of linking the pull request.
	Round *Round
}

// Marker is an HTML comment that identifies Capsule's status comment on
// an issue; StatusComment puts it at the very start of the body.
const Marker = "<!-- capsule:status -->"

// busyNote is the line Busy adds; AddBusy finds it by its text.
const busyNote = "Another request for this issue arrived while this job was active. " +
	"Capsule runs one job per issue at a time: to run again, comment `/capsule retry` once this one ends."

// Caps on the free texts of a status, in characters, so that the log gets
// the room.
const (
	maxReason     = 4000
	maxLastResult = 500
	maxURL        = 2000
)

// StatusComment renders the status comment body, within MaxBody
// characters even once AddBusy has added its line.
func StatusComment(s Status) string {
	limit := MaxBody
	if !s.Busy {
		limit -= len(busyNote) + 2 // room for AddBusy
	}
	log := orEmpty(s.Log)
	return fit(log, runes, limit, func(t trim) string { return statusBody(s, t) })
}

func statusBody(s Status, t trim) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	if s.Round != nil {
		b.WriteString(RoundMarker(s.Round.Key) + "\n")
	}
	b.WriteString(headline(s) + "\n\n")
	if s.Round != nil {
		paragraph(&b, roundLine(s))
	}
	if s.Busy {
		b.WriteString(busyNote + "\n\n")
	}
	if s.Reason != "" && (s.State == work.Failed || s.State == work.Skipped) {
		reason := strings.TrimSpace(clip(s.Reason, maxReason))
		if strings.Contains(reason, "\n") {
			b.WriteString("Reason:\n\n")
		} else {
			reason = "Reason: " + reason
		}
		paragraph(&b, reason)
	}
	if s.LastResult != "" && s.State != work.Queued && s.State != work.Skipped {
		paragraph(&b, "Last result: "+clip(s.LastResult, maxLastResult)+".")
	}
	if line := pullRequestLine(s); line != "" {
		b.WriteString(line + "\n\n")
	}
	if s.State == work.Failed {
		b.WriteString("To run again, comment `/capsule retry`.\n\n")
	}
	if s.RunURL != "" {
		fmt.Fprintf(&b, "[Workflow run](%s)\n\n", clip(s.RunURL, maxURL))
	}
	if s.Log != nil && (s.State == work.Done || s.State == work.Failed) {
		if t.noLog {
			writeLog(&b, s.Log, t, characterLimit(MaxBody))
		} else {
			b.WriteString("<details><summary>Attempt log</summary>\n\n")
			writeLog(&b, s.Log, t, characterLimit(MaxBody))
			b.WriteString("</details>\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// headline states the phase in one bold line, and the outcome when known.
func headline(s Status) string {
	switch s.State {
	case work.Queued:
		if s.Waiting != "" {
			return "**Capsule: queued.** The job waits for " + clip(s.Waiting, maxLastResult) + "."
		}
		return "**Capsule: queued.** The job waits for its turn."
	case work.Running:
		if s.Attempt < 0 {
			return "**Capsule: running.** Starting: no attempt has ended yet."
		}
		return fmt.Sprintf("**Capsule: running.** At attempt %d of %d.", s.Attempt, s.Of)
	case work.Done:
		// A round's tests show what the round asks for, not the issue.
		asked, met := "the issue", "it is fixed"
		if s.Round != nil {
			asked, met = "what the round asks for", "it is done"
		}
		switch {
		case s.Log != nil && s.Log.Outcome == attemptlog.Unproven && len(s.Log.SpecialCasing()) > 0:
			return "**Capsule: done, unproven.** The tests pass with no regressions, but the change refers to the test runner or the test environment: nothing shows that " + met + "."
		case s.Log != nil && s.Log.Outcome == attemptlog.Unproven && s.Log.Tampered() != nil:
			return "**Capsule: done, unproven.** The tests pass with no regressions, but an attempt reached into the test runner: nothing shows that " + met + "."
		case s.Log != nil && s.Log.Outcome == attemptlog.Unproven:
			return "**Capsule: done, unproven.** The tests pass with no regressions, but no test showed " + asked + ": nothing shows that " + met + "."
		case s.Log != nil && s.Log.Outcome == attemptlog.Solved:
			return "**Capsule: done.** Solved: the tests that show " + asked + " pass now, with no regressions."
		case s.Log != nil && s.Log.Solved:
			return "**Capsule: done.** The tests pass."
		case s.Log != nil:
			return "**Capsule: done, not passing.** The tests do not pass."
		}
		return "**Capsule: done.**"
	case work.Failed:
		if s.Log != nil && s.Log.Environment != nil {
			return "**Capsule: failed before any model call.** The repository's tests cannot run in the sandbox; no tokens were spent."
		}
		if s.Log != nil && !s.Log.Solved && len(s.Log.Attempts) > 0 {
			return "**Capsule: failed.** The tests do not pass."
		}
		return "**Capsule: failed.**"
	case work.Skipped:
		return "**Capsule: skipped.**"
	}
	return "**Capsule: " + text(string(s.State)) + ".**"
}

// roundLine names a round and, once it ended, says what it pushed.
func roundLine(s Status) string {
	r := s.Round
	line := "This round answers " + oneLineText(r.Cause) + "."
	if r.Number > 0 {
		line = fmt.Sprintf("Round %d answers %s.", r.Number, oneLineText(r.Cause))
	}
	switch {
	case r.Commit != "":
		return line + " It pushed commit " + shortSHA(r.Commit) + " to the branch."
	case s.State.Terminal():
		return line + " It pushed nothing: the branch is as it was."
	}
	return line
}

// pullRequestLine links the pull request, warning about a draft whose
// tests do not pass; a round's status has none.
func pullRequestLine(s Status) string {
	url := clip(s.PullRequestURL, maxURL)
	switch {
	case s.Round != nil:
		return ""
	case url == "":
		if s.State == work.Done {
			return "No pull request was opened."
		}
		return ""
	case s.Log != nil && !s.Log.Solved:
		return "Draft pull request with the best attempt (not passing; do not merge it as it is): " + url
	case s.Log != nil && s.Log.Outcome == attemptlog.Unproven:
		return "Draft pull request (unproven: check the fix by hand before you merge it): " + url
	case s.DraftPullRequest && s.Log != nil && s.Log.Solved:
		// GitHub's REST API cannot take a pull request out of draft.
		return "Pull request, still a draft from an earlier run that did not pass: mark it ready for review. " + url
	case s.DraftPullRequest:
		return "Draft pull request: " + url
	}
	return "Pull request: " + url
}

// AddBusy adds to a status comment body the line that Busy adds, below
// the headline. It reports false, leaving body as it is, when the line is
// there already or would take the body past MaxBody.
func AddBusy(body string) (string, bool) {
	if strings.Contains(body, busyNote) {
		return body, false
	}
	var out string
	if i := strings.Index(body, "\n\n"); i >= 0 {
		out = body[:i+2] + busyNote + "\n\n" + body[i+2:]
	} else {
		out = strings.TrimRight(body, "\n") + "\n\n" + busyNote + "\n"
	}
	if runes.count(out) > MaxBody {
		return body, false
	}
	return out, true
}

// PermissionDenied renders the comment for a sender below the required
// permission: it says Capsule runs only for people with at least need
// permission on the repository (the sender has have), and how to go on:
// ask a maintainer to add the label or to comment "/capsule retry".
func PermissionDenied(sender, have, need, label string) string {
	var b strings.Builder
	if sender != "" {
		fmt.Fprintf(&b, "@%s, thank you for the request. ", sender)
	} else {
		b.WriteString("Thank you for the request. ")
	}
	if have == "" {
		have = "none"
	}
	fmt.Fprintf(&b, "Capsule runs only for people with at least %s permission on this repository; you have %s.\n\n", code(need), code(have))
	if label != "" {
		fmt.Fprintf(&b, "To go ahead, ask a maintainer to add the %s label to this issue, or to comment `/capsule retry`.\n", code(label))
	} else {
		b.WriteString("To go ahead, ask a maintainer to comment `/capsule retry` on this issue.\n")
	}
	return b.String()
}
