package fakegithub

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"
)

func TestEnterprisePrefix(t *testing.T) {
	collect, violations := collecting()
	s := newServer(t, WithPrefix("/api/v3"), collect)
	s.AddRepo("octo", "calc", map[string]string{"src/calc.py": "x = 1\n"})
	if !strings.HasSuffix(s.URL(), "/api/v3/") {
		t.Fatalf("URL() = %s", s.URL())
	}
	gh, err := github.NewClient(github.WithEnterpriseURLs(s.URL(), s.URL()), github.WithAuthToken(staticToken))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ref, _, err := gh.Git.GetRef(ctx, "octo", "calc", "heads/main")
	if err != nil {
		t.Fatalf("GetRef: %v", err)
	}
	if !strings.Contains(ref.GetURL(), "/api/v3/repos/octo/calc/git/refs/heads/main") {
		t.Errorf("ref url = %s", ref.GetURL())
	}
	file, _, _, err := gh.Repositories.GetContents(ctx, "octo", "calc", "src/calc.py", nil)
	if err != nil {
		t.Fatalf("GetContents: %v", err)
	}
	if content, _ := file.GetContent(); content != "x = 1\n" {
		t.Errorf("content = %q", content)
	}
	link, _, err := gh.Repositories.GetArchiveLink(ctx, "octo", "calc", github.Tarball, &github.RepositoryContentGetOptions{Ref: "main"}, 1)
	if err != nil {
		t.Fatalf("GetArchiveLink: %v", err)
	}
	resp, err := http.Get(link.String())
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("download %s: %v %v", link, err, resp.Status)
	}
	resp.Body.Close()
	if got := s.Requests()[0].Path; got != "/repos/octo/calc/git/ref/heads/main" {
		t.Errorf("recorded path = %q, want it without the prefix", got)
	}
	if v := violations(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}

	// Without the prefix the request is outside the API.
	resp, err = http.Get(strings.TrimSuffix(s.URL(), "api/v3/") + "repos/octo/calc")
	if err != nil || resp.StatusCode != 404 {
		t.Errorf("outside the prefix: %v %v, want 404", err, resp.Status)
	}
	resp.Body.Close()
	if v := violations(); len(v) != 1 {
		t.Errorf("violations = %v, want the request outside the prefix", v)
	}
}
