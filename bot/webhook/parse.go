package webhook

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/bot/work"
)

// statusLabelPrefix starts the names of the labels Capsule sets on issues
// itself to show progress; adding one must not start work.
const statusLabelPrefix = "capsule:"

// Parse reads a payload of event event (the X-GitHub-Event header, or
// GITHUB_EVENT_NAME in the Action) and returns the Request it carries.
// Delivery is left for the caller to set.
//
// Work on an issue: an issues "labeled" delivery gives a TriggerLabel
// Request (which label names start work is the caller's decision), and an
// issue_comment "created" on an issue whose comment is the retry command
// a TriggerRetry Request.
//
// Rounds on a pull request (see work.Trigger.Round), which set
// PullRequest and Round:
//   - pull_request_review "submitted" and pull_request_review_comment
//     "created": TriggerReview, Round "review:<review id>" for both, so
//     that a review and its comments make one round. An approval without
//     a body starts nothing.
//   - issue_comment "created" on a pull request whose first non-empty
//     line starts with "/capsule" (see work.PullRequestCommand):
//     TriggerCommand, Round "comment:<comment id>". Its Issue is 0: the
//     payload does not say which issue the pull request answers, and the
//     caller must find out (see parseCommand).
//   - workflow_run and check_suite "completed" with conclusion "failure"
//     or "timed_out": TriggerCI, Round "run:<workflow run id>" or
//     "suite:<check suite id>", HeadSHA the commit the checks ran on, the
//     pull request the one of the payload's pull_requests that is
//     Capsule's. A check suite of GitHub Actions is ignored in favour of
//     its workflow run (see parseCheckSuite).
//
// A round's pull request must be Capsule's as far as the payload can
// tell: its head is a branch capsule/issue-N (N, positive, becomes
// Issue) of the repository itself, not of a fork. The payload cannot
// prove more: the caller checks the pull request against what it stored
// when it opened it. Reviews and commands from a bot never start a round;
// CI deliveries are not judged by their sender, often Capsule itself.
//
// It returns an *Ignored error for a delivery that starts no work: another
// event or action (an edited comment does not re-trigger), a sender of
// type "Bot" (or whose login ends in "[bot]") on the events above but the
// CI ones, a labeled issue that is a pull request, a label named
// "capsule:..." (the bot's own status labels, compared case-insensitively),
// a comment that is not a command, a check that did not fail, or a pull
// request that is not Capsule's by the rules above. Along with an
// *Ignored error the Request holds what of the repository, issue, sender
// and installation the payload has valid, for logging; its Trigger and
// Label are empty and it must not be acted on.
//
// The retry command on an issue is a comment whose first non-empty line
// is exactly the two words "/capsule retry", compared case-insensitively,
// with any spaces or tabs around and between them. Text after the two
// words on that line disqualifies the comment (so that arguments a later
// version may add are not mistaken for a plain retry); later lines may
// hold anything, such as the reason for the retry.
//
// Any other error wraps ErrMalformed: invalid JSON, a missing action, or,
// for the actions Parse handles, a missing or invalid required field: the
// repository's owner login and name (letters, digits, '.', '-' and '_'
// only, so that no path or URL built from them can escape), the issue and
// its positive number, the sender's login, the label of "labeled", the
// comment of issue_comment, the pull request and its positive number, the
// review's id, the comment's id and its review's id, the workflow run or
// check suite with its id and head SHA.
func Parse(event string, payload []byte) (work.Request, error) {
	switch event {
	case "issues":
		return parseIssues(payload)
	case "issue_comment":
		return parseIssueComment(payload)
	case "pull_request_review":
		return parseReview(payload)
	case "pull_request_review_comment":
		return parseReviewComment(payload)
	case "workflow_run":
		return parseWorkflowRun(payload)
	case "check_suite":
		return parseCheckSuite(payload)
	}
	return work.Request{}, ignoredf("event %q is not handled", event)
}

func parseIssues(payload []byte) (work.Request, error) {
	var ev github.IssuesEvent
	if err := decode("issues", payload, &ev); err != nil {
		return work.Request{}, err
	}
	r, err := request("issues", ev.Repo, ev.Issue, ev.Sender, ev.Installation)
	switch a := ev.GetAction(); {
	case a == "":
		return work.Request{}, malformedf("issues", "action missing")
	case a != "labeled":
		return r, ignoredf("issues action %q is not handled", a)
	case err != nil:
		return work.Request{}, err
	}
	label := ev.GetLabel().GetName()
	if label == "" {
		return work.Request{}, malformedf("issues", "label name missing")
	}
	if err := skip(ev.Sender, ev.Issue); err != nil {
		return r, err
	}
	if hasPrefixFold(label, statusLabelPrefix) {
		return r, ignoredf("label %q is a Capsule status label", label)
	}
	r.Trigger, r.Label = work.TriggerLabel, label
	return r, nil
}

func parseIssueComment(payload []byte) (work.Request, error) {
	var ev github.IssueCommentEvent
	if err := decode("issue_comment", payload, &ev); err != nil {
		return work.Request{}, err
	}
	r, err := request("issue_comment", ev.Repo, ev.Issue, ev.Sender, ev.Installation)
	switch a := ev.GetAction(); {
	case a == "":
		return work.Request{}, malformedf("issue_comment", "action missing")
	case a != "created":
		return r, ignoredf("issue_comment action %q is not handled", a)
	case err != nil:
		return work.Request{}, err
	}
	if ev.Comment == nil {
		return work.Request{}, malformedf("issue_comment", "comment missing")
	}
	if ev.Issue.IsPullRequest() {
		return parseCommand(r, ev.Comment, ev.Sender)
	}
	if err := skip(ev.Sender, ev.Issue); err != nil {
		return r, err
	}
	if !isRetryCommand(ev.Comment.GetBody()) {
		return r, &Ignored{Reason: "comment is not a command"}
	}
	r.Trigger = work.TriggerRetry
	return r, nil
}

// request checks the fields every Request about an issue needs and
// returns one holding them, without a Trigger, or the zero Request and an
// error.
func request(event string, repo *github.Repository, issue *github.Issue, sender *github.User, inst *github.Installation) (work.Request, error) {
	r, err := repoRequest(event, repo, sender, inst)
	switch {
	case err != nil:
		return work.Request{}, err
	case issue == nil:
		return work.Request{}, malformedf(event, "issue missing")
	case issue.GetNumber() <= 0:
		return work.Request{}, malformedf(event, "issue number %d missing or invalid", issue.GetNumber())
	}
	r.Issue = issue.GetNumber()
	return r, nil
}

// repoRequest checks the repository and sender every Request needs and
// returns one holding them and the installation, or the zero Request and
// an error.
func repoRequest(event string, repo *github.Repository, sender *github.User, inst *github.Installation) (work.Request, error) {
	owner, name := repo.GetOwner().GetLogin(), repo.GetName()
	switch {
	case repo == nil:
		return work.Request{}, malformedf(event, "repository missing")
	case !validName(owner):
		return work.Request{}, malformedf(event, "repository owner login %q missing or invalid", owner)
	case !validName(name):
		return work.Request{}, malformedf(event, "repository name %q missing or invalid", name)
	case sender.GetLogin() == "":
		return work.Request{}, malformedf(event, "sender login missing")
	}
	return work.Request{
		Event:        event,
		Installation: inst.GetID(),
		Owner:        owner,
		Repo:         name,
		Sender:       sender.GetLogin(),
	}, nil
}

// skip returns an *Ignored error for the senders and issues that never
// start work on an issue whatever the action.
func skip(sender *github.User, issue *github.Issue) error {
	if isBot(sender) {
		return &Ignored{Reason: "sender is a bot"}
	}
	if issue.IsPullRequest() {
		return &Ignored{Reason: "issue is a pull request"}
	}
	return nil
}

// isBot reports whether a user is a bot (see work.Account.Bot).
func isBot(u *github.User) bool {
	return work.Account{Login: u.GetLogin(), Type: u.GetType()}.Bot()
}

// isRetryCommand reports whether a comment body is the retry command: its
// first non-empty line is the words "/capsule retry" and nothing else,
// compared case-insensitively, spaces and tabs around and between them
// allowed.
func isRetryCommand(body string) bool {
	for line := range strings.Lines(body) {
		words := strings.Fields(line)
		if len(words) == 0 {
			continue
		}
		return len(words) == 2 && strings.EqualFold(words[0], "/capsule") && strings.EqualFold(words[1], "retry")
	}
	return false
}

// ParseInstallation reads an installation or installation_repositories
// payload. Delivery is left for the caller to set.
//
// For installation "created" ReposAdded lists the repositories granted, and
// for "deleted" ReposRemoved lists the ones lost; other installation
// actions ("suspend", "unsuspend", "new_permissions_accepted") list none.
// For installation_repositories they are the payload's repositories_added
// and repositories_removed.
//
// Another event gives an *Ignored error; invalid JSON or a missing action or
// installation id an error wrapping ErrMalformed.
func ParseInstallation(event string, payload []byte) (InstallationEvent, error) {
	var (
		action         string
		inst           *github.Installation
		added, removed []*github.Repository
	)
	switch event {
	case "installation":
		var ev github.InstallationEvent
		if err := decode(event, payload, &ev); err != nil {
			return InstallationEvent{}, err
		}
		action, inst = ev.GetAction(), ev.Installation
		switch action {
		case "created":
			added = ev.Repositories
		case "deleted":
			removed = ev.Repositories
		}
	case "installation_repositories":
		var ev github.InstallationRepositoriesEvent
		if err := decode(event, payload, &ev); err != nil {
			return InstallationEvent{}, err
		}
		action, inst = ev.GetAction(), ev.Installation
		added, removed = ev.RepositoriesAdded, ev.RepositoriesRemoved
	default:
		return InstallationEvent{}, ignoredf("event %q is not an installation event", event)
	}
	if action == "" {
		return InstallationEvent{}, malformedf(event, "action missing")
	}
	if inst.GetID() == 0 {
		return InstallationEvent{}, malformedf(event, "installation id missing")
	}
	account := inst.GetAccount().GetLogin()
	return InstallationEvent{
		Event:        event,
		Action:       action,
		Installation: inst.GetID(),
		Account:      account,
		ReposAdded:   fullNames(account, added),
		ReposRemoved: fullNames(account, removed),
	}, nil
}

// fullNames returns the "owner/name" of each repository, made from the
// account login when the payload gives only the name.
func fullNames(account string, repos []*github.Repository) []string {
	var names []string
	for _, r := range repos {
		switch {
		case r.GetFullName() != "":
			names = append(names, r.GetFullName())
		case r.GetName() != "" && account != "":
			names = append(names, account+"/"+r.GetName())
		}
	}
	return names
}

func decode(event string, payload []byte, v any) error {
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("%w: decode %s payload: %w", ErrMalformed, event, err)
	}
	return nil
}

func malformedf(event, format string, args ...any) error {
	return fmt.Errorf("%w: %s payload: %s", ErrMalformed, event, fmt.Sprintf(format, args...))
}

func ignoredf(format string, args ...any) *Ignored {
	return &Ignored{Reason: fmt.Sprintf(format, args...)}
}

// validName reports whether s can be a GitHub account login or repository
// name: 1 to 100 letters, digits, '.', '-' and '_', and not "." or "..".
// It keeps path separators and the like out of the names other code
// builds paths and URLs from.
func validName(s string) bool {
	if s == "" || len(s) > 100 || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
