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

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
)

var (
	wrongThenRight = fakeopenai.Sequence(
		fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)),
		fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats)))
	neverRight = fakeopenai.Sequence(fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)))
)

// TestLabelledIssueBecomesPullRequest follows a labelled issue to its
// pull request: branch, commit, body, status comment, labels, metrics.
func TestLabelledIssueBecomesPullRequest(t *testing.T) {
	w := newWorld(t, wrongThenRight, worldOptions{})
	w.start()
	if code, body := w.send("issues", "", w.labelled(maintainer, "capsule"), secret); code != http.StatusAccepted {
		t.Fatalf("delivery answered %d %s", code, body)
	}
	jobs := w.wait()
	if len(jobs) != 1 || jobs[0].State != work.Done {
		t.Fatalf("jobs = %+v, want one done", jobs)
	}

	prs := w.repo.PullRequests()
	if len(prs) != 1 {
		t.Fatalf("%d pull requests, want 1", len(prs))
	}
	pr := prs[0]
	if pr.Head != work.Branch(issueNumber) || pr.Base != "main" || pr.Draft || pr.Title != calculatortest.IssueTitle {
		t.Errorf("pull request = %+v", pr)
	}
	for _, want := range []string{"Closes #12.", "The tests pass", "| attempt |", "<details>", "test-model",
		"| `tests/test_stats.py::test_median_of_nothing_is_zero` | failed | passed |", "6 tests passed before and after, 0 regressions."} {
		if !strings.Contains(pr.Body, want) {
			t.Errorf("pull request body lacks %q:\n%s", want, pr.Body)
		}
	}
	if !strings.HasPrefix(pr.Body, "| Test that shows the issue | Before | After |\n") {
		t.Errorf("pull request body does not start with the proof table:\n%s", pr.Body)
	}
	head, err := w.repo.Commit(work.Branch(issueNumber))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := w.repo.Commit("main")
	if !slices.Equal(head.Parents, []string{base.SHA}) || !strings.HasPrefix(head.Message, "Fix #12: ") {
		t.Errorf("commit = %+v, want one commit on main %s", head, base.SHA)
	}
	got, err := w.repo.Files(work.Branch(issueNumber))
	if err != nil {
		t.Fatal(err)
	}
	want := calculatortest.Files(t)
	want["calc/stats.py"] = calculatortest.RightStats
	if len(got) != len(want) {
		t.Errorf("branch has %d files, want %d", len(got), len(want))
	}
	for path, content := range want {
		if got[path] != content {
			t.Errorf("%s on the branch differs:\n%s", path, got[path])
		}
	}

	comments := w.comments()
	if len(comments) != 1 || !strings.HasPrefix(comments[0], report.Marker) || !strings.Contains(comments[0], fmt.Sprintf("/pull/%d", pr.Number)) {
		t.Errorf("comments = %q, want one status comment linking the pull request", comments)
	}
	if labels := w.repo.Labels(issueNumber); !slices.Contains(labels, job.LabelDone) || slices.Contains(labels, job.LabelInProgress) {
		t.Errorf("labels = %q", labels)
	}
	if n := len(w.model.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
	for prefix, want := range map[string]string{
		`capsule_jobs{state="done"}`:                                          " 1",
		`capsule_attempts_total{result="fail"}`:                               " 1",
		`capsule_attempts_total{result="pass"}`:                               " 1",
		`capsule_model_calls_total`:                                           " 2",
		`capsule_webhook_deliveries_total{event="issues",outcome="accepted"}`: " 1",
		`capsule_sandbox_run_seconds_count`:                                   " 2",
	} {
		if line := w.metric(prefix); !strings.HasSuffix(line, want) {
			t.Errorf("metric %s: got line %q, want value%s", prefix, line, want)
		}
	}
	if v := w.gh.Violations(); len(v) > 0 {
		t.Errorf("requests GitHub would reject: %v", v)
	}
}

// TestDuplicateDeliveries sends one delivery ten times: one job, one pull
// request.
func TestDuplicateDeliveries(t *testing.T) {
	w := newWorld(t, wrongThenRight, worldOptions{})
	body := w.labelled(maintainer, "capsule")
	for range 10 {
		if code, answer := w.send("issues", "same-delivery", body, secret); code != http.StatusAccepted {
			t.Fatalf("delivery answered %d %s", code, answer)
		}
	}
	w.start()
	jobs := w.wait()
	if len(jobs) != 1 || jobs[0].State != work.Done {
		t.Fatalf("jobs = %+v, want one done", jobs)
	}
	if n := len(w.repo.PullRequests()); n != 1 {
		t.Fatalf("%d pull requests, want 1", n)
	}
}

// TestRefusedDeliveries checks that deliveries that must start nothing
// are answered as documented and leave the store empty.
func TestRefusedDeliveries(t *testing.T) {
	w := newWorld(t, wrongThenRight, worldOptions{})
	w.start()
	good := w.labelled(maintainer, "capsule")
	bot := w.labelled("dependabot[bot]", "capsule")
	tests := []struct {
		name, event string
		body, key   []byte
		status      int
	}{
		{"bad signature", "issues", good, []byte("wrong secret"), http.StatusUnauthorized},
		{"missing signature", "issues", good, nil, http.StatusUnauthorized},
		{"oversized body", "issues", []byte(`{"x":"` + strings.Repeat("a", 26<<20) + `"}`), secret, http.StatusRequestEntityTooLarge},
		{"malformed JSON", "issues", []byte(`{"action": "labeled",`), secret, http.StatusBadRequest},
		{"unknown event", "deployment", good, secret, http.StatusAccepted},
		{"bot sender", "issues", bot, secret, http.StatusAccepted},
		{"other label", "issues", w.labelled(maintainer, "capsule:done"), secret, http.StatusAccepted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if code, answer := w.send(tt.event, "", tt.body, tt.key); code != tt.status {
				t.Errorf("answered %d %s, want %d", code, answer, tt.status)
			}
		})
	}
	jobs, err := w.store.List(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 0 {
		t.Errorf("jobs were queued: %+v", jobs)
	}
	// The server signs in as the App at its start, and asks nothing else.
	var asked []string
	for _, r := range w.gh.Requests() {
		if r.Operation != "GET /app" {
			asked = append(asked, r.Method+" "+r.Path)
		}
	}
	if len(asked) != 0 || len(w.model.Requests()) != 0 {
		t.Errorf("GitHub got the requests %q and the model %d, want none", asked, len(w.model.Requests()))
	}
}

// TestSenderWithoutPermission: a triager's label gets a polite comment
// and no run.
func TestSenderWithoutPermission(t *testing.T) {
	w := newWorld(t, wrongThenRight, worldOptions{})
	w.start()
	w.send("issues", "", w.labelled("reader", "capsule"), secret)
	jobs := w.wait()
	if len(jobs) != 1 || jobs[0].State != work.Skipped {
		t.Fatalf("jobs = %+v, want one skipped", jobs)
	}
	comments := w.comments()
	if len(comments) != 1 || !strings.Contains(comments[0], "@reader") || strings.HasPrefix(comments[0], report.Marker) {
		t.Errorf("comments = %q, want one polite comment to @reader", comments)
	}
	if len(w.model.Requests()) != 0 || len(w.repo.PullRequests()) != 0 || len(w.repo.Labels(issueNumber)) != 0 {
		t.Error("a job ran for a sender without permission")
	}
}

// TestWrongLabelIsIgnored: a label other than the repository's trigger
// does nothing visible.
func TestWrongLabelIsIgnored(t *testing.T) {
	w := newWorld(t, wrongThenRight, worldOptions{})
	w.start()
	w.send("issues", "", w.labelled(maintainer, "bug"), secret)
	jobs := w.wait()
	if len(jobs) != 1 || jobs[0].State != work.Skipped {
		t.Fatalf("jobs = %+v, want one skipped", jobs)
	}
	if len(w.comments()) != 0 || len(w.model.Requests()) != 0 {
		t.Error("a wrong label started work")
	}
}

// TestFlakyServices: GitHub and the model fail for a while; the job waits
// and completes.
func TestFlakyServices(t *testing.T) {
	script := func(call int, req openai.ChatCompletionRequest) fakeopenai.Response {
		if call < 2 {
			return fakeopenai.Response{Status: http.StatusServiceUnavailable, Message: "overloaded", RetryAfter: "1"}
		}
		return wrongThenRight(call-2, req)
	}
	w := newWorld(t, script, worldOptions{prepare: func(gh *fakegithub.Server) {
		gh.FailNext(http.MethodPost, "/repos/*/*/pulls", 2, http.StatusBadGateway, nil)
		gh.FailNext(http.MethodPost, "/repos/*/*/issues/*/comments", 1, http.StatusTooManyRequests, http.Header{"Retry-After": {"1"}})
		gh.FailNext(http.MethodPost, "/repos/*/*/git/trees", 1, http.StatusServiceUnavailable, nil)
	}})
	w.start()
	w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
	jobs := w.wait()
	if len(jobs) != 1 || jobs[0].State != work.Done {
		t.Fatalf("jobs = %+v, want one done", jobs)
	}
	if n := len(w.repo.PullRequests()); n != 1 {
		t.Errorf("%d pull requests, want 1", n)
	}
	if n := len(w.model.Requests()); n != 4 {
		t.Errorf("%d model requests, want 4 (2 refused, 2 answered)", n)
	}
}

// TestPermanentFailure: a model endpoint that refuses the key ends the job
// as failed, with the reason in the status comment.
func TestPermanentFailure(t *testing.T) {
	w := newWorld(t, fakeopenai.Sequence(fakeopenai.Error(http.StatusUnauthorized, "Incorrect API key provided")), worldOptions{})
	w.start()
	w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
	jobs := w.wait()
	if len(jobs) != 1 || jobs[0].State != work.Failed {
		t.Fatalf("jobs = %+v, want one failed", jobs)
	}
	comments := w.comments()
	if len(comments) != 1 || !strings.Contains(comments[0], "API key") {
		t.Errorf("status comment does not give the reason: %q", comments)
	}
	if labels := w.repo.Labels(issueNumber); !slices.Contains(labels, job.LabelFailed) || slices.Contains(labels, job.LabelInProgress) {
		t.Errorf("labels = %q", labels)
	}
	if len(w.repo.PullRequests()) != 0 {
		t.Error("a pull request was opened for a failed job")
	}
}

// labelAndWait starts the server, labels the issue and waits for its one
// job to end done.
func (w *world) labelAndWait() {
	w.t.Helper()
	w.start()
	if code, body := w.send("issues", "", w.labelled(maintainer, "capsule"), secret); code != http.StatusAccepted {
		w.t.Fatalf("delivery answered %d %s", code, body)
	}
	if jobs := w.wait(); len(jobs) != 1 || jobs[0].State != work.Done {
		w.t.Fatalf("jobs = %+v, want one done", jobs)
	}
}

// TestReproducedFixIsProven: nothing in the repository tests the empty
// list, so the test designer writes a test that fails on the untouched
// tree; the pull request carries it as a new file and starts with its
// before and after.
func TestReproducedFixIsProven(t *testing.T) {
	test := "from calc import median\n\n\ndef test_median_of_empty_list_is_zero():\n    assert median([]) == 0.0\n"
	w := newWorld(t, fakeopenai.Sequence(
		fakeopenai.Reply("### File: tests/test_capsule_reproduction.py\n```python\n"+test+"```\n"),
		fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats))),
		worldOptions{files: map[string]string{"tests/test_stats.py": calculatortest.WithoutEmptyListTests(t)}})
	w.labelAndWait()
	prs := w.repo.PullRequests()
	if len(prs) != 1 || prs[0].Draft {
		t.Fatalf("pull requests = %+v, want one ready", prs)
	}
	table := "| Test that shows the issue | Before | After |\n|---|---|---|\n| `tests/test_capsule_reproduction.py::test_median_of_empty_list_is_zero` | failed | passed |\n"
	if !strings.HasPrefix(prs[0].Body, table) || !strings.Contains(prs[0].Body, "Closes #12.") {
		t.Errorf("the body does not start with the proof:\n%s", prs[0].Body)
	}
	files, err := w.repo.Files(work.Branch(issueNumber))
	if err != nil {
		t.Fatal(err)
	}
	if files["tests/test_capsule_reproduction.py"] != test || files["calc/stats.py"] != calculatortest.RightStats {
		t.Errorf("the branch lacks the reproducing test or the fix: %q", files["tests/test_capsule_reproduction.py"])
	}
	if labels := w.repo.Labels(issueNumber); !slices.Contains(labels, job.LabelDone) {
		t.Errorf("labels = %q, want done", labels)
	}
	if c := w.comments(); len(c) != 1 || !strings.Contains(c[0], "**Capsule: done.** Solved") {
		t.Errorf("the status comment does not say solved: %q", c)
	}
}

// TestUnprovenFixIsADraft: the tests pass with no regressions, but no
// test shows the issue (the repository has none for the empty list), so
// the pull request is a draft that says so first and the issue is labelled
// unproven, not done.
func TestUnprovenFixIsADraft(t *testing.T) {
	w := newWorld(t, wrongThenRight, worldOptions{files: map[string]string{
		"tests/test_stats.py": calculatortest.WithoutEmptyListTests(t),
		".github/capsule.yml": calculatortest.Files(t)[".github/capsule.yml"] + "reproduce: off\n",
	}})
	w.labelAndWait()
	prs := w.repo.PullRequests()
	if len(prs) != 1 || !prs[0].Draft || prs[0].Title != "[unproven] "+calculatortest.IssueTitle {
		t.Fatalf("pull requests = %+v, want one unproven draft", prs)
	}
	body := prs[0].Body
	if !strings.HasPrefix(body, "> [!WARNING]\n> **Nothing shows that the issue is fixed:**") || strings.Contains(body, "Closes #") {
		t.Errorf("the body does not say first that nothing shows the fix, or closes the issue:\n%s", body)
	}
	if labels := w.repo.Labels(issueNumber); !slices.Contains(labels, job.LabelUnproven) || slices.Contains(labels, job.LabelDone) {
		t.Errorf("labels = %q, want unproven", labels)
	}
	if c := w.comments(); len(c) != 1 || !strings.Contains(c[0], "**Capsule: done, unproven.**") || !strings.Contains(c[0], "Draft pull request (unproven") {
		t.Errorf("the status comment does not say unproven: %q", c)
	}
	// The wrong answer passes too: nothing tests the empty list, which is
	// why the outcome is unproven.
	if n := len(w.model.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
}

// TestRetryUpdatesDraft: no attempt passes, so a draft holds the best
// attempt; /capsule retry then passes and updates the same pull request.
func TestRetryUpdatesDraft(t *testing.T) {
	script := func(call int, req openai.ChatCompletionRequest) fakeopenai.Response {
		if call < 2 { // the first job: two wrong answers
			return neverRight(call, req)
		}
		return fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats))
	}
	w := newWorld(t, script, worldOptions{config: "label: capsule\ntest: python3 -m pytest -q\nmax_attempts: 1\non_failure: draft\n"})
	w.start()
	w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
	jobs := w.wait()
	if len(jobs) != 1 || jobs[0].State != work.Failed {
		t.Fatalf("jobs = %+v, want one failed", jobs)
	}
	prs := w.repo.PullRequests()
	if len(prs) != 1 || !prs[0].Draft || !strings.Contains(prs[0].Body, "do not pass") || strings.Contains(prs[0].Body, "Closes #") {
		t.Fatalf("want one draft marked as not passing, got %+v", prs)
	}

	if code, answer := w.send("issue_comment", "", w.retry(maintainer), secret); code != http.StatusAccepted {
		t.Fatalf("retry answered %d %s", code, answer)
	}
	jobs = w.wait()
	if len(jobs) != 2 || jobs[0].State != work.Done {
		t.Fatalf("jobs = %+v, want the retry done", jobs)
	}
	prs = w.repo.PullRequests()
	if len(prs) != 1 || !strings.Contains(prs[0].Body, "Closes #12.") {
		t.Fatalf("want the same pull request updated, got %+v", prs)
	}
	files, _ := w.repo.Files(work.Branch(issueNumber))
	if files["calc/stats.py"] != calculatortest.RightStats {
		t.Error("the branch does not hold the passing attempt")
	}
	comments := w.comments()
	if len(comments) != 1 || !strings.Contains(comments[0], "mark it ready for review") {
		t.Errorf("comments = %q, want the one status comment, asking to take the draft out of draft", comments)
	}
	if labels := w.repo.Labels(issueNumber); !slices.Contains(labels, job.LabelDone) || slices.Contains(labels, job.LabelFailed) {
		t.Errorf("labels = %q", labels)
	}
}

// TestConfigErrorIsShown: a broken configuration becomes the status
// comment.
func TestConfigErrorIsShown(t *testing.T) {
	w := newWorld(t, wrongThenRight, worldOptions{config: "label: capsule\nmax_atempts: 3\n"})
	w.start()
	w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
	jobs := w.wait()
	if len(jobs) != 1 || jobs[0].State != work.Failed {
		t.Fatalf("jobs = %+v, want one failed", jobs)
	}
	comments := w.comments()
	if len(comments) != 1 || !strings.Contains(comments[0], "max_atempts") || !strings.Contains(comments[0], "max_attempts") {
		t.Errorf("status comment does not show the config error: %q", comments)
	}
	if len(w.model.Requests()) != 0 {
		t.Error("the model was called despite the broken configuration")
	}
}

// TestBusyIssue: a second trigger while the first job waits says so in the
// status comment, and only one job runs.
func TestBusyIssue(t *testing.T) {
	w := newWorld(t, wrongThenRight, worldOptions{})
	w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
	w.send("issue_comment", "", w.retry(maintainer), secret)
	w.start()
	jobs := w.wait()
	if len(jobs) != 1 {
		t.Fatalf("jobs = %+v, want one", jobs)
	}
	comments := w.comments()
	if len(comments) != 1 || !strings.Contains(comments[0], "arrived while") {
		t.Errorf("status comment does not mention the second trigger: %q", comments)
	}
}

// TestShutdownReleasesRunningJob: a job still running when the grace
// period ends goes back to the queue, and the next start finishes it.
func TestShutdownReleasesRunningJob(t *testing.T) {
	gate := newGate()
	w := newWorld(t, gate.script, worldOptions{grace: 100 * time.Millisecond})
	t.Cleanup(gate.open)
	w.start()
	w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
	gate.waitCalled(t)
	w.shutdown()
	jobs, err := w.store.List(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].State != work.Queued {
		t.Fatalf("after shutdown, jobs = %+v, want one queued", jobs)
	}
	if len(w.repo.PullRequests()) != 0 {
		t.Fatal("a pull request was opened by the stopped job")
	}

	w.start()
	jobs = w.wait()
	if len(jobs) != 1 || jobs[0].State != work.Done || len(w.repo.PullRequests()) != 1 {
		t.Fatalf("after the restart, jobs = %+v and %d pull requests; want one done and one", jobs, len(w.repo.PullRequests()))
	}
	if comments := w.comments(); len(comments) != 1 {
		t.Errorf("%d comments, want the one status comment", len(comments))
	}
}

// TestBusyWhileRunning: a retry while the job runs is noted in the status
// comment at once, and the note stays when the job ends.
func TestBusyWhileRunning(t *testing.T) {
	gate := newGate()
	w := newWorld(t, gate.script, worldOptions{})
	t.Cleanup(gate.open)
	w.start()
	w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
	gate.waitCalled(t)
	if code, answer := w.send("issue_comment", "", w.retry(maintainer), secret); code != http.StatusAccepted {
		t.Fatalf("retry answered %d %s", code, answer)
	}
	noted := func() bool {
		c := w.comments()
		return len(c) == 1 && strings.Contains(c[0], "arrived while")
	}
	for deadline := time.Now().Add(time.Minute); !noted() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if !noted() {
		t.Fatalf("the running job's status comment does not note the retry: %q", w.comments())
	}
	gate.open()
	jobs := w.wait()
	if len(jobs) != 1 || jobs[0].State != work.Done {
		t.Fatalf("jobs = %+v, want one done", jobs)
	}
	if !noted() {
		t.Errorf("the final status comment lost the note: %q", w.comments())
	}
}

// TestQueuedJobIsAnnounced: with every worker busy, a new job's status
// comment says it is queued; it then runs and the comment moves on.
func TestQueuedJobIsAnnounced(t *testing.T) {
	gate := newGate()
	w := newWorld(t, gate.script, worldOptions{})
	w.repo.AddIssue(13, maintainer, "median of one value", "median([3]) should be 3.")
	t.Cleanup(gate.open)
	w.start()
	w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
	gate.waitCalled(t)
	w.send("issues", "", w.labelledOn(13, maintainer, "capsule"), secret)
	queued := func() bool {
		c := w.repo.Comments(13)
		return len(c) == 1 && strings.Contains(c[0].Body, "queued")
	}
	for deadline := time.Now().Add(time.Minute); !queued() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if !queued() {
		t.Fatalf("the waiting job's status comment does not say queued: %+v", w.repo.Comments(13))
	}
	gate.open()
	jobs := w.wait()
	if len(jobs) != 2 || jobs[0].State != work.Done || jobs[1].State != work.Done {
		t.Fatalf("jobs = %+v, want two done", jobs)
	}
	if c := w.repo.Comments(13); len(c) != 1 || strings.Contains(c[0].Body, "queued") {
		t.Errorf("issue 13's one status comment should have moved on from queued: %+v", c)
	}
}
