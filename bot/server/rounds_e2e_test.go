package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
)

// roundsConfig is the example's configuration without the test designer:
// the rounds' scripted answers are the programmer's alone.
func roundsConfig(t *testing.T) string {
	return calculatortest.Files(t)[".github/capsule.yml"] + "reproduce: off\n"
}

// withDocstring is the fixed calc/stats.py with another module docstring.
func withDocstring(s string) string {
	return strings.Replace(calculatortest.RightStats, `"""Statistics over lists of numbers."""`, `"""`+s+`"""`, 1)
}

// answerOver is a model answer that changes the file at path from old to
// new in SEARCH/REPLACE blocks: a round's answer, over the branch's head.
func answerOver(path, old, new string) fakeopenai.Response {
	f := edits.FileEdit{Path: path, Blocks: edits.BlocksFor(old, new)}
	return fakeopenai.Reply(programmer.FormatFiles([]edits.FileEdit{f}) + "\n")
}

// openPullRequest starts the workers, labels the issue and returns the
// pull request the job opened.
func (w *world) openPullRequest() fakegithub.PullRequest {
	w.t.Helper()
	w.labelAndWait()
	prs := w.repo.PullRequests()
	if len(prs) != 1 {
		w.t.Fatalf("pull requests = %+v, want one", prs)
	}
	return prs[0]
}

// deliver sends a delivery and returns the answer's status: "queued" or
// "ignored".
func (w *world) deliver(event string, body []byte) string {
	w.t.Helper()
	code, answer := w.send(event, "", body, secret)
	if code != http.StatusAccepted {
		w.t.Fatalf("%s delivery answered %d %s", event, code, answer)
	}
	for _, status := range []string{"queued", "ignored"} {
		if strings.Contains(answer, `"status":"`+status+`"`) {
			return status
		}
	}
	w.t.Fatalf("%s delivery answered %s", event, answer)
	return ""
}

// head is the commit Capsule's branch points at.
func (w *world) head() fakegithub.Commit {
	w.t.Helper()
	c, err := w.repo.Commit(work.Branch(issueNumber))
	if err != nil {
		w.t.Fatal(err)
	}
	return c
}

// replies counts the answers in the review thread that starts with
// comment thread, and checks that each carries round's marker.
func (w *world) replies(pr int, thread int64, round string) int {
	w.t.Helper()
	n := 0
	for _, c := range w.repo.ReviewComments(pr) {
		if c.InReplyTo != thread {
			continue
		}
		n++
		if !strings.Contains(c.Body, report.RoundMarker(round)) {
			w.t.Errorf("reply %q lacks the marker of round %s", c.Body, round)
		}
	}
	return n
}

// lastPrompt is the user messages of the model's last request.
func (w *world) lastPrompt() string {
	w.t.Helper()
	reqs := w.model.Requests()
	if len(reqs) == 0 {
		w.t.Fatal("the model was asked nothing")
	}
	var b strings.Builder
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "user" {
			b.WriteString(m.Content)
		}
	}
	return b.String()
}

// roundJob returns the stored job of round on pull request pr.
func (w *world) roundJob(pr int, round string) store.Job {
	w.t.Helper()
	jobs := mustList(w.t, w.store)
	for _, j := range jobs {
		if j.PullRequest == pr && j.Round == round {
			return j
		}
	}
	w.t.Fatalf("no job of round %s among %+v", round, jobs)
	return store.Job{}
}

// reviewedStats is calc/stats.py as the scripted model changes it in a
// review round: the docstring says what an empty list gives.
var reviewedStats = withDocstring("Statistics over lists of numbers (0.0 for an empty list).")

// openThenReview is a model that opens the pull request at the second
// attempt, then answers a review round with reviewedStats.
var openThenReview = fakeopenai.Sequence(
	fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)),
	fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats)),
	answerOver("calc/stats.py", calculatortest.RightStats, reviewedStats))

// TestReviewRound: a review comment on a line of Capsule's pull request
// leads to one new commit on the branch, made by the scripted model from
// that comment, a reply in the comment's thread and a second round in the
// pull request's body. The review's own delivery, and a comment of the
// review delivered again after the round, make no second round.
func TestReviewRound(t *testing.T) {
	const asked = "say in the docstring what an empty list gives"
	w := newWorld(t, openThenReview, worldOptions{config: roundsConfig(t)})
	pr := w.openPullRequest()
	first := w.head()
	calls := len(w.model.Requests())

	rv := w.repo.AddReview(pr.Number, fakegithub.Review{User: maintainer, Comments: []fakegithub.ReviewComment{{
		Path: "calc/stats.py", Line: 1, DiffHunk: "@@ -1,3 +1,3 @@\n-\"\"\"Statistics.\"\"\"\n+\"\"\"Statistics over lists of numbers.\"\"\"",
		Body: asked,
	}}})
	thread := rv.Comments[0].ID
	key := fmt.Sprintf("review:%d", rv.ID)
	// GitHub sends the comment's delivery and the review's, in no set
	// order: one round.
	ref := capsulePR(pr.Number, first.SHA)
	for _, d := range []struct {
		event string
		body  []byte
	}{
		{"pull_request_review_comment", reviewCommentPayload(t, ref, maintainer, rv.ID, thread, asked)},
		{"pull_request_review", reviewPayload(t, ref, maintainer, rv.ID, "commented", "")},
	} {
		if got := w.deliver(d.event, d.body); got != "queued" {
			t.Fatalf("%s: %s, want queued", d.event, got)
		}
	}
	w.wait()

	second := w.head()
	if !slices.Equal(second.Parents, []string{first.SHA}) || !strings.Contains(second.Message, "Capsule-Round: "+key) ||
		!strings.Contains(second.Message, fmt.Sprintf("Capsule-Issue: %d", issueNumber)) {
		t.Errorf("the branch is at %+v, want one commit over %s with the round's trailers", second, first.SHA)
	}
	if files, _ := w.repo.Files(work.Branch(issueNumber)); files["calc/stats.py"] != reviewedStats {
		t.Errorf("calc/stats.py on the branch:\n%s\nwant the reviewed docstring", files["calc/stats.py"])
	}
	if prompt := w.lastPrompt(); !strings.Contains(prompt, asked) || !strings.Contains(prompt, "calc/stats.py") || !strings.Contains(prompt, calculatortest.IssueTitle) {
		t.Errorf("the round's prompt lacks the issue, or the comment and its file:\n%s", prompt)
	}
	if n := len(w.model.Requests()) - calls; n != 1 {
		t.Errorf("the round asked the model %d times, want once", n)
	}
	if n := w.replies(pr.Number, thread, key); n != 1 {
		t.Errorf("%d replies in the comment's thread, want 1", n)
	}
	body := w.repo.PullRequests()[0].Body
	if !strings.Contains(body, "<!-- capsule:round 2 ") || strings.Contains(body, "<!-- capsule:round 3 ") {
		t.Errorf("the pull request's body does not log round 2, once:\n%s", body)
	}
	if j := w.roundJob(pr.Number, key); j.State != work.Done || j.HeadSHA != second.SHA || j.Issue != issueNumber {
		t.Errorf("the round's job = %+v, want done at %s", j, second.SHA)
	}

	// A comment of the same review delivered after its round: nothing.
	if got := w.deliver("pull_request_review_comment", reviewCommentPayload(t, capsulePR(pr.Number, second.SHA), maintainer, rv.ID, thread, asked)); got != "queued" {
		t.Fatalf("the late comment: %s", got)
	}
	w.wait()
	if w.head().SHA != second.SHA || w.replies(pr.Number, thread, key) != 1 || len(w.model.Requests())-calls != 1 {
		t.Errorf("the review's late delivery made another round")
	}
	if v := w.gh.Violations(); len(v) > 0 {
		t.Errorf("requests GitHub would reject: %v", v)
	}
}

// TestRoundsThatStartNothing: on Capsule's pull request, reviews from a
// user below the minimum permission, from a bot and from Capsule itself
// start no round: no commit, no reply, no model call. The user without
// permission gets the polite note once, however often they ask; the bots'
// deliveries are not even stored.
func TestRoundsThatStartNothing(t *testing.T) {
	w := newWorld(t, wrongThenRight, worldOptions{config: roundsConfig(t)})
	pr := w.openPullRequest()
	first := w.head()
	calls := len(w.model.Requests())
	stored := len(mustList(t, w.store))
	ref := capsulePR(pr.Number, first.SHA)

	for _, sender := range []string{"dependabot[bot]", "capsule-app[bot]"} {
		rv := w.repo.AddReview(pr.Number, fakegithub.Review{User: sender, Body: "Bump the version.", State: "CHANGES_REQUESTED"})
		if got := w.deliver("pull_request_review", reviewPayload(t, ref, sender, rv.ID, "changes_requested", rv.Body)); got != "ignored" {
			t.Errorf("a review by %s: %s, want ignored", sender, got)
		}
		if got := w.deliver("issue_comment", commandPayload(t, pr.Number, sender, 900, "/capsule rewrite it all")); got != "ignored" {
			t.Errorf("a command by %s: %s, want ignored", sender, got)
		}
	}
	if n := len(mustList(t, w.store)); n != stored {
		t.Errorf("the bots' deliveries stored %d jobs", n-stored)
	}

	// "reader" may triage, not write: twice asked, once told.
	for i := range 2 {
		rv := w.repo.AddReview(pr.Number, fakegithub.Review{User: "reader", Comments: []fakegithub.ReviewComment{{
			Path: "calc/stats.py", Line: 1, DiffHunk: "@@ -1 +1 @@\n+\"\"\"Statistics over lists of numbers.\"\"\"", Body: fmt.Sprintf("Rename it (%d).", i),
		}}})
		w.deliver("pull_request_review_comment", reviewCommentPayload(t, ref, "reader", rv.ID, rv.Comments[0].ID, rv.Comments[0].Body))
		w.wait()
		if n := w.replies(pr.Number, rv.Comments[0].ID, fmt.Sprintf("review:%d", rv.ID)); n != 0 {
			t.Errorf("%d replies to a reviewer without permission", n)
		}
	}
	notes := 0
	for _, c := range w.repo.Comments(pr.Number) {
		if strings.Contains(c.Body, report.DeniedMarker("reader")) {
			notes++
		}
	}
	if notes != 1 {
		t.Errorf("%d notes to the reviewer without permission on the pull request, want 1", notes)
	}
	for _, j := range mustList(t, w.store)[:2] {
		if j.State != work.Skipped || j.Sender != "reader" {
			t.Errorf("the round of a reviewer without permission: %+v, want skipped", j)
		}
	}
	if w.head().SHA != first.SHA || len(w.model.Requests()) != calls {
		t.Errorf("rounds that start nothing moved the branch or asked the model")
	}
	if v := w.gh.Violations(); len(v) > 0 {
		t.Errorf("requests GitHub would reject: %v", v)
	}
}

// mustList returns the store's jobs, newest first.
func mustList(t *testing.T, st *store.Store) []store.Job {
	t.Helper()
	jobs, err := st.List(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// failingRun records a failed GitHub Actions run of the workflow "CI" on
// commit head of branch, whose job "test" logs log, and returns it.
func (w *world) failingRun(branch, head, log string) fakegithub.WorkflowRun {
	return w.repo.AddActionsRun(fakegithub.WorkflowRun{
		Name: "CI", HeadBranch: branch, HeadSHA: head, Event: "pull_request", Conclusion: "failure",
		Jobs: []fakegithub.WorkflowJob{{Name: "test", Conclusion: "failure",
			Steps: []fakegithub.WorkflowStep{{Name: "Set up job", Conclusion: "success"}, {Name: "Run make lint", Conclusion: "failure"}},
			Log:   "##[group]Run make lint\n" + log + "\n##[error]Process completed with exit code 1.\n"}},
	})
}

// ciFailure records a failing run on the branch's head and delivers it
// as GitHub does, sent by Capsule's bot (its push caused the run); it
// returns the run and the answer's status.
func (w *world) ciFailure(pr int, log string) (fakegithub.WorkflowRun, string) {
	w.t.Helper()
	head := w.head().SHA
	run := w.failingRun(work.Branch(issueNumber), head, log)
	return run, w.deliver("workflow_run", workflowRunPayload(w.t, capsulePR(pr, head), run.ID, head, "failure"))
}

// TestCIRounds: a failing workflow run on Capsule's branch starts a CI
// round whose prompt holds the failed step's log, which pushes one
// commit; a second failure makes a second round; the third, with
// ci_rounds at its default of 2, starts none and says so once.
func TestCIRounds(t *testing.T) {
	lint1, lint2 := withDocstring("Statistics over lists of numbers, lint-clean."), withDocstring("Statistics over lists of numbers, lint-clean twice.")
	w := newWorld(t, fakeopenai.Sequence(
		fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)),
		fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats)),
		answerOver("calc/stats.py", calculatortest.RightStats, lint1),
		answerOver("calc/stats.py", lint1, lint2)),
		worldOptions{config: roundsConfig(t)})
	pr := w.openPullRequest()
	for i, want := range []string{lint1, lint2} {
		before := w.head()
		calls := len(w.model.Requests())
		log := fmt.Sprintf("calc/stats.py:1: D400 the module docstring must say lint-clean (failure %d)", i+1)
		run, status := w.ciFailure(pr.Number, log)
		if status != "queued" {
			t.Fatalf("failure %d: %s, want queued", i+1, status)
		}
		w.wait()
		after := w.head()
		if !slices.Equal(after.Parents, []string{before.SHA}) || !strings.Contains(after.Message, fmt.Sprintf("Capsule-Round: run:%d", run.ID)) {
			t.Fatalf("failure %d: the branch is at %+v, want one commit over %s naming run %d", i+1, after, before.SHA, run.ID)
		}
		if files, _ := w.repo.Files(work.Branch(issueNumber)); files["calc/stats.py"] != want {
			t.Errorf("failure %d: calc/stats.py on the branch:\n%s", i+1, files["calc/stats.py"])
		}
		if prompt := w.lastPrompt(); !strings.Contains(prompt, log) || !strings.Contains(prompt, "Run make lint") {
			t.Errorf("failure %d: the round's prompt lacks the failed step's log:\n%s", i+1, prompt)
		}
		if n := len(w.model.Requests()) - calls; n != 1 {
			t.Errorf("failure %d: the round asked the model %d times, want once", i+1, n)
		}
	}

	third := w.head()
	calls := len(w.model.Requests())
	for range 2 { // said once, however often it fails
		if _, status := w.ciFailure(pr.Number, "calc/stats.py:1: D400 still not clean"); status != "queued" {
			t.Fatalf("a failure after two rounds: %s", status)
		}
		w.wait()
	}
	if w.head().SHA != third.SHA || len(w.model.Requests()) != calls {
		t.Errorf("a third failure with ci_rounds 2 made a round")
	}
	if n := w.notes(pr.Number, "ci_rounds"); n != 1 {
		t.Errorf("%d notes on the pull request that the CI rounds are used up, want 1", n)
	}
	if v := w.gh.Violations(); len(v) > 0 {
		t.Errorf("requests GitHub would reject: %v", v)
	}
}

// notes counts the comments on the pull request that mention what.
func (w *world) notes(pr int, what string) int {
	n := 0
	for _, c := range w.repo.Comments(pr) {
		if strings.Contains(c.Body, what) {
			n++
		}
	}
	return n
}

// TestCIRoundsStop: no CI round when the same check fails on the default
// branch's head (the pull request says once that it is not Capsule's),
// nor once a human pushed to the branch, whether the failing run checked
// the human's commit or Capsule's older one.
func TestCIRoundsStop(t *testing.T) {
	w := newWorld(t, wrongThenRight, worldOptions{config: roundsConfig(t)})
	pr := w.openPullRequest()
	calls := len(w.model.Requests())
	capsuleHead := w.head().SHA

	main, err := w.repo.Commit("main")
	if err != nil {
		t.Fatal(err)
	}
	w.failingRun("main", main.SHA, "the linter's server is down")
	for range 2 { // said once, however often it fails
		if _, status := w.ciFailure(pr.Number, "the linter's server is down"); status != "queued" {
			t.Fatalf("a failure also on the default branch: %s", status)
		}
		w.wait()
	}
	if n := w.notes(pr.Number, "fail on the default branch's head too"); n != 1 {
		t.Errorf("%d notes that the failure is not Capsule's, want 1", n)
	}

	human, err := w.repo.Push(work.Branch(issueNumber), "Tidy up", map[string]string{"NOTES.md": "a human's notes\n"})
	if err != nil {
		t.Fatal(err)
	}
	if _, status := w.ciFailure(pr.Number, "NOTES.md: trailing space"); status != "ignored" {
		t.Errorf("a failure on a human's commit: %s, want ignored", status)
	}
	stale := w.failingRun(work.Branch(issueNumber), capsuleHead, "calc/stats.py: a re-run's failure")
	if status := w.deliver("workflow_run", workflowRunPayload(t, capsulePR(pr.Number, human), stale.ID, capsuleHead, "failure")); status != "queued" {
		t.Fatalf("a re-run on Capsule's commit: %s", status)
	}
	w.wait()
	if j := w.roundJob(pr.Number, fmt.Sprintf("run:%d", stale.ID)); j.State != work.Skipped {
		t.Errorf("the round of a run on a commit a human pushed over: %+v, want skipped", j)
	}
	if n := w.notes(pr.Number, "Someone pushed to this pull request's branch"); n != 1 {
		t.Errorf("%d notes that a human pushed, want 1", n)
	}
	if w.head().SHA != human || len(w.model.Requests()) != calls {
		t.Errorf("CI rounds after a human's push moved the branch or asked the model")
	}
	if v := w.gh.Violations(); len(v) > 0 {
		t.Errorf("requests GitHub would reject: %v", v)
	}
}

// TestRoundWaitsForTheIssuesJob: a review that comes while a round of
// the same pull request runs is not lost: it waits, and its round runs
// once the first ends, on the commit the first pushed.
func TestRoundWaitsForTheIssuesJob(t *testing.T) {
	second := withDocstring("Statistics over lists of numbers (0.0 for an empty list), mean and median.")
	started, release := make(chan struct{}), make(chan struct{})
	w := newWorld(t, func(call int, req openai.ChatCompletionRequest) fakeopenai.Response {
		switch call {
		case 2: // the first round, held until the second review is in
			close(started)
			<-release
		case 3:
			return answerOver("calc/stats.py", reviewedStats, second)
		}
		return openThenReview(call, req)
	}, worldOptions{config: roundsConfig(t)})
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	pr := w.openPullRequest()
	opened := w.head()
	review := func(body string) (int64, string) {
		rv := w.repo.AddReview(pr.Number, fakegithub.Review{User: maintainer, Comments: []fakegithub.ReviewComment{{
			Path: "calc/stats.py", Line: 1, DiffHunk: "@@ -1 +1 @@\n+\"\"\"Statistics over lists of numbers.\"\"\"", Body: body,
		}}})
		if got := w.deliver("pull_request_review_comment", reviewCommentPayload(t, capsulePR(pr.Number, w.head().SHA), maintainer, rv.ID, rv.Comments[0].ID, body)); got != "queued" {
			t.Fatalf("review %q: %s", body, got)
		}
		return rv.Comments[0].ID, fmt.Sprintf("review:%d", rv.ID)
	}

	thread1, key1 := review("say in the docstring what an empty list gives")
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the first round never asked the model")
	}
	thread2, key2 := review("name mean and median in the docstring")
	close(release)
	w.wait()

	head := w.head()
	if files, _ := w.repo.Files(work.Branch(issueNumber)); files["calc/stats.py"] != second {
		t.Errorf("calc/stats.py on the branch:\n%s\nwant both rounds' changes", files["calc/stats.py"])
	}
	if len(head.Parents) != 1 || !strings.Contains(head.Message, "Capsule-Round: "+key2) {
		t.Fatalf("the branch's head %+v is not the second round's", head)
	}
	middle, err := w.repo.Commit(head.Parents[0])
	if err != nil || !slices.Equal(middle.Parents, []string{opened.SHA}) || !strings.Contains(middle.Message, "Capsule-Round: "+key1) {
		t.Errorf("the second round's parent %+v (%v) is not the first round's commit over %s", middle, err, opened.SHA)
	}
	if w.replies(pr.Number, thread1, key1) != 1 || w.replies(pr.Number, thread2, key2) != 1 {
		t.Errorf("want one reply in each review's thread")
	}
	if body := w.repo.PullRequests()[0].Body; !strings.Contains(body, "<!-- capsule:round 3 ") {
		t.Errorf("the body does not log round 3:\n%s", body)
	}
}
