package ghapp

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/testsupport/fakegithub"
)

func TestGrantsMissing(t *testing.T) {
	all := Grants{
		Permissions: map[string]string{"contents": "write", "issues": "write", "pull_requests": "write", "metadata": "read", "checks": "read", "actions": "read"},
		Events:      []string{"issues", "issue_comment", "pull_request_review", "pull_request_review_comment", "check_suite", "workflow_run"},
	}
	without := func(g Grants, drop ...string) Grants {
		out := Grants{Permissions: map[string]string{}}
		for p, l := range g.Permissions {
			if !slices.Contains(drop, p) {
				out.Permissions[p] = l
			}
		}
		for _, e := range g.Events {
			if !slices.Contains(drop, e) {
				out.Events = append(out.Events, e)
			}
		}
		return out
	}
	with := func(g Grants, permission, level string) Grants {
		g = without(g)
		g.Permissions[permission] = level
		return g
	}
	tests := []struct {
		name string
		g    Grants
		want []string
	}{
		{"everything", all, nil},
		{"admin meets write", with(all, "contents", "admin"), nil},
		{"the App before rounds", without(all, "checks", "actions", "pull_request_review", "pull_request_review_comment", "check_suite", "workflow_run"),
			[]string{"checks read", "actions read", "pull_request_review events", "pull_request_review_comment events", "check_suite events", "workflow_run events"}},
		{"pull requests read only", with(all, "pull_requests", "read"), []string{"pull_requests write"}},
		{"nothing", Grants{}, []string{"contents write", "issues write", "pull_requests write", "metadata read", "checks read", "actions read",
			"issues events", "issue_comment events", "pull_request_review events", "pull_request_review_comment events", "check_suite events", "workflow_run events"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, n := range tt.g.Missing() {
				got = append(got, n.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Missing = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestInstallations reads every installation, over several pages, with
// what each holds, from a fake that checks each request against
// GitHub's OpenAPI description.
func TestInstallations(t *testing.T) {
	key, keyPEM := fakegithub.NewAppKey(t)
	gh := fakegithub.New(t, fakegithub.WithApp(testAppID, &key.PublicKey), fakegithub.WithPrefix("/api/v3"))
	const n = 130 // two pages of 100
	for id := int64(1); id <= n; id++ {
		gh.AddInstallation(id)
	}
	gh.SetInstallationGrants(2, map[string]string{"contents": "write", "issues": "write"}, []string{"issues"})
	apps, err := New(Config{AppID: testAppID, PrivateKey: keyPEM, BaseURL: gh.URL()})
	if err != nil {
		t.Fatal(err)
	}
	insts, err := apps.Installations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != n {
		t.Fatalf("%d installations, want %d", len(insts), n)
	}
	for _, in := range insts {
		missing := len(in.Missing())
		if want := map[bool]int{true: 9, false: 0}[in.ID == 2]; missing != want || in.Account != "capsulehq" || in.URL == "" || in.Suspended {
			t.Errorf("installation %+v: %d missing, want %d", in, missing, want)
		}
	}
	if pages := len(slices.DeleteFunc(gh.Requests(), func(r fakegithub.Request) bool { return r.Operation != "GET /app/installations" })); pages != 2 {
		t.Errorf("%d requests for the list, want 2 pages", pages)
	}
}

func TestGrantsOf(t *testing.T) {
	g, err := GrantsOf(&github.InstallationPermissions{Checks: github.Ptr("read"), PullRequests: github.Ptr("write")}, []string{"check_suite"})
	if err != nil || len(g.Permissions) != 2 || g.Permissions["checks"] != "read" || g.Permissions["pull_requests"] != "write" {
		t.Errorf("GrantsOf = %+v, %v", g, err)
	}
	if g, err := GrantsOf(nil, nil); err != nil || len(g.Missing()) != len(Needs) {
		t.Errorf("GrantsOf(nil) = %+v, %v: want nothing granted", g, err)
	}
}
