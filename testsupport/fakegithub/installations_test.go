package fakegithub

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v88/github"
)

// TestListInstallations: GET /app/installations pages through the App's
// installations, revoked ones left out, each with the permissions and
// events it holds (the App's unless set), and tokens say the same.
func TestListInstallations(t *testing.T) {
	key := appKey(t)
	s := newServer(t, WithApp(42, &key.PublicKey),
		WithAppGrants(map[string]string{"contents": "write", "checks": "read"}, []string{"issues", "check_suite"}))
	s.AddRepo("octo", "calc", nil)
	for id := int64(1); id <= 5; id++ {
		s.AddInstallation(id, "octo/calc")
	}
	s.RevokeInstallation(4)
	s.SetInstallationGrants(2, map[string]string{"contents": "write"}, []string{"issues"})
	s.SetInstallationGrants(99, map[string]string{"contents": "read"}, nil) // unknown: nothing
	ctx := context.Background()
	app := s.Client(&http.Client{Transport: ghinstallation.NewAppsTransportFromPrivateKey(http.DefaultTransport, 42, key)})

	var got []*github.Installation
	opts := &github.ListOptions{PerPage: 2}
	for pages := 0; ; pages++ {
		page, resp, err := app.Apps.ListInstallations(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
		if resp.NextPage == 0 {
			if pages != 1 {
				t.Errorf("%d pages, want 2 of 2 and 1", pages+1)
			}
			break
		}
		opts.Page = resp.NextPage
	}
	var ids []int64
	for _, inst := range got {
		ids = append(ids, inst.GetID())
		wantChecks, wantEvents := "read", []string{"issues", "check_suite"}
		if inst.GetID() == 2 {
			wantChecks, wantEvents = "", []string{"issues"}
		}
		if inst.GetPermissions().GetChecks() != wantChecks || !slices.Equal(inst.Events, wantEvents) {
			t.Errorf("installation %d: checks %q, events %v; want %q, %v", inst.GetID(), inst.GetPermissions().GetChecks(), inst.Events, wantChecks, wantEvents)
		}
	}
	if !slices.Equal(ids, []int64{1, 2, 3, 5}) {
		t.Errorf("installations %v, want 1 2 3 5", ids)
	}
	a, _, err := app.Apps.Get(ctx, "")
	if err != nil || a.GetPermissions().GetChecks() != "read" || !slices.Equal(a.Events, []string{"issues", "check_suite"}) {
		t.Errorf("Apps.Get = %+v, %v; want the App's grants", a, err)
	}
	tok, _, err := app.Apps.CreateInstallationToken(ctx, 2, &github.InstallationTokenOptions{})
	if err != nil || tok.GetPermissions().GetChecks() != "" || tok.GetPermissions().GetContents() != "write" {
		t.Errorf("token of installation 2 = %+v, %v; want its own grants", tok.GetPermissions(), err)
	}
	if _, _, err := tokenClient(s, staticToken).Apps.ListInstallations(ctx, nil); err == nil {
		t.Error("ListInstallations with a token: want an error (it takes the App's JWT)")
	}
}

// TestDefaultGrants: by default the App and its installations hold what
// Capsule uses, rounds included.
func TestDefaultGrants(t *testing.T) {
	key := appKey(t)
	s := newServer(t, WithApp(42, &key.PublicKey))
	s.AddInstallation(7)
	app := s.Client(&http.Client{Transport: ghinstallation.NewAppsTransportFromPrivateKey(http.DefaultTransport, 42, key)})
	insts, _, err := app.Apps.ListInstallations(context.Background(), nil)
	if err != nil || len(insts) != 1 {
		t.Fatalf("ListInstallations = %v, %v", insts, err)
	}
	p := insts[0].GetPermissions()
	if p.GetActions() != "read" || p.GetChecks() != "read" || p.GetPullRequests() != "write" || !slices.Contains(insts[0].Events, "workflow_run") {
		t.Errorf("default installation grants %+v, events %v", p, insts[0].Events)
	}
}
