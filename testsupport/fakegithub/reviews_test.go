package fakegithub

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"
)

// replyTo answers review comment id on pull request number through the
// replies endpoint: go-github's CreateCommentInReplyTo posts to the
// comments endpoint, whose description requires commit_id and path (see
// TestGoGitHubRequestsTheDescriptionRejects).
func replyTo(ctx context.Context, gh *github.Client, number int, body string, id int64) (*github.PullRequestComment, *github.Response, error) {
	req, err := gh.NewRequest(ctx, "POST", fmt.Sprintf("repos/octo/calc/pulls/%d/comments/%d/replies", number, id), map[string]string{"body": body})
	if err != nil {
		return nil, nil, err
	}
	var c github.PullRequestComment
	resp, err := gh.Do(req, &c)
	return &c, resp, err
}

func TestReviews(t *testing.T) {
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", map[string]string{"calc.py": "def add(a, b):\n    return a - b\n"})
	head, err := repo.Push("capsule/issue-1", "Fix add", map[string]string{"calc.py": "def add(a, b):\n    return a + b\n"})
	if err != nil {
		t.Fatal(err)
	}
	gh := tokenClient(s, staticToken)
	ctx := context.Background()
	pr, _, err := gh.PullRequests.Create(ctx, "octo", "calc", &github.NewPullRequest{
		Title: github.Ptr("Fix add"), Head: github.Ptr("capsule/issue-1"), Base: github.Ptr("main"),
	})
	if err != nil {
		t.Fatal(err)
	}
	hunk := "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b"
	rv := repo.AddReview(pr.GetNumber(), Review{
		User: "alice", State: "CHANGES_REQUESTED", Body: "Close, but see the note.",
		Comments: []ReviewComment{{Path: "calc.py", Line: 2, DiffHunk: hunk, Body: "Please also handle None."}},
	})
	first := rv.Comments[0]

	got, _, err := gh.PullRequests.GetReview(ctx, "octo", "calc", pr.GetNumber(), rv.ID)
	if err != nil || got.GetState() != "CHANGES_REQUESTED" || got.GetBody() != rv.Body || got.GetCommitID() != head || got.GetUser().GetLogin() != "alice" {
		t.Fatalf("GetReview = %+v, %v", got, err)
	}
	inReview, _, err := gh.PullRequests.ListReviewComments(ctx, "octo", "calc", pr.GetNumber(), rv.ID, nil)
	if err != nil || len(inReview) != 1 || inReview[0].GetID() != first.ID || inReview[0].GetDiffHunk() != hunk {
		t.Fatalf("ListReviewComments = %v, %v", inReview, err)
	}

	reply, _, err := replyTo(ctx, gh, pr.GetNumber(), "Done: None now raises TypeError.", first.ID)
	if err != nil {
		t.Fatalf("reply: %v", err)
	}
	if reply.GetInReplyTo() != first.ID || reply.GetPath() != "calc.py" || reply.GetLine() != 2 || reply.GetUser().GetLogin() != "github-actions[bot]" {
		t.Errorf("reply = %+v", reply)
	}
	var er *github.ErrorResponse
	if _, _, err := replyTo(ctx, gh, pr.GetNumber(), "again", reply.GetID()); !errors.As(err, &er) || er.Response.StatusCode != 422 {
		t.Errorf("a reply to a reply: %v, want 422", err)
	}
	if _, _, err := replyTo(ctx, gh, pr.GetNumber(), strings.Repeat("x", maxBody+1), first.ID); !errors.As(err, &er) || er.Response.StatusCode != 422 {
		t.Errorf("a reply over the body limit: %v, want 422", err)
	}
	if _, _, err := replyTo(ctx, gh, pr.GetNumber(), "x", 999999); !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Errorf("a reply to no comment: %v, want 404", err)
	}

	all, _, err := gh.PullRequests.ListComments(ctx, "octo", "calc", pr.GetNumber(), nil)
	if err != nil || len(all) != 2 || all[0].GetID() != first.ID || all[1].GetID() != reply.GetID() {
		t.Fatalf("ListComments = %v, %v", all, err)
	}
	one, _, err := gh.PullRequests.GetComment(ctx, "octo", "calc", reply.GetID())
	if err != nil || one.GetBody() != "Done: None now raises TypeError." {
		t.Errorf("GetComment = %+v, %v", one, err)
	}
	if cs := repo.ReviewComments(pr.GetNumber()); len(cs) != 2 || cs[1].InReplyTo != first.ID || cs[1].User != "github-actions[bot]" {
		t.Errorf("ReviewComments = %+v", cs)
	}
	if _, _, err := gh.PullRequests.GetReview(ctx, "octo", "calc", pr.GetNumber(), 999999); !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Errorf("a missing review: %v, want 404", err)
	}
}
