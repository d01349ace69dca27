package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
	"github.com/capsulehq/capsule/testsupport/webhooktest"
)

// actionWorld sets up the environment a workflow step sees: the event
// file, the inputs, the output files, a fake GitHub and a scripted model.
type actionWorld struct {
	gh             *fakegithub.Server
	repo           *fakegithub.Repo
	model          *fakeopenai.Server
	workspace      string
	output, summar string
}

func newActionWorld(t *testing.T, script fakeopenai.Script, config string) *actionWorld {
	t.Helper()
	w := &actionWorld{}
	w.gh = fakegithub.New(t, fakegithub.WithToken("ghs_workflow"), fakegithub.WithPrefix("/api/v3"))
	files := calculatortest.Files(t)
	if config != "" {
		files[".github/capsule.yml"] = config
	}
	w.repo = w.gh.AddRepo("octo", "calculator", files)
	w.repo.AddIssue(5, "alice", calculatortest.IssueTitle, calculatortest.IssueBody)
	w.gh.SetPermission("octo", "calculator", "alice", "write")
	w.gh.SetPermission("octo", "calculator", "tom", "read")
	w.model = fakeopenai.New(t, script, fakeopenai.WithModels("m"))

	dir := t.TempDir()
	w.workspace = filepath.Join(dir, "workspace")
	os.Mkdir(w.workspace, 0o755)
	w.output, w.summar = filepath.Join(dir, "output"), filepath.Join(dir, "summary")
	for name, value := range map[string]string{
		"GITHUB_API_URL": w.gh.URL(), "GITHUB_WORKSPACE": w.workspace, "GITHUB_SHA": "",
		"GITHUB_OUTPUT": w.output, "GITHUB_STEP_SUMMARY": w.summar,
		"GITHUB_SERVER_URL": "https://github.example", "GITHUB_REPOSITORY": "octo/calculator", "GITHUB_RUN_ID": "99",
		"INPUT_GITHUB-TOKEN": "ghs_workflow", "INPUT_MODEL": "m", "INPUT_BASE-URL": w.model.URL(), "INPUT_API-KEY": "k",
		"INPUT_LABEL": "capsule", "INPUT_APP-ID": "", "INPUT_APP-PRIVATE-KEY": "", "INPUT_MAX-ATTEMPTS": "", "INPUT_CONFIG": "",
	} {
		t.Setenv(name, value)
	}
	return w
}

// event writes a labelled-issue event by sender with label.
func (w *actionWorld) event(t *testing.T, sender, label string) {
	w.send(t, "issues", webhooktest.Payload(t, "issues__labeled.payload.json", func(m map[string]any) {
		webhooktest.Retarget(m, "octo", "calculator", 5, sender, 0)
		webhooktest.Object(m, "label")["name"] = label
	}))
}

// send writes the event file of event, as the runner does.
func (w *actionWorld) send(t *testing.T, event string, body []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_EVENT_NAME", event)
	t.Setenv("GITHUB_EVENT_PATH", path)
}

// command sends sender's comment body on pull request pr, stored in the
// fake (when pr exists) so that the job can read it.
func (w *actionWorld) command(t *testing.T, pr int, sender, body string) int64 {
	t.Helper()
	id := int64(1)
	if _, ok := w.repo.Issue(pr); ok {
		id = w.repo.AddComment(pr, sender, body)
	}
	w.send(t, "issue_comment", webhooktest.Payload(t, "issue_comment__created.payload.json", func(m map[string]any) {
		webhooktest.Retarget(m, "octo", "calculator", pr, sender, 0)
		webhooktest.Object(m, "issue")["pull_request"] = map[string]any{"url": w.gh.URL() + "repos/octo/calculator/pulls/" + strconv.Itoa(pr)}
		c := webhooktest.Object(m, "comment")
		c["id"], c["body"] = id, body
	}))
	return id
}

// reviewEvent sends a pull_request_review_comment (comment != 0) or
// pull_request_review event of review on pull request pr, whose branch is
// branch, from sender.
func (w *actionWorld) reviewEvent(t *testing.T, pr int, branch, sender string, review, comment int64) {
	t.Helper()
	event, file := "pull_request_review", "pull_request_review__submitted.payload.json"
	if comment != 0 {
		event, file = "pull_request_review_comment", "pull_request_review_comment__created.payload.json"
	}
	w.send(t, event, webhooktest.Payload(t, file, func(m map[string]any) {
		webhooktest.Retarget(m, "octo", "calculator", pr, sender, 0)
		delete(m, "issue")
		p := webhooktest.Object(m, "pull_request")
		p["number"] = pr
		webhooktest.Object(p, "head")["ref"] = branch
		webhooktest.Object(p, "head", "repo")["full_name"] = "octo/calculator"
		webhooktest.Object(p, "base", "repo")["full_name"] = "octo/calculator"
		if comment != 0 {
			c := webhooktest.Object(m, "comment")
			c["id"], c["pull_request_review_id"] = comment, review
		} else {
			r := webhooktest.Object(m, "review")
			r["id"], r["state"], r["body"] = review, "commented", "see the comment"
		}
	}))
}

func readFile(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestActionOpensPullRequest(t *testing.T) {
	sandboxtest.Engine(t)
	for _, checkout := range []bool{false, true} {
		name := map[bool]string{false: "tree from the API", true: "workspace checkout"}[checkout]
		t.Run(name, func(t *testing.T) {
			w := newActionWorld(t, fakeopenai.Sequence(
				fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)),
				fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats))), "")
			if checkout {
				for path, content := range calculatortest.Files(t) {
					p := filepath.Join(w.workspace, filepath.FromSlash(path))
					os.MkdirAll(filepath.Dir(p), 0o755)
					os.WriteFile(p, []byte(content), 0o644)
				}
				os.Mkdir(filepath.Join(w.workspace, ".git"), 0o755)
				head, _ := w.repo.Commit("main")
				t.Setenv("GITHUB_SHA", head.SHA)
			}
			w.event(t, "alice", "capsule")
			code, stdout, stderr := capsule(t, "action")
			if code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			prs := w.repo.PullRequests()
			if len(prs) != 1 || prs[0].Draft {
				t.Fatalf("pull requests = %+v, want one ready", prs)
			}
			outputs := readFile(t, w.output)
			for _, want := range []string{"solved=true\n", "outcome=solved\n", "attempts=2\n", "model-calls=2\n", "pull-request-url=http"} {
				if !strings.Contains(outputs, want) {
					t.Errorf("outputs lack %q:\n%s", want, outputs)
				}
			}
			for _, want := range []string{"::group::Sandbox image", "::group::Attempt 0 of 5 (generate): tests fail", "::group::Attempt 1 of 5 (fix): tests pass", "::endgroup::"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("log lacks %q:\n%s", want, stdout)
				}
			}
			if summary := readFile(t, w.summar); !strings.Contains(summary, "| attempt |") && !strings.Contains(summary, "| Attempt |") {
				t.Errorf("step summary has no attempt table:\n%s", summary)
			}
			for _, f := range []string{"attempts.json", "attempts.md", "patch.diff"} {
				if _, err := os.Stat(filepath.Join(w.workspace, actionLogDir, f)); err != nil {
					t.Errorf("attempt log file: %v", err)
				}
			}
			fetched := false
			for _, r := range w.gh.Requests() {
				fetched = fetched || strings.Contains(r.Path, "/tarball/")
			}
			if fetched == checkout {
				t.Errorf("tarball fetched: %v, with a checkout: %v", fetched, checkout)
			}
			if status := w.repo.Comments(5); len(status) != 1 || !strings.Contains(status[0].Body, "https://github.example/octo/calculator/actions/runs/99") {
				t.Errorf("status comment does not link the run: %+v", status)
			}
		})
	}
}

func TestActionSkipsAndFails(t *testing.T) {
	sandboxtest.Engine(t)
	never := fakeopenai.Sequence(fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)))
	tests := []struct {
		name, sender, label, config string
		code                        int
		output                      string
	}{
		{"other label", "alice", "bug", "", exitOK, "nothing to do: label \"bug\" is not the trigger label"},
		{"bot sender", "renovate[bot]", "capsule", "", exitOK, "nothing to do"},
		{"no permission", "tom", "capsule", "", exitOK, "tom has read permission; write is needed"},
		{"not solved, comment only", "alice", "capsule", "max_attempts: 1\non_failure: comment\n", exitFailure, "::error::no attempt passed the tests"},
		{"not solved, draft", "alice", "capsule", "max_attempts: 1\n", exitOK, "::warning::the tests do not pass; draft pull request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newActionWorld(t, never, tt.config)
			w.event(t, tt.sender, tt.label)
			code, stdout, stderr := capsule(t, "action")
			if code != tt.code || !strings.Contains(stdout+stderr, tt.output) {
				t.Errorf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tt.code, tt.output, stdout, stderr)
			}
			if !strings.Contains(readFile(t, w.output), "solved=false\n") {
				t.Errorf("outputs do not say solved=false")
			}
		})
	}
}

// TestActionOtherLabelNeedsNoModel: an event for another label ends the
// step with 0 before the model's settings (here invalid) or the engine
// (here missing) are touched, whether the label comes from the input or
// from the repository's configuration.
func TestActionOtherLabelNeedsNoModel(t *testing.T) {
	for _, input := range []string{"capsule", ""} {
		t.Run("label input "+strconv.Quote(input), func(t *testing.T) {
			w := newActionWorld(t, fakeopenai.Sequence(fakeopenai.Reply("")), "label: fix-me\n")
			w.event(t, "alice", "bug")
			t.Setenv("INPUT_LABEL", input)
			t.Setenv("INPUT_MODEL", "")
			t.Setenv("INPUT_BASE-URL", "::not a url")
			t.Setenv("OPENAI_BASE_URL", "")
			t.Setenv("CAPSULE_MODEL", "")
			t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
			code, stdout, stderr := capsule(t, "action")
			if code != exitOK || !strings.Contains(stdout, `nothing to do: label "bug" is not the trigger label`) {
				t.Errorf("exit %d, want 0 and nothing to do\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if n := len(w.model.Requests()); n != 0 {
				t.Errorf("%d model requests, want none", n)
			}
		})
	}
}

func TestActionSettingsErrors(t *testing.T) {
	w := newActionWorld(t, fakeopenai.Sequence(fakeopenai.Reply("")), "")
	w.event(t, "alice", "capsule")
	tests := []struct {
		name string
		env  map[string]string
		code int
		want string
	}{
		{"no event", map[string]string{"GITHUB_EVENT_PATH": ""}, exitUsage, "run this as a step of a workflow"},
		{"no token", map[string]string{"INPUT_GITHUB-TOKEN": ""}, exitUsage, "no token"},
		{"app id alone", map[string]string{"INPUT_APP-ID": "12"}, exitUsage, "go together"},
		{"bad attempts", map[string]string{"INPUT_MAX-ATTEMPTS": "many"}, exitUsage, "max-attempts"},
		{"no engine", map[string]string{"DOCKER_HOST": "unix:///nonexistent/docker.sock"}, exitInfra, "the runner's Docker engine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			code, stdout, stderr := capsule(t, "action")
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) || !strings.Contains(stdout, "::error::") {
				t.Errorf("exit %d, want %d with %q and an ::error:: line\nstdout:\n%s\nstderr:\n%s", code, tt.code, tt.want, stdout, stderr)
			}
		})
	}
}

// TestActionRounds: on the pull request the Action opened, a /capsule
// command and then a review comment each add one commit made from what
// was asked, the review's thread gets a reply, and the review's own
// delivery afterwards makes no second commit nor reply.
func TestActionRounds(t *testing.T) {
	sandboxtest.Engine(t)
	const (
		asked    = "mention the mean and the median in the module's docstring"
		reviewed = "say in the docstring what an empty list gives"
	)
	docstring := func(s string) string {
		return strings.Replace(calculatortest.RightStats, `"""Statistics over lists of numbers."""`, `"""`+s+`"""`, 1)
	}
	round1, round2 := docstring("Statistics over lists of numbers: mean and median."), docstring("Statistics over lists of numbers: mean and median (0.0 for an empty list).")
	w := newActionWorld(t, fakeopenai.Sequence(
		fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)),
		fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats)),
		fakeopenai.Reply(answerOver("calc/stats.py", calculatortest.RightStats, round1)),
		fakeopenai.Reply(answerOver("calc/stats.py", round1, round2))), "reproduce: off\n")
	run := func(what, want string) string {
		t.Helper()
		code, stdout, stderr := capsule(t, "action")
		if code != exitOK || !strings.Contains(stdout, want) {
			t.Fatalf("%s: exit %d, want 0 and %q\nstdout:\n%s\nstderr:\n%s", what, code, want, stdout, stderr)
		}
		return stdout
	}
	head := func() fakegithub.Commit {
		t.Helper()
		c, err := w.repo.Commit("capsule/issue-5")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	w.event(t, "alice", "capsule")
	run("the issue", "solved")
	prs := w.repo.PullRequests()
	if len(prs) != 1 {
		t.Fatalf("pull requests %+v, want one", prs)
	}
	pr, first := prs[0].Number, head()

	id := w.command(t, pr, "alice", "/capsule "+asked)
	run("the command", "the round pushed")
	second := head()
	files, _ := w.repo.Files("capsule/issue-5")
	if !slices.Equal(second.Parents, []string{first.SHA}) || files["calc/stats.py"] != round1 ||
		!strings.Contains(second.Message, fmt.Sprintf("Capsule-Round: comment:%d", id)) {
		t.Errorf("after the command the branch is at %+v (over %s), want one commit over the first with the round's change", second, first.SHA)
	}
	if prompt := lastPrompt(t, w.model); !strings.Contains(prompt, asked) {
		t.Errorf("the round's prompt lacks the request %q:\n%s", asked, prompt)
	}

	rv := w.repo.AddReview(pr, fakegithub.Review{User: "alice", Comments: []fakegithub.ReviewComment{
		{Path: "calc/stats.py", Line: 1, DiffHunk: "@@ -1 +1 @@\n+\"\"\"Statistics over lists of numbers: mean and median.\"\"\"", Body: reviewed},
	}})
	thread := rv.Comments[0].ID
	w.reviewEvent(t, pr, "capsule/issue-5", "alice", rv.ID, thread)
	run("the review comment", "the round pushed")
	third := head()
	if !slices.Equal(third.Parents, []string{second.SHA}) || !strings.Contains(third.Message, fmt.Sprintf("Capsule-Round: review:%d", rv.ID)) {
		t.Errorf("after the review the branch is at %+v, want one commit over %s", third, second.SHA)
	}
	if prompt := lastPrompt(t, w.model); !strings.Contains(prompt, reviewed) || !strings.Contains(prompt, "calc/stats.py") {
		t.Errorf("the round's prompt lacks the review comment and its file:\n%s", prompt)
	}
	replies := func() int {
		n := 0
		for _, c := range w.repo.ReviewComments(pr) {
			if c.InReplyTo == thread {
				n++
			}
		}
		return n
	}
	if n := replies(); n != 1 {
		t.Errorf("%d replies in the review's thread, want 1", n)
	}

	// The review's own delivery is the same round: it is done, and the
	// model is not asked again.
	calls := len(w.model.Requests())
	w.reviewEvent(t, pr, "capsule/issue-5", "alice", rv.ID, 0)
	run("the review", "the round pushed "+third.SHA)
	if again := head(); again.SHA != third.SHA || replies() != 1 || len(w.model.Requests()) != calls {
		t.Errorf("the review's delivery after its comment's: head %s (want %s), %d replies (want 1), %d model calls (want %d)",
			again.SHA, third.SHA, replies(), len(w.model.Requests()), calls)
	}
}

// answerOver is a model answer that changes the file at path from old to
// new in SEARCH/REPLACE blocks.
func answerOver(path, old, new string) string {
	f := edits.FileEdit{Path: path, Blocks: edits.BlocksFor(old, new)}
	return programmer.FormatFiles([]edits.FileEdit{f}) + "\n"
}

// lastPrompt is the user messages of the model's last chat request.
func lastPrompt(t *testing.T, model *fakeopenai.Server) string {
	t.Helper()
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model was asked nothing")
	}
	var b strings.Builder
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "user" {
			b.WriteString(m.Content)
		}
	}
	return b.String()
}

// TestActionRoundsNotCapsules: events the Action ends with nothing to do
// before it needs the model or the engine (both broken here): a bot's
// review comment, and a command on a pull request that does not exist or
// is not from a capsule/issue-N branch.
func TestActionRoundsNotCapsules(t *testing.T) {
	w := newActionWorld(t, fakeopenai.Sequence(fakeopenai.Reply("")), "")
	t.Setenv("INPUT_BASE-URL", "::not a url")
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	if _, err := w.repo.Push("feature", "a human's change", map[string]string{"NOTES.md": "notes\n"}); err != nil {
		t.Fatal(err)
	}
	gh, err := w.gh.Client(nil).Clone(github.WithAuthToken("ghs_workflow"))
	if err != nil {
		t.Fatal(err)
	}
	human, _, err := gh.PullRequests.Create(context.Background(), "octo", "calculator", &github.NewPullRequest{Title: github.Ptr("notes"), Head: github.Ptr("feature"), Base: github.Ptr("main")})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		send func(t *testing.T)
		want string
	}{
		{"a bot's review comment", func(t *testing.T) { w.reviewEvent(t, human.GetNumber(), "capsule/issue-5", "renovate[bot]", 1, 2) }, "nothing to do: sender is a bot"},
		{"a review of another branch", func(t *testing.T) { w.reviewEvent(t, human.GetNumber(), "feature", "alice", 1, 2) }, "is not a capsule/issue-N branch"},
		{"a command on a missing pull request", func(t *testing.T) { w.command(t, 77, "alice", "/capsule retry") }, "nothing to do: pull request #77 does not exist"},
		{"a command on another branch's pull request", func(t *testing.T) { w.command(t, human.GetNumber(), "alice", "/capsule retry") },
			fmt.Sprintf("nothing to do: pull request #%d is not from a capsule/issue-N branch", human.GetNumber())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.send(t)
			code, stdout, stderr := capsule(t, "action")
			if code != exitOK || !strings.Contains(stdout, tt.want) {
				t.Errorf("exit %d, want 0 with %q\nstdout:\n%s\nstderr:\n%s", code, tt.want, stdout, stderr)
			}
			if !strings.Contains(readFile(t, w.output), "outcome=none\n") {
				t.Errorf("outputs do not say outcome=none")
			}
		})
	}
}

// workflowRun sends the completed event of run, failed on pull request
// pr's head, as sent by Capsule's bot (the pusher of the commit it ran on).
func (w *actionWorld) workflowRun(t *testing.T, pr fakegithub.PullRequest, run fakegithub.WorkflowRun) {
	t.Helper()
	w.send(t, "workflow_run", webhooktest.Payload(t, "workflow_run__completed.with-pull-requests.payload.json", func(m map[string]any) {
		webhooktest.Retarget(m, "octo", "calculator", pr.Number, "capsule-app[bot]", 0)
		delete(m, "issue")
		webhooktest.Object(m, "sender")["type"] = "Bot"
		repoID := webhooktest.Object(m, "repository")["id"]
		r := webhooktest.Object(m, "workflow_run")
		r["id"], r["conclusion"], r["head_sha"], r["head_branch"] = run.ID, "failure", pr.HeadSHA, pr.Head
		p := r["pull_requests"].([]any)[0].(map[string]any)
		p["number"] = pr.Number
		webhooktest.Object(p, "head")["ref"] = pr.Head
		webhooktest.Object(p, "head", "repo")["id"] = repoID
		webhooktest.Object(p, "base", "repo")["id"] = repoID
	}))
}

// TestActionSkippedRoundNeedsNoSandbox: a CI round the job does not make
// (ci_rounds: 0) ends the step with 0 and the note on the pull request,
// without the model endpoint or the Docker engine (both unreachable here).
func TestActionSkippedRoundNeedsNoSandbox(t *testing.T) {
	w := newActionWorld(t, fakeopenai.Sequence(fakeopenai.Reply("")), "ci_rounds: 0\n")
	t.Setenv("INPUT_BASE-URL", "http://127.0.0.1:1/v1")
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	head, err := w.repo.Push("capsule/issue-5", "Fix #5\n\nCapsule-Issue: 5", map[string]string{"calc/stats.py": calculatortest.RightStats})
	if err != nil {
		t.Fatal(err)
	}
	gh, err := w.gh.Client(nil).Clone(github.WithAuthToken("ghs_workflow"))
	if err != nil {
		t.Fatal(err)
	}
	opened, _, err := gh.PullRequests.Create(context.Background(), "octo", "calculator",
		&github.NewPullRequest{Title: github.Ptr("Fix #5"), Head: github.Ptr("capsule/issue-5"), Base: github.Ptr("main")})
	if err != nil {
		t.Fatal(err)
	}
	pr := fakegithub.PullRequest{Number: opened.GetNumber(), Head: "capsule/issue-5", HeadSHA: head}
	w.workflowRun(t, pr, w.repo.AddActionsRun(fakegithub.WorkflowRun{Name: "CI", HeadBranch: pr.Head, HeadSHA: head, Event: "pull_request", Conclusion: "failure",
		Jobs: []fakegithub.WorkflowJob{{Name: "test", Conclusion: "failure", Log: "##[group]Run make\nboom\n##[error]failed\n"}}}))
	code, stdout, stderr := capsule(t, "action")
	if code != exitOK || !strings.Contains(stdout, "skipped: CI rounds are off") {
		t.Fatalf("exit %d, want 0 and the skip\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if comments := w.repo.Comments(pr.Number); len(comments) != 1 || !strings.Contains(comments[0].Body, "CI rounds are off") {
		t.Errorf("comments on the pull request %+v, want the note once", comments)
	}
	if strings.Contains(stdout, "Sandbox image") || len(w.model.Requests()) != 0 {
		t.Errorf("the sandbox image was built or the model asked:\n%s", stdout)
	}
}

// TestActionCIRound: a failed workflow run on the head of the pull request
// the Action opened (its delivery sent by Capsule's own bot, as CI runs
// are) makes a CI round whose prompt holds the failing step's log, a token
// in it redacted, and whose commit names the run.
func TestActionCIRound(t *testing.T) {
	sandboxtest.Engine(t)
	token := "ghp_" + strings.Repeat("A1b2", 9)
	fixed := strings.Replace(calculatortest.RightStats, `"""Statistics over lists of numbers."""`, `"""Statistics over lists of numbers (CI-clean)."""`, 1)
	w := newActionWorld(t, fakeopenai.Sequence(
		fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)),
		fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats)),
		fakeopenai.Reply(answerOver("calc/stats.py", calculatortest.RightStats, fixed))), "reproduce: off\n")
	w.event(t, "alice", "capsule")
	if code, stdout, stderr := capsule(t, "action"); code != exitOK {
		t.Fatalf("the issue: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	pr := w.repo.PullRequests()[0]
	run := w.repo.AddActionsRun(fakegithub.WorkflowRun{
		Name: "CI", HeadBranch: pr.Head, HeadSHA: pr.HeadSHA, Event: "pull_request", Conclusion: "failure",
		Jobs: []fakegithub.WorkflowJob{{Name: "docs", Conclusion: "failure",
			Log: "##[group]Run make docs\nchecking with " + token + "\ndocs/stats.md: the module docstring does not say CI-clean\n##[error]Process completed with exit code 1.\n"}},
	})
	w.workflowRun(t, pr, run)
	code, stdout, stderr := capsule(t, "action")
	if code != exitOK || !strings.Contains(stdout, "the round pushed") {
		t.Fatalf("the CI round: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	head, err := w.repo.Commit(pr.Head)
	if err != nil || !slices.Equal(head.Parents, []string{pr.HeadSHA}) || !strings.Contains(head.Message, fmt.Sprintf("Capsule-Round: run:%d", run.ID)) {
		t.Errorf("the branch is at %+v (%v), want one commit over %s naming run %d", head, err, pr.HeadSHA, run.ID)
	}
	prompt := lastPrompt(t, w.model)
	if !strings.Contains(prompt, "the module docstring does not say CI-clean") || strings.Contains(prompt, token) {
		t.Errorf("the prompt lacks the failing step's log, or holds the token:\n%s", prompt)
	}
}
