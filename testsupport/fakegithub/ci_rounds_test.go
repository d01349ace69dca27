package fakegithub

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-github/v88/github"
)

func TestPullRequestCommits(t *testing.T) {
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", map[string]string{"calc.py": "x = 1\n"})
	var pushed []string
	for i := range 3 {
		sha, err := repo.Push("capsule/issue-1", fmt.Sprintf("commit %d", i), map[string]string{"calc.py": fmt.Sprintf("x = %d\n", i+2)})
		if err != nil {
			t.Fatal(err)
		}
		pushed = append(pushed, sha)
	}
	gh := tokenClient(s, staticToken)
	ctx := context.Background()
	pr, _, err := gh.PullRequests.Create(ctx, "octo", "calc", &github.NewPullRequest{Title: github.Ptr("Fix"), Head: github.Ptr("capsule/issue-1"), Base: github.Ptr("main")})
	if err != nil {
		t.Fatal(err)
	}
	// A commit on main after the branch left it is not the pull request's.
	if _, err := repo.Push("main", "on main", map[string]string{"README.md": "# calc\n"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	opts := &github.ListOptions{PerPage: 2}
	for {
		page, resp, err := gh.PullRequests.ListCommits(ctx, "octo", "calc", pr.GetNumber(), opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page {
			got = append(got, c.GetSHA()+" "+c.GetCommit().GetMessage())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	var want []string
	for i, sha := range pushed {
		want = append(want, fmt.Sprintf("%s commit %d", sha, i))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("commits =\n%v\nwant, oldest first,\n%v", got, want)
	}
	var er *github.ErrorResponse
	if _, _, err := gh.PullRequests.ListCommits(ctx, "octo", "calc", 99, nil); !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Errorf("commits of no pull request: %v, want 404", err)
	}
}

func TestActionsRunCheckRuns(t *testing.T) {
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", map[string]string{"calc.py": "x = 1\n"})
	head, err := repo.Push("capsule/issue-1", "Fix", map[string]string{"calc.py": "x = 2\n"})
	if err != nil {
		t.Fatal(err)
	}
	run := repo.AddActionsRun(WorkflowRun{
		Name: "CI", HeadBranch: "capsule/issue-1", HeadSHA: head, Event: "pull_request", Conclusion: "failure",
		Jobs: []WorkflowJob{{Name: "test", Conclusion: "failure", Log: "boom\n"}, {Name: "lint", Conclusion: "success"}},
	})
	other := repo.AddCheckRun(CheckRun{Name: "docs", HeadSHA: head, Conclusion: "success"})
	gh := tokenClient(s, staticToken)
	res, _, err := gh.Checks.ListCheckRunsForRef(context.Background(), "octo", "calc", head, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, cr := range res.CheckRuns {
		got[cr.GetName()] = fmt.Sprintf("%d %s %s", cr.GetID(), cr.GetApp().GetSlug(), cr.GetConclusion())
	}
	want := map[string]string{
		"test": fmt.Sprintf("%d github-actions failure", run.Jobs[0].ID),
		"lint": fmt.Sprintf("%d github-actions success", run.Jobs[1].ID),
		"docs": fmt.Sprintf("%d  success", other.ID),
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("check runs = %v, want %v", got, want)
	}
}
