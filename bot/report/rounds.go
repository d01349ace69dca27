package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// Round is a round on Capsule's pull request: a commit made in answer to
// a review, a `/capsule` command, failing checks or a retry, as the pull
// request's body, the round's status comment and its replies show it.
type Round struct {
	// Number is the round's number on the pull request; the job that
	// opened it is round 1 (see NextRound).
	Number int
	// Key names what the round answers, as work.Request.Round does:
	// "review:<id>", "comment:<id>", "run:<id>", "suite:<id>".
	Key string
	// Cause says what asked for the round, as Markdown: "the review by
	// @alice", "`/capsule` by @bob".
	Cause string
	// Log is the round's attempt log; nil when the loop did not run in
	// this process (a round resumed after its commit was pushed).
	Log *attemptlog.Log
	// Commit is the commit the round pushed; empty when it pushed none.
	Commit string
	// Reason says why a round pushed nothing.
	Reason string
	// StatusURL links to the round's status comment, which holds its log.
	StatusURL string
}

// RoundMarker is the hidden line that marks what Capsule wrote for round
// key: its status comment on the pull request and its reply in each
// review thread. A resumed round looks for it so as not to write twice.
func RoundMarker(key string) string {
	return roundMarkerOpen + safeKey(key) + roundMarkerClose
}

// A round marker's text around its key.
const (
	roundMarkerOpen  = "<!-- capsule-round: "
	roundMarkerClose = " -->"
)

// StatusRound reads the round key of a round's status comment, as its
// RoundMarker line holds it; false for any other comment.
func StatusRound(body string) (key string, ok bool) {
	rest, ok := strings.CutPrefix(body, Marker+"\n"+roundMarkerOpen)
	if !ok {
		return "", false
	}
	key, _, ok = strings.Cut(rest, roundMarkerClose+"\n")
	return key, ok
}

// safeKey keeps a round key from closing its HTML comment.
func safeKey(key string) string {
	return strings.NewReplacer("--", "- -", ">", "&gt;", "\n", " ").Replace(key)
}

// The pull request body's log of rounds: a section before the footer,
// then one entry per round, each after its marker.
const (
	roundsMarker  = "<!-- capsule:rounds -->"
	roundsHeading = "### Rounds"
	footerStart   = "\n---\n\n<sub>Made by Capsule"
)

// entryMarker starts a round's entry in the body; trimmedMarker records
// the last round trimmed out of it.
var (
	entryMarker   = regexp.MustCompile(`(?m)^<!-- capsule:round (\d+) (\S+) -->$`)
	trimmedMarker = regexp.MustCompile(`(?m)^<!-- capsule:rounds-trimmed (\d+) -->$`)
)

// maxEntryReason caps a round's reason in its body entry.
const maxEntryReason = 500

// rounds is a pull request body taken apart: the text before the
// rounds, the entries (oldest first), the number of the last round
// trimmed out, and the footer.
type rounds struct {
	head, footer string
	entries      []entry
	trimmed      int
}

type entry struct {
	number int
	key    string
	text   string // from its marker on
}

// parseRounds takes body apart. A body whose rounds section was edited by
// hand keeps what it can: text outside entries stays in head.
func parseRounds(body string) rounds {
	var r rounds
	main := body
	if i := strings.LastIndex(body, footerStart); i >= 0 {
		main, r.footer = body[:i], body[i:]
	}
	i := strings.Index(main, roundsMarker)
	if i < 0 {
		r.head = main
		return r
	}
	r.head, main = main[:i], main[i:]
	if m := trimmedMarker.FindStringSubmatch(main); m != nil {
		r.trimmed, _ = strconv.Atoi(m[1])
	}
	locs := entryMarker.FindAllStringSubmatchIndex(main, -1)
	for j, loc := range locs {
		end := len(main)
		if j+1 < len(locs) {
			end = locs[j+1][0]
		}
		n, _ := strconv.Atoi(main[loc[2]:loc[3]])
		r.entries = append(r.entries, entry{number: n, key: main[loc[4]:loc[5]], text: strings.TrimRight(main[loc[0]:end], "\n") + "\n"})
	}
	return r
}

// NextRound returns the number the next round on a pull request with
// body gets: one more than the last in its log, 2 when there is none
// (the job that opened it is round 1).
func NextRound(body string) int {
	r := parseRounds(body)
	n := max(r.trimmed, 1)
	for _, e := range r.entries {
		n = max(n, e.number)
	}
	return n + 1
}

// HasRounds reports whether a pull request body logs a round.
func HasRounds(body string) bool {
	r := parseRounds(body)
	return len(r.entries) > 0 || r.trimmed > 0
}

// RoundNumber returns the number of round key in a pull request body's
// log; false when the body does not log it.
func RoundNumber(body, key string) (int, bool) {
	for _, e := range parseRounds(body).entries {
		if e.key == safeKey(key) {
			return e.number, true
		}
	}
	return 0, false
}

// AddRound adds round r to the log of rounds in a pull request body and
// returns the new body, within limit characters (limit <= 0 means
// MaxBody). A passing round's commit turns the warning of a body whose
// tests did not pass into a note that they pass since. The oldest rounds are left out first, with a note that says
// so; should the newest alone not fit, the attempt log of the job that
// opened the pull request goes too. A body that logs r.Key already is
// returned as it is.
func AddRound(body string, r Round, limit int) string {
	if limit <= 0 {
		limit = MaxBody
	}
	if _, ok := RoundNumber(body, r.Key); ok {
		return body
	}
	p := parseRounds(body)
	if passed(r) {
		p.head = strings.Replace(p.head, notPassingWarning, fmt.Sprintf("> [!NOTE]\n> **The tests did not pass when Capsule opened this pull request;** they pass since round %d (see Rounds below).\n", r.Number), 1)
	}
	if p.footer == "" {
		p.head = strings.TrimRight(p.head, "\n") + "\n\n"
	}
	p.entries = append(p.entries, entry{number: r.Number, key: safeKey(r.Key), text: roundEntry(r)})
	out := p.render(limit)
	for len(p.entries) > 1 && runes.count(out) > limit {
		p.trimmed = max(p.trimmed, p.entries[0].number)
		p.entries = p.entries[1:]
		out = p.render(limit)
	}
	if runes.count(out) > limit {
		p.head = withoutAttemptLog(p.head, characterLimit(limit))
		out = p.render(limit)
	}
	return runes.cut(out, limit)
}

// RoundTitle is the title of a pull request titled title once round r
// ended: a passing round's commit takes the "[not passing] " mark off.
func RoundTitle(title string, r Round) string {
	if passed(r) {
		return strings.TrimPrefix(title, notPassingTitle)
	}
	return title
}

// passed reports whether round r pushed a commit whose tests pass.
func passed(r Round) bool { return r.Commit != "" && r.Log != nil && r.Log.Solved }

func (p rounds) render(limit int) string {
	var b strings.Builder
	b.WriteString(p.head)
	b.WriteString(roundsMarker + "\n" + roundsHeading + "\n\n")
	if p.trimmed > 0 {
		fmt.Fprintf(&b, "<!-- capsule:rounds-trimmed %d -->\n", p.trimmed)
		what := "Round 2 is"
		if p.trimmed > 2 {
			what = fmt.Sprintf("Rounds 2–%d are", p.trimmed)
		}
		b.WriteString("> [!NOTE]\n" + quote(what+" left out to fit "+characterLimit(limit)+"; each round's comment on this pull request keeps its log.") + "\n\n")
	}
	for _, e := range p.entries {
		b.WriteString(e.text + "\n")
	}
	b.WriteString(strings.TrimLeft(p.footer, "\n"))
	return b.String()
}

// withoutAttemptLog replaces the attempt log of the body's first part
// with a note.
func withoutAttemptLog(head, limit string) string {
	const heading = "### Attempt log\n\n"
	i := strings.Index(head, heading)
	if i < 0 {
		return head
	}
	return head[:i+len(heading)] + "> [!NOTE]\n" + quote("The attempt log is left out to fit "+limit+"; the full log is in the job's artifact or log.") + "\n\n"
}

// roundEntry is a round's entry in the body's log.
func roundEntry(r Round) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- capsule:round %d %s -->\n", r.Number, safeKey(r.Key))
	fmt.Fprintf(&b, "#### Round %d: %s\n\n", r.Number, oneLineText(r.Cause))
	b.WriteString(roundOutcome(r) + "\n\n")
	if r.Log != nil && r.Commit != "" {
		writeFiles(&b, r.Log)
	}
	if r.StatusURL != "" {
		fmt.Fprintf(&b, "[The round's log](%s)\n\n", clip(r.StatusURL, maxURL))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// roundOutcome says in one line what a round did.
func roundOutcome(r Round) string {
	switch {
	case r.Commit != "" && r.Log != nil:
		return fmt.Sprintf("Commit %s. %s", shortSHA(r.Commit), passVerdict(r.Log))
	case r.Commit != "":
		return fmt.Sprintf("Commit %s.", shortSHA(r.Commit))
	case r.Reason != "":
		return "No commit: " + oneLineText(clip(r.Reason, maxEntryReason))
	}
	return "No commit: nothing needed to change."
}

// RoundReply is Capsule's reply in a review thread that round r answered:
// what it changed, or why it changed nothing, after the round's marker.
func RoundReply(r Round) string {
	var b strings.Builder
	b.WriteString(RoundMarker(r.Key) + "\n")
	switch {
	case r.Commit != "":
		fmt.Fprintf(&b, "Round %d answers this review with commit %s", r.Number, shortSHA(r.Commit))
		if r.Log != nil {
			if final := r.Log.Final(); final != nil && len(final.Changes) > 0 {
				var files []string
				for _, c := range final.Changes {
					files = append(files, fmt.Sprintf("%s (+%d -%d)", code(c.Path), c.Added, c.Removed))
				}
				b.WriteString(", which changes " + join(files))
			}
			b.WriteString(". " + passVerdict(r.Log))
		} else {
			b.WriteString(".")
		}
	case r.Reason != "":
		fmt.Fprintf(&b, "Round %d changed nothing: %s", r.Number, oneLineText(clip(r.Reason, maxEntryReason)))
	default:
		fmt.Fprintf(&b, "Round %d changed nothing: the tests pass and the model's answer changed no file.", r.Number)
	}
	b.WriteString("\n")
	if r.StatusURL != "" {
		fmt.Fprintf(&b, "\n[The round's log](%s)\n", clip(r.StatusURL, maxURL))
	}
	return b.String()
}

// shortSHA renders a commit id as GitHub links it.
func shortSHA(sha string) string {
	if len(sha) > 12 {
		sha = sha[:12]
	}
	return code(sha)
}

// oneLineText makes s one line of plain Markdown text.
func oneLineText(s string) string {
	return text(strings.Join(strings.Fields(s), " "))
}

// DeniedMarker is the hidden line of the note RoundPermissionDenied
// writes for sender, by which a pull request holds one note per sender.
func DeniedMarker(sender string) string {
	return "<!-- capsule:denied " + safeKey(strings.ToLower(sender)) + " -->"
}

// RoundPermissionDenied renders the note, written once per sender on a
// pull request, for a reviewer below the required permission: Capsule
// answers reviews and commands only from people with at least need
// permission (the sender has have).
func RoundPermissionDenied(sender, have, need string) string {
	if have == "" {
		have = "none"
	}
	return fmt.Sprintf("%s\n@%s, thank you for the review. Capsule answers reviews and `/capsule` commands on its pull requests only from people with at least %s permission on this repository; you have %s, so it changes nothing for yours.\n\n"+
		"To go ahead, ask a maintainer to comment `/capsule` with the request on this pull request.\n",
		DeniedMarker(sender), oneLineText(sender), code(need), code(have))
}
