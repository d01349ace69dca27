package webhook

import (
	"errors"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bot/work"
)

// Values of the recorded payloads the round tests edit.
const (
	helloWorldID = 186853002 // Codertocat/Hello-World
	octoRepoID   = 300029405 // octo-org/octo-repo
	prHead       = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	runHead      = "3484a3fb816e0859fd6e1cea078d76385ff50625" // workflow_run's head_sha
)

// onCapsuleBranch moves a payload's pull request to Capsule's branch of
// issue 7.
var onCapsuleBranch = withHeadRef("capsule/issue-7")

// octoRun is the recorded failing workflow run on Capsule's pull request
// #2 of octo-org/octo-repo: the recording's pull request comes from
// another repository, so both its ends are moved into the run's.
var octoRun = all(onCapsuleBranch, withHeadRepo(octoRepoID), withBaseRepo(octoRepoID), withConclusion("failure"))

func TestParseRounds(t *testing.T) {
	review := work.Request{
		Trigger: work.TriggerReview, Installation: 1, Owner: "Codertocat", Repo: "Hello-World",
		Issue: 7, Sender: "Codertocat", PullRequest: 2, Round: "review:237895671", HeadSHA: prHead,
	}
	with := func(r work.Request, event string, change func(*work.Request)) work.Request {
		r.Event = event
		if change != nil {
			change(&r)
		}
		return r
	}
	tests := []struct {
		name, file string
		edit       func(map[string]any)
		want       work.Request
	}{
		{"review with line comments", "pull_request_review__submitted.payload.json", onCapsuleBranch,
			with(review, "pull_request_review", nil)},
		{"review of an organization's repository", "pull_request_review__submitted.with-organization.payload.json", onCapsuleBranch,
			with(review, "pull_request_review", nil)},
		{"changes requested", "pull_request_review__submitted.payload.json", all(onCapsuleBranch, withReview("changes_requested", "")),
			with(review, "pull_request_review", nil)},
		{"approval with a request", "pull_request_review__submitted.payload.json", all(onCapsuleBranch, withReview("approved", "Also rename x.")),
			with(review, "pull_request_review", nil)},
		{"review comment: its review's round", "pull_request_review_comment__created.payload.json", onCapsuleBranch,
			with(review, "pull_request_review_comment", nil)},
		{"review comment, organization", "pull_request_review_comment__created.with-organization.payload.json", onCapsuleBranch,
			with(review, "pull_request_review_comment", nil)},
		{"ids absent: full names compared", "pull_request_review__submitted.payload.json",
			all(onCapsuleBranch, func(m map[string]any) {
				delete(obj(t, m, "pull_request", "head", "repo"), "id")
				obj(t, m, "pull_request", "head", "repo")["full_name"] = "codertocat/hello-world"
			}),
			with(review, "pull_request_review", nil)},
		{"large issue number", "pull_request_review__submitted.payload.json", withHeadRef("capsule/issue-123456789"),
			with(review, "pull_request_review", func(r *work.Request) { r.Issue = 123456789 })},
		{"command on a pull request", "issue_comment__created.with-installation.payload.json",
			all(withPullRequest, withComment("/capsule please also handle negative numbers")),
			work.Request{Event: "issue_comment", Trigger: work.TriggerCommand, Installation: 1, Owner: "Codertocat",
				Repo: "Hello-World", Sender: "Codertocat", PullRequest: 1, Round: "comment:492700400"}},
		{"retry on a pull request", "issue_comment__created.payload.json", all(withPullRequest, withComment("\n  /CAPSULE retry\n")),
			work.Request{Event: "issue_comment", Trigger: work.TriggerCommand, Owner: "Codertocat",
				Repo: "Hello-World", Sender: "Codertocat", PullRequest: 1, Round: "comment:492700400"}},
		{"failing workflow run", "workflow_run__completed.with-pull-requests.payload.json", octoRun,
			work.Request{Event: "workflow_run", Trigger: work.TriggerCI, Owner: "octo-org", Repo: "octo-repo",
				Issue: 7, Sender: "Codertocat", PullRequest: 2, Round: "run:289782451", HeadSHA: runHead}},
		{"workflow run out of time", "workflow_run__completed.with-pull-requests.payload.json", all(octoRun, withConclusion("timed_out"), withInstallation(9)),
			work.Request{Event: "workflow_run", Trigger: work.TriggerCI, Installation: 9, Owner: "octo-org", Repo: "octo-repo",
				Issue: 7, Sender: "Codertocat", PullRequest: 2, Round: "run:289782451", HeadSHA: runHead}},
		{"run caused by a bot", "workflow_run__completed.with-pull-requests.payload.json", all(octoRun, withSenderType("Bot"), withSenderLogin("capsule[bot]")),
			work.Request{Event: "workflow_run", Trigger: work.TriggerCI, Owner: "octo-org", Repo: "octo-repo",
				Issue: 7, Sender: "capsule[bot]", PullRequest: 2, Round: "run:289782451", HeadSHA: runHead}},
		{"failing check suite of another app", "check_suite__completed.payload.json", all(onCapsuleBranch, withConclusion("failure")),
			work.Request{Event: "check_suite", Trigger: work.TriggerCI, Owner: "Codertocat", Repo: "Hello-World",
				Issue: 7, Sender: "Codertocat", PullRequest: 2, Round: "suite:118578147", HeadSHA: prHead}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(eventOf(tt.file), edit(t, fixture(t, tt.file), tt.edit))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got != tt.want {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestParseRoundsIgnored(t *testing.T) {
	tests := []struct {
		name, file string
		edit       func(map[string]any)
		reason     string // a part of the reason
	}{
		{"recorded review", "pull_request_review__submitted.payload.json", nil, `branch "changes"`},
		{"recorded review comment", "pull_request_review_comment__created.payload.json", nil, `branch "changes"`},
		{"recorded workflow run", "workflow_run__completed.with-pull-requests.payload.json", nil, `concluded "success"`},
		{"recorded run without pull requests", "workflow_run__completed.payload.json", withConclusion("failure"), "not on a pull request"},
		{"recorded suite of GitHub Actions", "check_suite__completed.1.payload.json", nil, "GitHub Actions"},
		{"GitHub Actions by id", "check_suite__completed.payload.json",
			all(onCapsuleBranch, withConclusion("failure"), withApp(githubActionsApp, "")), "GitHub Actions"},
		{"recorded suite", "check_suite__completed.payload.json", nil, `concluded "success"`},
		{"approval without a body", "pull_request_review__submitted.payload.json", all(onCapsuleBranch, withReview("approved", " \n")), "approval"},
		{"review dismissed", "pull_request_review__submitted.payload.json", all(onCapsuleBranch, func(m map[string]any) { m["action"] = "dismissed" }), `"dismissed"`},
		{"review comment edited", "pull_request_review_comment__created.payload.json", all(onCapsuleBranch, func(m map[string]any) { m["action"] = "edited" }), `"edited"`},
		{"review from a bot", "pull_request_review__submitted.payload.json", all(onCapsuleBranch, withSenderType("Bot")), "bot"},
		{"review from Capsule", "pull_request_review__submitted.payload.json", all(onCapsuleBranch, withSenderLogin("capsule[bot]")), "bot"},
		{"review comment from a bot", "pull_request_review_comment__created.payload.json", all(onCapsuleBranch, withSenderType("Bot")), "bot"},
		{"command from a bot", "issue_comment__created.payload.json", all(withPullRequest, withComment("/capsule retry"), withSenderLogin("github-actions[bot]")), "bot"},
		{"review of a fork's branch", "pull_request_review__submitted.payload.json", all(onCapsuleBranch, withHeadRepo(1)), "another repository"},
		{"review comment of a fork's branch", "pull_request_review_comment__created.payload.json", all(onCapsuleBranch, withHeadRepo(1)), "another repository"},
		{"fork without ids or names", "pull_request_review__submitted.payload.json",
			all(onCapsuleBranch, func(m map[string]any) { m["pull_request"].(map[string]any)["head"].(map[string]any)["repo"] = nil }), "another repository"},
		{"run on a fork's branch", "workflow_run__completed.with-pull-requests.payload.json", all(octoRun, withHeadRepo(helloWorldID)), "not on a pull request"},
		{"run on a pull request into another repository", "workflow_run__completed.with-pull-requests.payload.json", all(octoRun, withBaseRepo(helloWorldID)), "not on a pull request"},
		{"run on another branch", "workflow_run__completed.with-pull-requests.payload.json", all(octoRun, withHeadRef("capsule/issue-7-x")), "not on a pull request"},
		{"run cancelled", "workflow_run__completed.with-pull-requests.payload.json", all(octoRun, withConclusion("cancelled")), `"cancelled"`},
		{"run requested", "workflow_run__completed.with-pull-requests.payload.json", all(octoRun, func(m map[string]any) { m["action"] = "requested" }), `"requested"`},
		{"suite on a fork's branch", "check_suite__completed.payload.json", all(onCapsuleBranch, withConclusion("failure"), withHeadRepo(1)), "not on a pull request"},
		{"comment on a pull request", "issue_comment__created.payload.json", all(withPullRequest, withComment("please /capsule retry")), "not a command"},
		{"command glued to a word", "issue_comment__created.payload.json", all(withPullRequest, withComment("/capsules are small")), "not a command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload := fixture(t, tt.file)
			if tt.edit != nil {
				payload = edit(t, payload, tt.edit)
			}
			got, err := Parse(eventOf(tt.file), payload)
			var ignored *Ignored
			if !errors.As(err, &ignored) {
				t.Fatalf("Parse = %+v, %v; want an *Ignored error", got, err)
			}
			if !strings.Contains(ignored.Reason, tt.reason) {
				t.Errorf("reason %q does not contain %q", ignored.Reason, tt.reason)
			}
			if got.Trigger != "" || got.Round != "" {
				t.Errorf("ignored Request has trigger %q, round %q", got.Trigger, got.Round)
			}
		})
	}
}

func TestParseRoundsMalformed(t *testing.T) {
	review := edit(t, fixture(t, "pull_request_review__submitted.payload.json"), onCapsuleBranch)
	comment := edit(t, fixture(t, "pull_request_review_comment__created.payload.json"), onCapsuleBranch)
	command := edit(t, fixture(t, "issue_comment__created.payload.json"), all(withPullRequest, withComment("/capsule")))
	run := edit(t, fixture(t, "workflow_run__completed.with-pull-requests.payload.json"), octoRun)
	suite := edit(t, fixture(t, "check_suite__completed.payload.json"), all(onCapsuleBranch, withConclusion("failure")))
	tests := []struct {
		name    string
		event   string
		payload []byte
	}{
		{"review without action", "pull_request_review", edit(t, review, func(m map[string]any) { delete(m, "action") })},
		{"review without review", "pull_request_review", edit(t, review, func(m map[string]any) { delete(m, "review") })},
		{"review id 0", "pull_request_review", edit(t, review, func(m map[string]any) { obj(t, m, "review")["id"] = 0 })},
		{"review without pull request", "pull_request_review", edit(t, review, func(m map[string]any) { delete(m, "pull_request") })},
		{"pull request number 0", "pull_request_review", edit(t, review, func(m map[string]any) { obj(t, m, "pull_request")["number"] = 0 })},
		{"review without sender", "pull_request_review", edit(t, review, func(m map[string]any) { delete(m, "sender") })},
		{"review with a bad owner", "pull_request_review", edit(t, review, func(m map[string]any) { obj(t, m, "repository", "owner")["login"] = "a/b" })},
		{"comment without review id", "pull_request_review_comment", edit(t, comment, func(m map[string]any) { delete(obj(t, m, "comment"), "pull_request_review_id") })},
		{"comment without comment", "pull_request_review_comment", edit(t, comment, func(m map[string]any) { delete(m, "comment") })},
		{"command id 0", "issue_comment", edit(t, command, func(m map[string]any) { obj(t, m, "comment")["id"] = 0 })},
		{"run without run", "workflow_run", edit(t, run, func(m map[string]any) { delete(m, "workflow_run") })},
		{"run id 0", "workflow_run", edit(t, run, func(m map[string]any) { obj(t, m, "workflow_run")["id"] = 0 })},
		{"run without head", "workflow_run", edit(t, run, func(m map[string]any) { delete(obj(t, m, "workflow_run"), "head_sha") })},
		{"run without repository", "workflow_run", edit(t, run, func(m map[string]any) { delete(m, "repository") })},
		{"run without action", "workflow_run", edit(t, run, func(m map[string]any) { delete(m, "action") })},
		{"suite without suite", "check_suite", edit(t, suite, func(m map[string]any) { delete(m, "check_suite") })},
		{"suite with pull request number 0", "check_suite", edit(t, suite, func(m map[string]any) { pullRequestOf(m)["number"] = 0 })},
		{"suite pull requests not a list", "check_suite", edit(t, suite, func(m map[string]any) { obj(t, m, "check_suite")["pull_requests"] = "x" })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.event, tt.payload)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Parse = %+v, %v; want an error wrapping ErrMalformed", got, err)
			}
			if got != (work.Request{}) {
				t.Errorf("Request with a malformed payload = %+v, want zero", got)
			}
		})
	}
}
