package fakegithub

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"
)

func TestPullRequests(t *testing.T) {
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", map[string]string{"a.txt": "a\n"})
	s.AddIssue("octo", "calc", 1, "Bug", "")
	s.AddIssue("octo", "calc", 2, "Other bug", "")
	if _, err := repo.Push("fix-1", "Fix", map[string]string{"a.txt": "b\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Push("scratch", "x", map[string]string{"x": "x"}); err != nil {
		t.Fatal(err)
	}
	gh := tokenClient(s, staticToken)
	ctx := context.Background()
	// "same" points at main's commit: no commits between them.
	main, _ := repo.Commit("main")
	if _, _, err := gh.Git.CreateRef(ctx, "octo", "calc", github.CreateRef{Ref: "refs/heads/same", SHA: main.SHA}); err != nil {
		t.Fatal(err)
	}

	newPR := func(head, body string) (*github.PullRequest, error) {
		pr, _, err := gh.PullRequests.Create(ctx, "octo", "calc", &github.NewPullRequest{
			Title: github.Ptr("Fix #1"), Head: github.Ptr(head), Base: github.Ptr("main"),
			Body: github.Ptr(body), MaintainerCanModify: github.Ptr(false),
		})
		return pr, err
	}
	pr, err := newPR("octo:fix-1", "Closes #1")
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if pr.GetNumber() != 3 {
		t.Errorf("number = %d, want 3 (after the issues)", pr.GetNumber())
	}
	if pr.GetMaintainerCanModify() || pr.GetCommits() != 1 || pr.GetChangedFiles() != 1 || pr.GetUser().GetLogin() != "github-actions[bot]" {
		t.Errorf("pull request = %+v", pr)
	}

	var er *github.ErrorResponse
	for _, tc := range []struct{ name, head, body, want string }{
		{"already exists", "fix-1", "", "A pull request already exists for octo:fix-1."},
		{"no commits", "same", "", "No commits between main and same"},
		{"body too long", "scratch", strings.Repeat("x", 65537), "body is too long"},
		{"missing head", "nope", "", ""},
	} {
		_, err := newPR(tc.head, tc.body)
		if !errors.As(err, &er) || er.Response.StatusCode != 422 {
			t.Errorf("%s: %v, want 422", tc.name, err)
			continue
		}
		if tc.want != "" && (len(er.Errors) != 1 || !strings.Contains(er.Errors[0].Message, tc.want)) {
			t.Errorf("%s: errors = %+v, want %q", tc.name, er.Errors, tc.want)
		}
	}

	is, _, err := gh.Issues.Get(ctx, "octo", "calc", 3)
	if err != nil || !is.IsPullRequest() {
		t.Errorf("pull request as an issue = %+v, %v", is, err)
	}
	if _, _, err := gh.PullRequests.Get(ctx, "octo", "calc", 1); !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Errorf("PullRequests.Get of an issue: %v, want 404", err)
	}

	updated, _, err := gh.PullRequests.Edit(ctx, "octo", "calc", 3, &github.PullRequest{Title: github.Ptr("Fix add"), Body: github.Ptr("New body")})
	if err != nil || updated.GetTitle() != "Fix add" || updated.GetBody() != "New body" {
		t.Errorf("Edit = %+v, %v", updated, err)
	}
	if _, _, err := gh.PullRequests.Edit(ctx, "octo", "calc", 3, &github.PullRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatalf("close: %v", err)
	}
	open, _, err := gh.PullRequests.List(ctx, "octo", "calc", nil)
	if err != nil || len(open) != 0 {
		t.Errorf("open pull requests = %v, %v", open, err)
	}
	closed, _, err := gh.PullRequests.List(ctx, "octo", "calc", &github.PullRequestListOptions{State: "closed", Head: "octo:fix-1"})
	if err != nil || len(closed) != 1 || closed[0].GetClosedAt().IsZero() {
		t.Errorf("closed pull requests = %v, %v", closed, err)
	}
	// A closed pull request does not block a new one.
	if _, err := newPR("fix-1", ""); err != nil {
		t.Errorf("new pull request after closing: %v", err)
	}
	if _, err := newPR("scratch", ""); err != nil {
		t.Errorf("pull request from scratch: %v", err)
	}
	// Like GitHub, the fake ignores a head filter without "owner:".
	for head, want := range map[string]int{"fix-1": 2, "octo:fix-1": 1, "other:fix-1": 0} {
		got, _, err := gh.PullRequests.List(ctx, "octo", "calc", &github.PullRequestListOptions{Head: head})
		if err != nil || len(got) != want {
			t.Errorf("List with head %q = %d pull requests, %v; want %d", head, len(got), err, want)
		}
	}
	prs := repo.PullRequests()
	if len(prs) != 3 || prs[0].State != "closed" || prs[0].Title != "Fix add" || prs[1].Number != 4 {
		t.Errorf("PullRequests() = %+v", prs)
	}
}
