package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

const commitA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"

func reviewRound(n int) Round {
	return Round{
		Number: n, Key: fmt.Sprintf("review:%d", 900+n), Cause: "the review by @alice", Log: solvedLog(), Commit: commitA,
		StatusURL: fmt.Sprintf("https://github.com/acme/calc/pull/13#issuecomment-%d", 500+n),
	}
}

// TestRoundsGolden: the pull request's body after two rounds, a
// round's replies and status comments, and the note for a reviewer
// without permission.
func TestRoundsGolden(t *testing.T) {
	_, body := PullRequest(issue, solvedLog(), "0.1.0", 0)
	if NextRound(body) != 2 || HasRounds(body) {
		t.Fatalf("a fresh body: NextRound %d, HasRounds %v", NextRound(body), HasRounds(body))
	}
	body = AddRound(body, reviewRound(2), 0)
	third := Round{Number: 3, Key: "comment:77", Cause: "`/capsule` by @bob", Commit: "ffff000011112222333344445555666677778888"}
	body = AddRound(body, third, 0)
	if NextRound(body) != 4 || !HasRounds(body) || !hasRound(body, "review:902") || !hasRound(body, "comment:77") || hasRound(body, "comment:78") {
		t.Errorf("after two rounds: NextRound %d, HasRounds %v", NextRound(body), HasRounds(body))
	}
	if n, _ := RoundNumber(body, "comment:77"); n != 3 {
		t.Errorf("RoundNumber = %d, want 3", n)
	}
	if again := AddRound(body, third, 0); again != body {
		t.Error("a round added twice changed the body")
	}
	if !strings.HasSuffix(body, "<sub>Made by Capsule 0.1.0.</sub>\n") {
		t.Error("the footer is not last")
	}
	checkMarkdown(t, body)
	golden(t, "pr_rounds.md", body)

	failed := Round{Number: 4, Key: "review:904", Cause: "the review by @alice", Reason: "No attempt passed within 2 fix attempts."}
	replies := RoundReply(reviewRound(2)) + "\n---\n\n" + RoundReply(Round{Number: 3, Key: "comment:77", Commit: commitA}) + "\n---\n\n" + RoundReply(failed)
	golden(t, "round_replies.md", replies)

	var statuses []string
	for _, s := range []Status{
		{State: work.Running, Attempt: 1, Of: 5, LastResult: "1 failed", Round: &Round{Number: 2, Key: "review:902", Cause: "the review by @alice"}},
		{State: work.Done, Log: solvedLog(), Round: &Round{Number: 2, Key: "review:902", Cause: "the review by @alice", Commit: commitA}},
		{State: work.Failed, Reason: failedLog().Stopped, Log: failedLog(), Round: &Round{Key: "run:31", Cause: "the failing checks"}},
	} {
		got := StatusComment(s)
		if !strings.HasPrefix(got, Marker+"\n"+RoundMarker(s.Round.Key)+"\n") || strings.Contains(got, "Pull request") {
			t.Errorf("a round's status comment:\n%s", got)
		}
		if key, ok := StatusRound(got); key != s.Round.Key || !ok {
			t.Errorf("StatusRound = %q, %v; want %q", key, ok, s.Round.Key)
		}
		checkMarkdown(t, got)
		statuses = append(statuses, got)
	}
	if key, ok := StatusRound(StatusComment(Status{State: work.Running, Attempt: 1, Of: 5})); ok {
		t.Errorf("an issue's status comment names round %q", key)
	}
	golden(t, "round_status.md", strings.Join(statuses, "\n---\n\n"))
	golden(t, "round_denied.md", RoundPermissionDenied("mallory", "read", "write"))
}

// TestAddRoundTrims: the oldest rounds leave a full body first, then the
// opening job's attempt log; the numbering goes on.
func TestAddRoundTrims(t *testing.T) {
	_, body := PullRequest(issue, solvedLog(), "0.1.0", 0)
	limit := len([]rune(body)) + 1500
	for n := 2; n <= 12; n++ {
		body = AddRound(body, reviewRound(n), limit)
		if got := len([]rune(body)); got > limit {
			t.Fatalf("round %d: body of %d characters, limit %d", n, got, limit)
		}
		checkMarkdown(t, body)
		if !hasRound(body, reviewRound(n).Key) || NextRound(body) != n+1 {
			t.Fatalf("round %d: not logged, or NextRound %d", n, NextRound(body))
		}
	}
	if hasRound(body, reviewRound(2).Key) || !strings.Contains(body, "Rounds 2–") || !strings.Contains(body, "**Tests pass** at attempt 1") {
		t.Errorf("the oldest rounds were not trimmed first:\n%s", body)
	}

	// Too small a limit for the opening job's log and one round.
	_, body = PullRequest(issue, solvedLog(), "0.1.0", 0)
	limit = len([]rune(body)) - 200
	body = AddRound(body, reviewRound(2), limit)
	if got := len([]rune(body)); got > limit || !hasRound(body, reviewRound(2).Key) || strings.Contains(body, "**Tests pass** at attempt 1") ||
		!strings.Contains(body, "The attempt log is left out") || !strings.HasPrefix(body, "| Test |") && !strings.Contains(body, "Closes #12.") {
		t.Errorf("body of %d characters (limit %d):\n%s", got, limit, body)
	}
	checkMarkdown(t, body)
}

// TestRoundMarkersHold: a round key cannot close its marker, and a body
// whose owner edited the section keeps its text.
func TestRoundMarkersHold(t *testing.T) {
	if m := RoundMarker("review:1 --> <b>x</b>\n"); strings.Count(m, "-->") != 1 || strings.Contains(m, "\n") {
		t.Errorf("RoundMarker = %q", m)
	}
	body := AddRound("A body a human wrote.", Round{Number: 2, Key: "comment:5", Cause: "`/capsule` by @bob", Reason: "the tests do not pass"}, 0)
	if !strings.HasPrefix(body, "A body a human wrote.\n\n"+roundsMarker) || !hasRound(body, "comment:5") || NextRound(body) != 3 {
		t.Errorf("body:\n%s", body)
	}
}

func hasRound(body, key string) bool {
	_, ok := RoundNumber(body, key)
	return ok
}

// TestPassingRoundOnFailingDraft: a round whose tests pass takes back
// what a not-passing pull request's title and body warned of; a round
// whose commit came back without its log claims nothing.
func TestPassingRoundOnFailingDraft(t *testing.T) {
	title, body := PullRequest(issue, failedLog(), "0.1.0", 0)
	if got := RoundTitle(title, Round{Number: 2, Key: "k", Commit: commitA}); got != title {
		t.Errorf("a round without its log retitled %q to %q", title, got)
	}
	body = AddRound(body, reviewRound(2), 0)
	if got := RoundTitle(title, reviewRound(2)); got != issue.Title {
		t.Errorf("RoundTitle = %q, want %q", got, issue.Title)
	}
	if strings.Contains(body, "**The tests do not pass.**") || !strings.Contains(body, "they pass since round 2") || !strings.HasPrefix(body, "For #12.\n\n> [!NOTE]") {
		t.Errorf("body:\n%s", body)
	}
	checkMarkdown(t, body)
}

// TestRoundHeadline: a round's tests show what the round asks for, not the
// issue, and its headline says so.
func TestRoundHeadline(t *testing.T) {
	withOutcome := func(o attemptlog.Outcome) *attemptlog.Log {
		l := solvedLog()
		l.Outcome = o
		return l
	}
	round := &Round{Number: 2, Key: "review:902", Cause: "the review by @alice", Commit: commitA}
	for _, tc := range []struct {
		name string
		s    Status
		want string
	}{
		{"issue, unproven", Status{State: work.Done, Log: withOutcome(attemptlog.Unproven)}, "no test showed the issue: nothing shows that it is fixed."},
		{"round, unproven", Status{State: work.Done, Log: withOutcome(attemptlog.Unproven), Round: round}, "no test showed what the round asks for: nothing shows that it is done."},
		{"issue, solved", Status{State: work.Done, Log: withOutcome(attemptlog.Solved)}, "the tests that show the issue pass now"},
		{"round, solved", Status{State: work.Done, Log: withOutcome(attemptlog.Solved), Round: round}, "the tests that show what the round asks for pass now"},
	} {
		if got := headline(tc.s); !strings.Contains(got, tc.want) {
			t.Errorf("%s: headline %q, want it to say %q", tc.name, got, tc.want)
		}
	}
}
