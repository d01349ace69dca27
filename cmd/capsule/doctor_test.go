package main

import (
	"context"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bot/ghapp"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

// TestDoctorInstallations: doctor reads every installation from a fake
// GitHub that checks each request against GitHub's OpenAPI description,
// and names, per installation, what it has not accepted and which rounds
// will not work; what the App itself does not ask for is said once.
func TestDoctorInstallations(t *testing.T) {
	key, keyPEM := fakegithub.NewAppKey(t)
	// The App asks for all but what Actions runs need.
	asked := map[string]string{"contents": "write", "issues": "write", "pull_requests": "write", "metadata": "read", "checks": "read"}
	gh := fakegithub.New(t, fakegithub.WithPrefix("/api/v3"), fakegithub.WithApp(31, &key.PublicKey),
		fakegithub.WithAppGrants(asked, []string{"issues", "issue_comment", "pull_request_review", "pull_request_review_comment", "check_suite"}))
	gh.AddInstallation(5, "octo/calculator") // holds what the App asks for
	gh.AddInstallation(6, "acme/api")        // accepted the App before rounds
	gh.AddInstallation(7, "solo/tool")       // issues read only
	gh.AddInstallation(8, "other/lib")       // holds what the App asks for
	before := map[string]string{"contents": "write", "issues": "write", "pull_requests": "write", "metadata": "read"}
	gh.SetInstallationGrants(6, before, []string{"issues", "issue_comment"})
	gh.SetInstallationGrants(7, map[string]string{"contents": "write", "issues": "read", "pull_requests": "write", "metadata": "read", "checks": "read"},
		[]string{"issues", "issue_comment", "pull_request_review", "pull_request_review_comment", "check_suite"})
	t.Setenv("GITHUB_API_URL", gh.URL())
	t.Setenv("GITHUB_APP_ID", "31")
	t.Setenv("GITHUB_APP_PRIVATE_KEY", string(keyPEM))
	t.Setenv("GITHUB_APP_PRIVATE_KEY_FILE", "")
	t.Setenv("GITHUB_WEBHOOK_SECRET", "s")

	var out strings.Builder
	if failed := printChecks(&out, githubAppChecks(context.Background())); failed != 1 {
		t.Errorf("%d failed, want 1 (the installation without issues write)", failed)
	}
	text := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).ReplaceAllString(out.String(), "http://github.test")
	goldenfile.Check(t, filepath.Join("testdata", "doctor-installations.golden"), text, *update)
}

func TestGrantChecks(t *testing.T) {
	var all ghapp.Grants
	all.Permissions = map[string]string{}
	for _, n := range ghapp.Needs {
		if n.Event != "" {
			all.Events = append(all.Events, n.Event)
		} else {
			all.Permissions[n.Permission] = n.Level
		}
	}
	noReviews := ghapp.Grants{Permissions: all.Permissions, Events: []string{"issues", "issue_comment", "check_suite", "workflow_run"}}
	tests := []struct {
		name  string
		app   ghapp.Grants
		insts []ghapp.Installation
		want  []string // "status name info" of each check, info shortened to a prefix
	}{
		{"installed nowhere", all, nil, []string{"- installations the App is installed nowhere yet"}},
		{"all complete", all, []ghapp.Installation{{ID: 1, Grants: all}, {ID: 2, Grants: all}},
			[]string{"ok installations 2 of 2 hold all that the App asks for"}},
		{"suspended", all, []ghapp.Installation{{ID: 1, Account: "octo", Suspended: true, Grants: all}},
			[]string{"WARN installation octo (installation 1) is suspended"}},
		{"the App lacks review events: said once, not per installation", noReviews,
			[]ghapp.Installation{{ID: 1, Grants: noReviews}, {ID: 2, Grants: noReviews}},
			[]string{"WARN app permissions the App lacks pull_request_review events, pull_request_review_comment events: review rounds will not work",
				"ok installations 2 of 2"}},
		{"an installation lacks commands", all, []ghapp.Installation{{ID: 3, Account: "acme", Grants: ghapp.Grants{Permissions: all.Permissions, Events: []string{"issues", "pull_request_review", "pull_request_review_comment", "check_suite", "workflow_run"}}}},
			[]string{"WARN installation acme (installation 3) lacks issue_comment events: /capsule commands will not work"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := grantChecks(tt.app, tt.insts)
			if len(got) != len(tt.want) {
				t.Fatalf("%d checks %+v, want %d", len(got), got, len(tt.want))
			}
			if failed := printChecks(io.Discard, got); failed != 0 {
				t.Errorf("%d checks failed, want none: lost rounds are warnings", failed)
			}
			for i, c := range got {
				if line := c.status() + " " + c.name + " " + c.info; !strings.HasPrefix(line, tt.want[i]) {
					t.Errorf("check %d: %q, want it to start %q", i, line, tt.want[i])
				}
			}
		})
	}
}

// TestDoctorGitHubHints: doctor's hint tells credentials GitHub refuses
// from a GitHub that does not answer.
func TestDoctorGitHubHints(t *testing.T) {
	key, keyPEM := fakegithub.NewAppKey(t)
	_, otherPEM := fakegithub.NewAppKey(t)
	tests := []struct {
		name      string
		pem       []byte
		down      bool
		info, fix string
	}{
		{"refused", otherPEM, false, "refuses the App's credentials", "GitHub answered, and refused them"},
		{"unreachable", keyPEM, true, "unreachable", "check the network"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := fakegithub.New(t, fakegithub.WithPrefix("/api/v3"), fakegithub.WithApp(31, &key.PublicKey))
			if tt.down {
				gh.Down(0)
			}
			t.Setenv("GITHUB_API_URL", gh.URL())
			t.Setenv("GITHUB_APP_ID", "31")
			t.Setenv("GITHUB_APP_PRIVATE_KEY", string(tt.pem))
			t.Setenv("GITHUB_APP_PRIVATE_KEY_FILE", "")
			t.Setenv("GITHUB_WEBHOOK_SECRET", "s")
			checks := githubAppChecks(context.Background())
			if len(checks) != 1 || checks[0].ok || !strings.Contains(checks[0].info, tt.info) || !strings.Contains(checks[0].fix, tt.fix) {
				t.Errorf("checks = %+v, want one failed check saying %q with the fix %q", checks, tt.info, tt.fix)
			}
		})
	}
}
