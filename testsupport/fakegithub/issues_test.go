package fakegithub

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"
)

func TestComments(t *testing.T) {
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", nil)
	s.AddIssue("octo", "calc", 3, "Add is wrong", "1+1 is 0")
	for i := 0; i < 25; i++ {
		repo.AddComment(3, "octocat", fmt.Sprintf("comment %d", i))
	}
	gh := tokenClient(s, staticToken)
	ctx := context.Background()

	is, _, err := gh.Issues.Get(ctx, "octo", "calc", 3)
	if err != nil || is.GetTitle() != "Add is wrong" || is.GetUser().GetLogin() != "octocat" || is.GetComments() != 25 || is.IsPullRequest() {
		t.Fatalf("Issues.Get = %+v, %v", is, err)
	}

	var all []*github.IssueComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 10}}
	pages := 0
	for {
		page, resp, err := gh.Issues.ListComments(ctx, "octo", "calc", 3, opts)
		if err != nil {
			t.Fatalf("ListComments: %v", err)
		}
		pages++
		all = append(all, page...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if pages != 3 || len(all) != 25 || all[24].GetBody() != "comment 24" {
		t.Errorf("paged through %d pages, %d comments", pages, len(all))
	}

	c, _, err := gh.Issues.CreateComment(ctx, "octo", "calc", 3, &github.IssueComment{Body: github.Ptr("Working on it")})
	if err != nil {
		t.Fatalf("CreateComment: %v", err)
	}
	if c.GetUser().GetLogin() != "github-actions[bot]" || c.GetHTMLURL() == "" || c.CreatedAt == nil {
		t.Errorf("comment = %+v", c)
	}
	if _, _, err := gh.Issues.EditComment(ctx, "octo", "calc", c.GetID(), &github.IssueComment{Body: github.Ptr("Done")}); err != nil {
		t.Fatalf("EditComment: %v", err)
	}
	got, _, err := gh.Issues.GetComment(ctx, "octo", "calc", c.GetID())
	if err != nil || got.GetBody() != "Done" {
		t.Errorf("GetComment = %+v, %v", got, err)
	}
	if _, err := gh.Issues.DeleteComment(ctx, "octo", "calc", all[0].GetID()); err != nil {
		t.Fatalf("DeleteComment: %v", err)
	}
	comments := repo.Comments(3)
	if len(comments) != 25 || comments[24].Body != "Done" || comments[24].User != "github-actions[bot]" {
		t.Errorf("Comments(3) = %d, last %+v", len(comments), comments[len(comments)-1])
	}

	var er *github.ErrorResponse
	_, _, err = gh.Issues.CreateComment(ctx, "octo", "calc", 3, &github.IssueComment{Body: github.Ptr(strings.Repeat("é", 65537))})
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || len(er.Errors) != 1 || !strings.Contains(er.Errors[0].Message, "too long") {
		t.Errorf("too long comment: %v, want 422", err)
	}
	if _, _, err := gh.Issues.CreateComment(ctx, "octo", "calc", 3, &github.IssueComment{Body: github.Ptr(strings.Repeat("é", 65536))}); err != nil {
		t.Errorf("comment of exactly 65536 characters: %v", err)
	}
	if _, _, err := gh.Issues.Get(ctx, "octo", "calc", 4); !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Errorf("missing issue: %v, want 404", err)
	}
}

// addLabels adds labels the way the description allows (see
// TestGoGitHubRequestsTheDescriptionRejects).
func addLabels(ctx context.Context, gh *github.Client, owner, repo string, number int, names ...string) ([]*github.Label, error) {
	req, err := gh.NewRequest(ctx, "POST", fmt.Sprintf("repos/%s/%s/issues/%d/labels", owner, repo, number), map[string][]string{"labels": names})
	if err != nil {
		return nil, err
	}
	var labels []*github.Label
	_, err = gh.Do(req, &labels)
	return labels, err
}

func TestLabels(t *testing.T) {
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", nil)
	s.AddIssue("octo", "calc", 1, "Bug", "")
	repo.AddLabels(1, "capsule")
	gh := tokenClient(s, staticToken)
	ctx := context.Background()

	if _, err := addLabels(ctx, gh, "octo", "calc", 1, "capsule:working", "capsule"); err != nil {
		t.Fatalf("add labels: %v", err)
	}
	if got := repo.Labels(1); strings.Join(got, ",") != "capsule,capsule:working" {
		t.Errorf("Labels(1) = %v", got)
	}
	labels, _, err := gh.Issues.ListLabelsByIssue(ctx, "octo", "calc", 1, nil)
	if err != nil || len(labels) != 2 {
		t.Errorf("ListLabelsByIssue = %v, %v", labels, err)
	}
	if _, err := gh.Issues.RemoveLabelForIssue(ctx, "octo", "calc", 1, "capsule:working"); err != nil {
		t.Errorf("RemoveLabelForIssue: %v", err)
	}
	var er *github.ErrorResponse
	_, err = gh.Issues.RemoveLabelForIssue(ctx, "octo", "calc", 1, "capsule:working")
	if !errors.As(err, &er) || er.Response.StatusCode != 404 || er.Message != "Label does not exist" {
		t.Errorf("removing a label the issue lacks: %v, want 404 Label does not exist", err)
	}
	// Adding labels created them in the repository.
	repoLabels, _, err := gh.Issues.ListLabels(ctx, "octo", "calc", nil)
	if err != nil || len(repoLabels) != 2 {
		t.Errorf("ListLabels = %v, %v", repoLabels, err)
	}
	if _, _, err := gh.Issues.CreateLabel(ctx, "octo", "calc", &github.Label{Name: github.Ptr("capsule:failed"), Color: github.Ptr("d73a4a")}); err != nil {
		t.Errorf("CreateLabel: %v", err)
	}
	_, _, err = gh.Issues.CreateLabel(ctx, "octo", "calc", &github.Label{Name: github.Ptr("Capsule")})
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || len(er.Errors) != 1 || er.Errors[0].Code != "already_exists" {
		t.Errorf("CreateLabel of an existing label: %v, want 422 already_exists", err)
	}
	if got := repo.RepoLabels(); len(got) != 3 {
		t.Errorf("RepoLabels = %v", got)
	}
	req, err := gh.NewRequest(ctx, "PUT", "repos/octo/calc/issues/1/labels", map[string][]string{"labels": {"capsule:failed"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Do(req, nil); err != nil {
		t.Fatalf("set labels: %v", err)
	}
	if is, _ := repo.Issue(1); len(is.Labels) != 1 || is.Labels[0] != "capsule:failed" || is.IsPullRequest {
		t.Errorf("Issue(1) = %+v", is)
	}
}

func TestPermissions(t *testing.T) {
	s := newServer(t)
	s.AddRepo("octo", "calc", nil)
	roles := []struct{ role, permission string }{
		{"admin", "admin"}, {"maintain", "write"}, {"write", "write"},
		{"triage", "read"}, {"read", "read"}, {"none", "none"},
	}
	for _, r := range roles {
		s.SetPermission("octo", "calc", "user-"+r.role, r.role)
	}
	gh := tokenClient(s, staticToken)
	ctx := context.Background()
	for _, r := range roles {
		t.Run(r.role, func(t *testing.T) {
			p, _, err := gh.Repositories.GetPermissionLevel(ctx, "octo", "calc", "user-"+r.role)
			if err != nil {
				t.Fatal(err)
			}
			if p.GetPermission() != r.permission || p.GetUser().GetLogin() != "user-"+r.role {
				t.Errorf("permission = %q for %q, want %q", p.GetPermission(), p.GetUser().GetLogin(), r.permission)
			}
			if p.GetUser().GetRoleName() != r.role {
				t.Errorf("role_name = %q, want %q", p.GetUser().GetRoleName(), r.role)
			}
		})
	}
	t.Run("owner", func(t *testing.T) {
		p, _, err := gh.Repositories.GetPermissionLevel(ctx, "octo", "calc", "octo")
		if err != nil || p.GetPermission() != "admin" {
			t.Errorf("owner permission = %v, %v", p.GetPermission(), err)
		}
	})
	t.Run("known user without a role", func(t *testing.T) {
		s.AddIssue("octo", "calc", 1, "Bug", "") // by octocat
		p, _, err := gh.Repositories.GetPermissionLevel(ctx, "octo", "calc", "octocat")
		if err != nil || p.GetPermission() != "none" {
			t.Errorf("private repository: %v, %v; want none", p.GetPermission(), err)
		}
		s.Repo("octo", "calc").SetPrivate(false)
		p, _, err = gh.Repositories.GetPermissionLevel(ctx, "octo", "calc", "octocat")
		if err != nil || p.GetPermission() != "read" {
			t.Errorf("public repository: %v, %v; want read", p.GetPermission(), err)
		}
	})
	t.Run("unknown user", func(t *testing.T) {
		var er *github.ErrorResponse
		_, _, err := gh.Repositories.GetPermissionLevel(ctx, "octo", "calc", "ghost")
		if !errors.As(err, &er) || er.Response.StatusCode != 404 {
			t.Errorf("unknown user: %v, want 404", err)
		}
	})
}
