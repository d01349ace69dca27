package fakegithub

import (
	"context"
	"testing"

	"github.com/google/go-github/v88/github"
)

// TestFullFlow does what the bot does to propose a change: read the branch,
// write blobs and a tree with an added, a modified and a deleted nested
// file, commit, create a branch, open a pull request, find it by head, and
// force-push the branch.
func TestFullFlow(t *testing.T) {
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", map[string]string{
		"README.md":         "# calc\n",
		"src/calc.py":       "def add(a, b):\n    return a - b\n",
		"src/old/legacy.py": "x = 1\n",
	})
	gh := tokenClient(s, staticToken)
	ctx := context.Background()

	main, _, err := gh.Git.GetRef(ctx, "octo", "calc", "heads/main")
	if err != nil {
		t.Fatalf("GetRef: %v", err)
	}
	base, _, err := gh.Git.GetCommit(ctx, "octo", "calc", main.GetObject().GetSHA())
	if err != nil {
		t.Fatalf("GetCommit: %v", err)
	}
	blob, _, err := gh.Git.CreateBlob(ctx, "octo", "calc", github.Blob{
		Content:  github.Ptr("ZGVmIGFkZChhLCBiKToKICAgIHJldHVybiBhICsgYgo="), // the fixed calc.py
		Encoding: github.Ptr("base64"),
	})
	if err != nil {
		t.Fatalf("CreateBlob: %v", err)
	}
	tree, _, err := gh.Git.CreateTree(ctx, "octo", "calc", base.GetTree().GetSHA(), []*github.TreeEntry{
		{Path: github.Ptr("src/calc.py"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), SHA: blob.SHA},
		{Path: github.Ptr("tests/deep/test_calc.py"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), Content: github.Ptr("from src.calc import add\n")},
		{Path: github.Ptr("src/old/legacy.py"), Mode: github.Ptr("100644"), Type: github.Ptr("blob")}, // deleted: go-github sends "sha": null
	})
	if err != nil {
		t.Fatalf("CreateTree: %v", err)
	}
	commit, _, err := gh.Git.CreateCommit(ctx, "octo", "calc", github.Commit{
		Message: github.Ptr("Fix add\n\nCloses #1"),
		Tree:    &github.Tree{SHA: tree.SHA},
		Parents: []*github.Commit{{SHA: base.SHA}},
	}, nil)
	if err != nil {
		t.Fatalf("CreateCommit: %v", err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, "octo", "calc", github.CreateRef{Ref: "refs/heads/capsule/issue-1", SHA: *commit.SHA}); err != nil {
		t.Fatalf("CreateRef: %v", err)
	}
	pr, _, err := gh.PullRequests.Create(ctx, "octo", "calc", &github.NewPullRequest{
		Title: github.Ptr("Fix add"),
		Head:  github.Ptr("capsule/issue-1"),
		Base:  github.Ptr("main"),
		Body:  github.Ptr("Closes #1"),
		Draft: github.Ptr(true),
	})
	if err != nil {
		t.Fatalf("PullRequests.Create: %v", err)
	}
	if pr.GetNumber() != 1 || pr.GetHead().GetRef() != "capsule/issue-1" || pr.GetHead().GetSHA() != commit.GetSHA() ||
		pr.GetBase().GetRef() != "main" || !pr.GetDraft() || pr.GetState() != "open" || pr.GetHTMLURL() == "" {
		t.Errorf("created pull request = %+v", pr)
	}
	prs, _, err := gh.PullRequests.List(ctx, "octo", "calc", &github.PullRequestListOptions{Head: "octo:capsule/issue-1", State: "open"})
	if err != nil {
		t.Fatalf("PullRequests.List: %v", err)
	}
	if len(prs) != 1 || prs[0].GetNumber() != pr.GetNumber() {
		t.Errorf("List by head = %d pull requests, want #%d", len(prs), pr.GetNumber())
	}

	// A second attempt replaces the branch's commit: not a fast-forward.
	retry, _, err := gh.Git.CreateCommit(ctx, "octo", "calc", github.Commit{
		Message: github.Ptr("Fix add, second attempt"),
		Tree:    &github.Tree{SHA: tree.SHA},
		Parents: []*github.Commit{{SHA: base.SHA}},
		Author:  &github.CommitAuthor{Name: github.Ptr("Capsule"), Email: github.Ptr("capsule@example.com")},
	}, nil)
	if err != nil {
		t.Fatalf("CreateCommit: %v", err)
	}
	if _, _, err := gh.Git.UpdateRef(ctx, "octo", "calc", "heads/capsule/issue-1", github.UpdateRef{SHA: retry.GetSHA(), Force: github.Ptr(false)}); err == nil {
		t.Errorf("UpdateRef without force to a non-descendant succeeded; GitHub answers 422")
	}
	if _, _, err := gh.Git.UpdateRef(ctx, "octo", "calc", "heads/capsule/issue-1", github.UpdateRef{SHA: retry.GetSHA(), Force: github.Ptr(true)}); err != nil {
		t.Fatalf("UpdateRef with force: %v", err)
	}

	files, err := repo.Files("capsule/issue-1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"README.md":               "# calc\n",
		"src/calc.py":             "def add(a, b):\n    return a + b\n",
		"tests/deep/test_calc.py": "from src.calc import add\n",
	}
	if len(files) != len(want) {
		t.Errorf("files = %v, want %v", files, want)
	}
	for p, content := range want {
		if files[p] != content {
			t.Errorf("file %s = %q, want %q", p, files[p], content)
		}
	}
	head, err := repo.Commit("capsule/issue-1")
	if err != nil {
		t.Fatal(err)
	}
	if head.SHA != retry.GetSHA() || head.Message != "Fix add, second attempt" || len(head.Parents) != 1 ||
		head.Parents[0] != base.GetSHA() || head.AuthorName != "Capsule" {
		t.Errorf("head commit = %+v", head)
	}
	if got := repo.PullRequests(); len(got) != 1 || got[0].HeadSHA != retry.GetSHA() {
		t.Errorf("PullRequests() = %+v, want one whose head follows the branch", got)
	}
	if v := s.Violations(); len(v) != 0 {
		t.Errorf("violations: %v", v)
	}
}
