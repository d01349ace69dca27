package fakegithub

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/testsupport/testdata"
)

func TestRejectsRequestMissingRequiredField(t *testing.T) {
	collect, violations := collecting()
	s := newServer(t, collect)
	s.AddRepo("octo", "calc", map[string]string{"a.txt": "a\n"})

	status, body := do(t, s, "POST", "repos/octo/calc/git/refs", staticToken, `{"ref": "refs/heads/x"}`)
	if status != http.StatusUnprocessableEntity {
		t.Errorf("status = %d, want 422", status)
	}
	if m := message(t, body); !strings.Contains(m, `"sha"`) {
		t.Errorf("message = %q, want it to name the missing sha", m)
	}
	v := violations()
	if len(v) != 1 || v[0].Operation != "POST /repos/{owner}/{repo}/git/refs" || !strings.Contains(v[0].Message, `property "sha" is missing`) {
		t.Fatalf("violations = %v, want one about the missing sha", v)
	}
	if got := s.Violations(); len(got) != 1 {
		t.Errorf("Violations() = %v, want the same one", got)
	}
	if b := s.Repo("octo", "calc").Branches(); len(b) != 1 {
		t.Errorf("branches = %v: the invalid request created a ref", b)
	}
}

func TestRejectsInvalidRequests(t *testing.T) {
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		violation                string
	}{
		{"unknown path", "GET", "repos/octo/calc/frobnicate", "", 404, "no such operation"},
		{"method not in description", "DELETE", "repos/octo/calc/git/blobs/abc", "", 404, "no such operation"},
		{"body not JSON", "POST", "repos/octo/calc/git/blobs", `{"content": `, 400, "request body"},
		{"path parameter not an integer", "GET", "repos/octo/calc/issues/abc", "", 404, "issue_number"},
		{"enum", "POST", "repos/octo/calc/git/trees", `{"tree": [{"path": "a", "mode": "100600", "type": "blob", "content": "x"}]}`, 422, "mode"},
		{"wrong type", "POST", "repos/octo/calc/pulls", `{"head": "x", "base": "main", "title": 7}`, 422, "title"},
		{"query parameter", "GET", "repos/octo/calc/pulls?state=merged", "", 422, "state"},
		{"per_page not a number", "GET", "repos/octo/calc/issues/1/comments?per_page=many", "", 422, "per_page"},
		{"unimplemented", "GET", "repos/octo/calc/releases", "", 501, "does not implement"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			collect, violations := collecting()
			s := newServer(t, collect)
			s.AddRepo("octo", "calc", map[string]string{"a.txt": "a\n"})
			s.AddIssue("octo", "calc", 1, "Bug", "")
			status, _ := do(t, s, tc.method, tc.path, staticToken, tc.body)
			if status != tc.status {
				t.Errorf("status = %d, want %d", status, tc.status)
			}
			v := violations()
			if len(v) != 1 || !strings.Contains(v[0].Message, tc.violation) {
				t.Errorf("violations = %v, want one mentioning %q", v, tc.violation)
			}
		})
	}
}

// TestGoGitHubRequestsTheDescriptionRejects records requests that go-github
// sends and GitHub's OpenAPI description rejects, though GitHub itself
// accepts them. The fake reports them; bots should avoid them (see
// TestWorkaroundsPass).
func TestGoGitHubRequestsTheDescriptionRejects(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		call      func(*github.Client) error
		violation string
	}{
		{"AddLabelsToIssue sends a bare array", func(gh *github.Client) error {
			_, _, err := gh.Issues.AddLabelsToIssue(ctx, "octo", "calc", 1, []string{"capsule"})
			return err
		}, "value must be an object"},
		{"ReplaceLabelsForIssue sends a bare array", func(gh *github.Client) error {
			_, _, err := gh.Issues.ReplaceLabelsForIssue(ctx, "octo", "calc", 1, []string{"capsule"})
			return err
		}, "value must be an object"},
		{"CreateCommentInReplyTo posts to the comments endpoint without commit_id and path", func(gh *github.Client) error {
			_, _, err := gh.PullRequests.CreateCommentInReplyTo(ctx, "octo", "calc", 1, "thanks", 5)
			return err
		}, `property "commit_id" is missing`},
		{"ListMatchingRefs without a ref", func(gh *github.Client) error {
			_, _, err := gh.Git.ListMatchingRefs(ctx, "octo", "calc", "")
			return err
		}, "no such operation"},
		{"GetArchiveLink without a ref", func(gh *github.Client) error {
			_, _, err := gh.Repositories.GetArchiveLink(ctx, "octo", "calc", github.Tarball, nil, 1)
			return err
		}, "no such operation"},
		{"CreateInstallationToken with nil options sends null", func(gh *github.Client) error {
			_, _, err := gh.Apps.CreateInstallationToken(ctx, 7, nil)
			return err
		}, "Value is not nullable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			collect, violations := collecting()
			key := appKey(t)
			s := newServer(t, collect, WithApp(42, &key.PublicKey))
			s.AddRepo("octo", "calc", map[string]string{"a.txt": "a\n"})
			s.AddIssue("octo", "calc", 1, "Bug", "")
			s.AddInstallation(7, "octo/calc")
			gh := tokenClient(s, staticToken)
			if strings.Contains(tc.name, "Installation") {
				gh = tokenClient(s, signJWT(t, key, validClaims()))
			}
			if err := tc.call(gh); err == nil {
				t.Errorf("call succeeded, want the fake's rejection")
			}
			v := violations()
			if len(v) != 1 || !strings.Contains(v[0].Message, tc.violation) {
				t.Errorf("violations = %v, want one mentioning %q", v, tc.violation)
			}
		})
	}
}

// TestWorkaroundsPass shows the description-conforming ways to make the
// requests of TestGoGitHubRequestsTheDescriptionRejects.
func TestWorkaroundsPass(t *testing.T) {
	key := appKey(t)
	s := newServer(t, WithApp(42, &key.PublicKey))
	repo := s.AddRepo("octo", "calc", map[string]string{"a.txt": "a\n"})
	s.AddIssue("octo", "calc", 1, "Bug", "")
	s.AddInstallation(7, "octo/calc")
	gh := tokenClient(s, staticToken)
	ctx := context.Background()

	req, err := gh.NewRequest(ctx, "POST", "repos/octo/calc/issues/1/labels", map[string][]string{"labels": {"capsule"}})
	if err != nil {
		t.Fatal(err)
	}
	var labels []*github.Label
	if _, err := gh.Do(req, &labels); err != nil {
		t.Fatalf("add labels as an object: %v", err)
	}
	if len(labels) != 1 || labels[0].GetName() != "capsule" {
		t.Errorf("labels = %v", labels)
	}
	if got := repo.Labels(1); len(got) != 1 || got[0] != "capsule" {
		t.Errorf("Labels(1) = %v", got)
	}
	if _, _, err := gh.Git.ListMatchingRefs(ctx, "octo", "calc", "heads/"); err != nil {
		t.Errorf("ListMatchingRefs with a ref: %v", err)
	}
	if _, _, err := gh.Repositories.GetArchiveLink(ctx, "octo", "calc", github.Tarball, &github.RepositoryContentGetOptions{Ref: "main"}, 1); err != nil {
		t.Errorf("GetArchiveLink with a ref: %v", err)
	}
	app := tokenClient(s, signJWT(t, key, validClaims()))
	if _, _, err := app.Apps.CreateInstallationToken(ctx, 7, &github.InstallationTokenOptions{}); err != nil {
		t.Errorf("CreateInstallationToken with empty options: %v", err)
	}
}

// TestEndpointsAreInTheDescription checks the fake implements only
// operations the description has.
func TestEndpointsAreInTheDescription(t *testing.T) {
	s := newServer(t)
	for op := range endpoints {
		method, template, _ := strings.Cut(op, " ")
		e := s.desc.byTemplate[template]
		if e == nil || !e.methods[method] {
			t.Errorf("%s is not in the description", op)
			continue
		}
		if _, err := e.route(method); err != nil {
			t.Errorf("%s: %v", op, err)
		}
	}
}

func TestSubsetDescription(t *testing.T) {
	collect, violations := collecting()
	s := newServer(t, collect, WithDescription(testdata.Path(t, "openapi", "api.github.com.subset.json")))
	repo := s.AddRepo("octo", "calc", nil)
	if repo.FullName() != "octo/calc" {
		t.Errorf("FullName = %q", repo.FullName())
	}
	if status, _ := do(t, s, "GET", "repos/octo/calc/git/ref/heads/main", staticToken, ""); status != 200 {
		t.Errorf("GetRef status = %d", status)
	}
	if status, _ := do(t, s, "GET", "repos/octo/calc/tarball/main", staticToken, ""); status != 404 {
		t.Errorf("tarball status = %d, want 404: the subset lacks it", status)
	}
	if v := violations(); len(v) != 1 || v[0].Path != "/repos/octo/calc/tarball/main" {
		t.Errorf("violations = %v", v)
	}
}
