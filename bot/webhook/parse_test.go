package webhook

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bot/work"
)

// wantRequest builds the Request a payload should give from its own values.
func wantRequest(t *testing.T, event string, trigger work.Trigger, payload []byte) work.Request {
	t.Helper()
	m := decodeMap(t, payload)
	r := work.Request{
		Event:   event,
		Trigger: trigger,
		Owner:   str(t, m, "repository", "owner", "login"),
		Repo:    str(t, m, "repository", "name"),
		Issue:   int(num(t, m, "issue", "number")),
		Sender:  str(t, m, "sender", "login"),
	}
	if _, ok := m["installation"]; ok {
		r.Installation = num(t, m, "installation", "id")
	}
	if trigger == work.TriggerLabel {
		r.Label = str(t, m, "label", "name")
	}
	return r
}

func TestParseRequests(t *testing.T) {
	tests := []struct {
		file    string
		edit    func(map[string]any)
		trigger work.Trigger
	}{
		{"issues__labeled.payload.json", nil, work.TriggerLabel},
		{"issues__labeled.payload.json", withInstallation(42), work.TriggerLabel},
		{"issues__labeled.with-organization.payload.json", withInstallation(7), work.TriggerLabel},
		{"issues__labeled.payload.json", withLabel("capsule"), work.TriggerLabel},
		{"issue_comment__created.payload.json", all(withInstallation(42), withComment("/capsule retry")), work.TriggerRetry},
		{"issue_comment__created.1.payload.json", withComment("/capsule retry"), work.TriggerRetry},
		{"issue_comment__created.with-installation.payload.json", withComment("\r\n  /Capsule RETRY \r\nthe tests flaked"), work.TriggerRetry},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			payload := fixture(t, tt.file)
			if tt.edit != nil {
				payload = edit(t, payload, tt.edit)
			}
			event := eventOf(tt.file)
			got, err := Parse(event, payload)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if want := wantRequest(t, event, tt.trigger, payload); got != want {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestParseIgnored(t *testing.T) {
	tests := []struct {
		name, file string
		event      string // default: the file's
		edit       func(map[string]any)
		reason     string // a part of the reason
	}{
		{name: "opened", file: "issues__opened.payload.json", reason: `action "opened"`},
		{name: "unlabeled", file: "issues__unlabeled.payload.json", reason: `action "unlabeled"`},
		{name: "bot sender", file: "issues__labeled.payload.json", edit: withSenderType("Bot"), reason: "sender is a bot"},
		{name: "bot login", file: "issues__labeled.payload.json",
			edit: func(m map[string]any) { m["sender"].(map[string]any)["login"] = "capsule[bot]" }, reason: "sender is a bot"},
		{name: "status label", file: "issues__labeled.payload.json", edit: withLabel("capsule:done"), reason: "status label"},
		{name: "status label case", file: "issues__labeled.payload.json", edit: withLabel("Capsule:Failed"), reason: "status label"},
		{name: "labeled pull request", file: "issues__labeled.payload.json", edit: withPullRequest, reason: "pull request"},
		{name: "not a command", file: "issue_comment__created.payload.json", reason: "not a command"},
		{name: "command with arguments", file: "issue_comment__created.payload.json", edit: withComment("/capsule retry --force"), reason: "not a command"},
		{name: "command quoted", file: "issue_comment__created.payload.json", edit: withComment("> /capsule retry\n\nDone"), reason: "not a command"},
		{name: "edited", file: "issue_comment__edited.payload.json", edit: withComment("/capsule retry"), reason: `action "edited"`},
		{name: "bot comment", file: "issue_comment__created.payload.json",
			edit: all(withComment("/capsule retry"), withSenderType("Bot")), reason: "sender is a bot"},
		{name: "pull_request", file: "pull_request__labeled.payload.json", reason: `event "pull_request"`},
		{name: "push", file: "push__1.payload.json", reason: `event "push"`},
		{name: "installation", file: "installation__created.payload.json", reason: `event "installation"`},
		{name: "unknown event not decoded", file: "push__1.payload.json", event: "nonsense", reason: `event "nonsense"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload := fixture(t, tt.file)
			if tt.edit != nil {
				payload = edit(t, payload, tt.edit)
			}
			event := tt.event
			if event == "" {
				event = eventOf(tt.file)
			}
			got, err := Parse(event, payload)
			var ignored *Ignored
			if !errors.As(err, &ignored) {
				t.Fatalf("Parse = %+v, %v; want an *Ignored error", got, err)
			}
			if !strings.Contains(ignored.Reason, tt.reason) {
				t.Errorf("reason %q does not contain %q", ignored.Reason, tt.reason)
			}
			if got.Trigger != "" {
				t.Errorf("Request with an *Ignored error has Trigger %q", got.Trigger)
			}
		})
	}
}

func TestParseMalformed(t *testing.T) {
	labeled := fixture(t, "issues__labeled.payload.json")
	comment := edit(t, fixture(t, "issue_comment__created.payload.json"), withComment("/capsule retry"))
	tests := []struct {
		name    string
		event   string
		payload []byte
	}{
		{"empty", "issues", nil},
		{"not JSON", "issues", []byte("payload=%7B%7D")},
		{"truncated", "issues", labeled[:len(labeled)/2]},
		{"trailing data", "issues", append(append([]byte(nil), labeled...), "{}"...)},
		{"array", "issue_comment", []byte(`[]`)},
		{"null", "issues", []byte(`null`)},
		{"only the action", "issues", []byte(`{"action":"labeled"}`)},
		{"number is a string", "issues", edit(t, labeled, func(m map[string]any) { m["issue"].(map[string]any)["number"] = "1" })},
		{"no repository", "issues", edit(t, labeled, func(m map[string]any) { delete(m, "repository") })},
		{"no owner", "issues", edit(t, labeled, func(m map[string]any) { delete(m["repository"].(map[string]any), "owner") })},
		{"owner with a slash", "issues", edit(t, labeled, func(m map[string]any) {
			m["repository"].(map[string]any)["owner"].(map[string]any)["login"] = "../etc"
		})},
		{"repository name ..", "issues", edit(t, labeled, func(m map[string]any) { m["repository"].(map[string]any)["name"] = ".." })},
		{"no issue", "issues", edit(t, labeled, func(m map[string]any) { delete(m, "issue") })},
		{"issue number 0", "issues", edit(t, labeled, func(m map[string]any) { m["issue"].(map[string]any)["number"] = 0 })},
		{"no sender", "issues", edit(t, labeled, func(m map[string]any) { delete(m, "sender") })},
		{"no label", "issues", edit(t, labeled, func(m map[string]any) { delete(m, "label") })},
		{"no comment", "issue_comment", edit(t, comment, func(m map[string]any) { delete(m, "comment") })},
		{"comment without issue", "issue_comment", edit(t, comment, func(m map[string]any) { delete(m, "issue") })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.event, tt.payload)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Parse = %+v, %v; want an error wrapping ErrMalformed", got, err)
			}
			if ignored := (*Ignored)(nil); errors.As(err, &ignored) {
				t.Errorf("malformed payload gave an *Ignored error: %v", err)
			}
			if got != (work.Request{}) {
				t.Errorf("Request with a malformed payload = %+v, want zero", got)
			}
		})
	}
}

func TestIsRetryCommand(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{"/capsule retry", true},
		{"/CAPSULE Retry", true},
		{"  /capsule   retry\t", true},
		{"/capsule\tretry", true},
		{"\n\r\n   \n/capsule retry\r\n", true},
		{"/capsule retry\r\nThe tests flaked, trying again.", true},
		{"", false},
		{"   \n\n", false},
		{"/capsule", false},
		{"/capsule retry now", false},
		{"/capsule retrying", false},
		{"/capsuleretry", false},
		{"capsule retry", false},
		{"please /capsule retry", false},
		{"> /capsule retry", false},
		{"`/capsule retry`", false},
		{"Looks wrong.\n/capsule retry", false},
	}
	for _, tt := range tests {
		if got := isRetryCommand(tt.body); got != tt.want {
			t.Errorf("isRetryCommand(%q) = %v, want %v", tt.body, got, tt.want)
		}
	}
}

func TestParseInstallation(t *testing.T) {
	tests := []struct {
		file    string
		want    InstallationEvent
		wantErr error
	}{
		{file: "installation__created.payload.json", want: InstallationEvent{
			Event: "installation", Action: "created", Installation: 957387, Account: "Codertocat",
			ReposAdded: []string{"Codertocat/Hello-World"},
		}},
		{file: "installation__created.with-requester.payload.json", want: InstallationEvent{
			Event: "installation", Action: "created", Installation: 957387, Account: "Codertocat",
			ReposAdded: []string{"Codertocat/Hello-World"},
		}},
		{file: "installation__deleted.payload.json", want: InstallationEvent{
			Event: "installation", Action: "deleted", Installation: 2, Account: "octocat",
			ReposRemoved: []string{"octocat/Hello-World"},
		}},
		{file: "installation_repositories__added.payload.json", want: InstallationEvent{
			Event: "installation_repositories", Action: "added", Installation: 957387, Account: "Codertocat",
			ReposAdded: []string{"Codertocat/Space"},
		}},
		{file: "installation_repositories__removed.payload.json", want: InstallationEvent{
			Event: "installation_repositories", Action: "removed", Installation: 2, Account: "octocat",
			ReposRemoved: []string{"octocat/Hello-World"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseInstallation(eventOf(tt.file), fixture(t, tt.file))
			if err != nil {
				t.Fatalf("ParseInstallation: %v", err)
			}
			if !equalInstallation(got, tt.want) {
				t.Errorf("ParseInstallation =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}

	t.Run("suspend lists no repositories", func(t *testing.T) {
		payload := edit(t, fixture(t, "installation__created.payload.json"), func(m map[string]any) { m["action"] = "suspend" })
		got, err := ParseInstallation("installation", payload)
		if err != nil || got.Action != "suspend" || got.ReposAdded != nil || got.ReposRemoved != nil {
			t.Errorf("ParseInstallation = %+v, %v", got, err)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		noID := edit(t, fixture(t, "installation__deleted.payload.json"), func(m map[string]any) { delete(m, "installation") })
		noAction := edit(t, fixture(t, "installation__deleted.payload.json"), func(m map[string]any) { delete(m, "action") })
		for _, p := range [][]byte{[]byte("{"), []byte("[]"), noID, noAction} {
			if _, err := ParseInstallation("installation", p); !errors.Is(err, ErrMalformed) {
				t.Errorf("ParseInstallation(%.40q) error = %v, want ErrMalformed", p, err)
			}
		}
	})
	t.Run("other event", func(t *testing.T) {
		_, err := ParseInstallation("issues", fixture(t, "issues__labeled.payload.json"))
		if ignored := (*Ignored)(nil); !errors.As(err, &ignored) {
			t.Errorf("ParseInstallation(issues) error = %v, want *Ignored", err)
		}
	})
}

func equalInstallation(a, b InstallationEvent) bool {
	return a.Delivery == b.Delivery && a.Event == b.Event && a.Action == b.Action &&
		a.Installation == b.Installation && a.Account == b.Account &&
		slices.Equal(a.ReposAdded, b.ReposAdded) && slices.Equal(a.ReposRemoved, b.ReposRemoved)
}

// FuzzParse checks that Parse never panics, and that what it returns keeps
// its promises.
func FuzzParse(f *testing.F) {
	for _, name := range fixtureNames(f) {
		payload := fixture(f, name)
		f.Add(eventOf(name), payload)
		f.Add("issues", payload)
		f.Add("issue_comment", payload)
		f.Add("pull_request_review", payload)
		f.Add("workflow_run", payload)
	}
	for _, p := range []struct {
		event, file string
		edit        func(map[string]any)
	}{
		{"pull_request_review", "pull_request_review__submitted.payload.json", onCapsuleBranch},
		{"pull_request_review_comment", "pull_request_review_comment__created.payload.json", onCapsuleBranch},
		{"issue_comment", "issue_comment__created.payload.json", all(withPullRequest, withComment("/capsule x"))},
		{"workflow_run", "workflow_run__completed.with-pull-requests.payload.json", octoRun},
		{"check_suite", "check_suite__completed.payload.json", all(onCapsuleBranch, withConclusion("failure"))},
	} {
		f.Add(p.event, edit(f, fixture(f, p.file), p.edit))
	}
	f.Add("issues", []byte(`{"action":"labeled","issue":{"number":1},"label":{"name":"x"},"repository":{"name":"r","owner":{"login":"o"}},"sender":{"login":"s"}}`))
	f.Add("issue_comment", []byte(`{"action":"created","issue":{"number":1,"pull_request":null},"comment":{"body":"/capsule retry"},"repository":{"name":"r","owner":{"login":"o"}},"sender":{"login":"s"}}`))
	f.Add("issues", []byte(`null`))
	f.Add("installation", []byte(`{"action":"created","installation":{"id":1,"account":null},"repositories":[null]}`))
	f.Fuzz(func(t *testing.T, event string, payload []byte) {
		r, err := Parse(event, payload)
		var ignored *Ignored
		switch {
		case err == nil:
			switch r.Trigger {
			case work.TriggerLabel, work.TriggerRetry:
				if r.PullRequest != 0 || r.Round != "" || r.HeadSHA != "" {
					t.Errorf("issue Request with round fields: %+v", r)
				}
			case work.TriggerReview, work.TriggerCommand, work.TriggerCI:
				if r.PullRequest <= 0 || r.Round == "" {
					t.Errorf("round Request without its pull request or key: %+v", r)
				}
			default:
				t.Errorf("Request without a trigger: %+v", r)
			}
			// A command's issue is the caller's to find; every other
			// Request names it.
			if (r.Issue <= 0) != (r.Trigger == work.TriggerCommand) {
				t.Errorf("Request's issue %d with trigger %q", r.Issue, r.Trigger)
			}
			if !validName(r.Owner) || !validName(r.Repo) || r.Sender == "" || r.Event != event {
				t.Errorf("Request missing required fields: %+v", r)
			}
			if (r.Trigger == work.TriggerLabel) != (r.Label != "") {
				t.Errorf("Label %q with trigger %q", r.Label, r.Trigger)
			}
		case errors.As(err, &ignored):
			if r.Trigger != "" {
				t.Errorf("ignored Request has trigger %q", r.Trigger)
			}
		case !errors.Is(err, ErrMalformed):
			t.Errorf("error neither *Ignored nor ErrMalformed: %v", err)
		}
		// ParseInstallation reads the same untrusted bytes.
		if _, err := ParseInstallation(event, payload); err != nil && !errors.Is(err, ErrMalformed) && !errors.As(err, &ignored) {
			t.Errorf("ParseInstallation: error neither *Ignored nor ErrMalformed: %v", err)
		}
	})
}
