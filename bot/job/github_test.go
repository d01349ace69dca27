package job

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
)

// adapter is the go-github adapter on a repository of the OpenAPI-checked
// fake, which fails the test on any request GitHub would refuse.
func adapter(t *testing.T, files map[string]string) (*Repository, *fakegithub.Server, *fakegithub.Repo) {
	t.Helper()
	const token = "adapter-test-token"
	s := fakegithub.New(t, fakegithub.WithToken(token))
	repo := s.AddRepo("octo", "calc", files)
	gh, err := s.Client(nil).Clone(github.WithAuthToken(token))
	if err != nil {
		t.Fatal(err)
	}
	return NewRepository(gh, "octo", "calc"), s, repo
}

func TestRepositoryReads(t *testing.T) {
	r, s, repo := adapter(t, map[string]string{"README.md": "# calc\n", "calc/ops.py": "x = 1\n"})
	s.SetPermission("octo", "calc", "tri", "triage")
	s.SetPermission("octo", "calc", "maint", "maintain")
	repo.AddIssue(7, "maint", "add is wrong", "add(1, 2) gives -1")
	ctx := context.Background()

	branch, err := r.DefaultBranch(ctx)
	if err != nil || branch != "main" {
		t.Fatalf("DefaultBranch = %q, %v", branch, err)
	}
	head, err := r.BranchHead(ctx, branch)
	if err != nil || len(head) != 40 {
		t.Fatalf("BranchHead = %q, %v", head, err)
	}
	if _, err := r.BranchHead(ctx, "no-such-branch"); !errors.Is(err, ErrNotFound) {
		t.Errorf("BranchHead of a missing branch: %v, want ErrNotFound", err)
	}
	if text, err := r.File(ctx, "calc/ops.py", head); err != nil || string(text) != "x = 1\n" {
		t.Errorf("File = %q, %v", text, err)
	}
	if _, err := r.File(ctx, ".github/capsule.yml", head); !errors.Is(err, ErrNotFound) {
		t.Errorf("File of a missing file: %v, want ErrNotFound", err)
	}
	if _, err := r.File(ctx, "calc", head); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("File of a directory: %v, want an error other than ErrNotFound", err)
	}
	for user, want := range map[string]string{"tri": "triage", "maint": "maintain", "octo": "admin"} {
		if got, err := r.Permission(ctx, user); err != nil || got != want {
			t.Errorf("Permission(%s) = %q, %v; want %q", user, got, err, want)
		}
	}
	if _, err := r.Permission(ctx, "stranger"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Permission of a stranger: %v, want ErrNotFound", err)
	}
	if issue, err := r.Issue(ctx, 7); err != nil || issue != (Issue{Title: "add is wrong", Body: "add(1, 2) gives -1"}) {
		t.Errorf("Issue = %+v, %v", issue, err)
	}
	if _, err := r.Issue(ctx, 8); !errors.Is(err, ErrNotFound) {
		t.Errorf("Issue of a missing issue: %v, want ErrNotFound", err)
	}

	archive, err := r.Archive(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	defer archive.Close()
	if got := tarNames(t, archive); !slices.Contains(got, "calc/ops.py") || !slices.Contains(got, "README.md") {
		t.Errorf("archive holds %q", got)
	}
}

// tarNames lists the regular files of a gzipped tarball, without the top
// directory.
func tarNames(t *testing.T, r io.Reader) []string {
	t.Helper()
	gz, err := gzip.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, name, ok := strings.Cut(h.Name, "/"); ok && h.Typeflag == tar.TypeReg {
			names = append(names, name)
		}
	}
}

func TestRepositoryComments(t *testing.T) {
	r, _, repo := adapter(t, map[string]string{"README.md": "# calc\n"})
	repo.AddIssue(3, "octo", "title", "body")
	ctx := context.Background()
	// More than a page of comments.
	for i := range 120 {
		repo.AddComment(3, "octo", fmt.Sprintf("comment %d", i))
	}
	id, err := r.CreateComment(ctx, 3, "status")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.EditComment(ctx, id, "status, edited"); err != nil {
		t.Fatal(err)
	}
	comments, err := r.Comments(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(comments) != 121 || comments[0].Body != "comment 0" || comments[120] != (Comment{ID: id, Body: "status, edited"}) {
		t.Errorf("%d comments, first %+v, last %+v", len(comments), comments[0], comments[len(comments)-1])
	}
	if err := r.EditComment(ctx, id+1000, "gone"); !errors.Is(err, ErrNotFound) {
		t.Errorf("EditComment of a missing comment: %v, want ErrNotFound", err)
	}

	if err := r.AddLabels(ctx, 3, LabelInProgress, "bug"); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveLabel(ctx, 3, "bug"); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveLabel(ctx, 3, "bug"); !errors.Is(err, ErrNotFound) {
		t.Errorf("RemoveLabel of a label the issue lacks: %v, want ErrNotFound", err)
	}
	if labels := repo.Labels(3); !slices.Equal(labels, []string{LabelInProgress}) {
		t.Errorf("labels = %q", labels)
	}
}

func TestRepositoryPublishes(t *testing.T) {
	files := map[string]string{"README.md": "# calc\n", "calc/ops.py": "x = 1\n", "run.sh": "echo\n", "old.py": "y = 2\n"}
	r, _, repo := adapter(t, files)
	ctx := context.Background()
	head, err := r.BranchHead(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	sha, err := r.CreateCommit(ctx, head, "Fix #1: add", []File{
		{Path: "calc/ops.py", Content: "x = 2\n", Mode: "100644"},
		{Path: "tests/test_ops.py", Content: "def test(): pass\n", Mode: "100644"},
		{Path: "old.py", Mode: "100644", Delete: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.CreateBranch(ctx, work.Branch(1), sha); err != nil {
		t.Fatal(err)
	}
	want := maps.Clone(files)
	want["calc/ops.py"], want["tests/test_ops.py"] = "x = 2\n", "def test(): pass\n"
	delete(want, "old.py")
	if got, err := repo.Files(work.Branch(1)); err != nil || !maps.Equal(got, want) {
		t.Errorf("branch files = %q, %v; want %q", got, err, want)
	}
	if c, err := repo.Commit(sha); err != nil || !strings.HasPrefix(c.Message, "Fix #1") {
		t.Errorf("commit = %+v, %v", c, err)
	}

	if _, found, err := r.OpenPullRequest(ctx, work.Branch(1)); err != nil || found {
		t.Fatalf("OpenPullRequest before one is open: %v %v", found, err)
	}
	pr, err := r.CreatePullRequest(ctx, NewPullRequest{Title: "Fix add", Body: "Closes #1", Head: work.Branch(1), Base: "main", Draft: true})
	if err != nil || pr.Number == 0 || pr.URL == "" || !pr.Draft {
		t.Fatalf("CreatePullRequest = %+v, %v", pr, err)
	}
	open, found, err := r.OpenPullRequest(ctx, work.Branch(1))
	if err != nil || !found || open.Number != pr.Number {
		t.Fatalf("OpenPullRequest = %+v %v %v", open, found, err)
	}
	edited, err := r.EditPullRequest(ctx, pr.Number, "Fix add, again", "Closes #1 again")
	if err != nil || edited.Number != pr.Number || edited.URL != pr.URL || edited.Title != "Fix add, again" || edited.Body != "Closes #1 again" {
		t.Errorf("EditPullRequest = %+v, %v; want %+v retitled", edited, err, pr)
	}

	// A retry's commit replaces the branch's: not a fast-forward.
	again, err := r.CreateCommit(ctx, head, "Fix #1: add, again", []File{{Path: "calc/ops.py", Content: "x = 3\n", Mode: "100644"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.MoveBranch(ctx, work.Branch(1), again); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.BranchHead(ctx, work.Branch(1)); got != again {
		t.Errorf("branch at %s after MoveBranch, want %s", got, again)
	}
	prs := repo.PullRequests()
	if len(prs) != 1 || prs[0].Title != "Fix add, again" || !prs[0].MaintainerCanModify || prs[0].HeadSHA != again {
		t.Errorf("pull requests = %+v", prs)
	}
}

// TestRepositoryPullRequestRead: what a round checks of a pull request
// before it trusts it as Capsule's.
func TestRepositoryPullRequestRead(t *testing.T) {
	r, _, repo := adapter(t, map[string]string{"README.md": "# calc\n"})
	ctx := context.Background()
	sha, err := repo.Push(work.Branch(4), "Fix #4\n\nCapsule-Issue: 4\n", map[string]string{"calc.py": "x = 1\n"})
	if err != nil {
		t.Fatal(err)
	}
	made, err := r.CreatePullRequest(ctx, NewPullRequest{Title: "Fix #4", Body: "Closes #4", Head: work.Branch(4), Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.PullRequest(ctx, made.Number)
	if err != nil {
		t.Fatal(err)
	}
	want := PullRequest{
		Number: made.Number, URL: made.URL, HeadSHA: sha, State: "open", Title: "Fix #4", Body: "Closes #4",
		HeadRef: work.Branch(4), HeadRepo: "octo/calc", BaseRepo: "octo/calc", Author: "github-actions[bot]", AuthorType: "Bot",
	}
	if got != want {
		t.Errorf("PullRequest = %+v\nwant %+v", got, want)
	}
	if _, err := r.PullRequest(ctx, made.Number+1); !errors.Is(err, ErrNotFound) {
		t.Errorf("PullRequest of a missing one: %v, want ErrNotFound", err)
	}
	if msg, err := r.CommitMessage(ctx, sha); err != nil || msg != "Fix #4\n\nCapsule-Issue: 4\n" {
		t.Errorf("CommitMessage = %q, %v", msg, err)
	}
}

// TestRepositoryAdvanceBranch: a round's push moves the branch forward
// only; a branch someone moved meanwhile is ErrNotFastForward.
func TestRepositoryAdvanceBranch(t *testing.T) {
	r, _, repo := adapter(t, map[string]string{"README.md": "# calc\n"})
	ctx := context.Background()
	head, err := repo.Push(work.Branch(4), "Fix #4", map[string]string{"calc.py": "x = 1\n"})
	if err != nil {
		t.Fatal(err)
	}
	next, err := r.CreateCommit(ctx, head, "Round", []File{{Path: "calc.py", Content: "x = 2\n", Mode: "100644"}})
	if err != nil {
		t.Fatal(err)
	}
	// A human pushes before the round does.
	human, err := repo.Push(work.Branch(4), "a human's commit", map[string]string{"calc.py": "x = 3\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AdvanceBranch(ctx, work.Branch(4), next); !errors.Is(err, ErrNotFastForward) {
		t.Fatalf("AdvanceBranch over a human's commit: %v, want ErrNotFastForward", err)
	}
	if got, _ := r.BranchHead(ctx, work.Branch(4)); got != human {
		t.Errorf("branch at %s, want the human's %s", got, human)
	}
	onTop, err := r.CreateCommit(ctx, human, "Round", []File{{Path: "calc.py", Content: "x = 2\n", Mode: "100644"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AdvanceBranch(ctx, work.Branch(4), onTop); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.BranchHead(ctx, work.Branch(4)); got != onTop {
		t.Errorf("branch at %s, want %s", got, onTop)
	}
	if err := r.AdvanceBranch(ctx, "no-such-branch", onTop); err == nil || errors.Is(err, ErrNotFastForward) {
		t.Errorf("AdvanceBranch of a missing branch: %v", err)
	}
}

// TestRepositoryReviews: a round reads the review it answers and replies
// in its threads through /replies, which GitHub's description allows
// (go-github's CreateCommentInReplyTo it does not).
func TestRepositoryReviews(t *testing.T) {
	r, _, repo := adapter(t, map[string]string{"README.md": "# calc\n"})
	ctx := context.Background()
	if _, err := repo.Push(work.Branch(4), "Fix #4", map[string]string{"calc.py": "x = 1\n"}); err != nil {
		t.Fatal(err)
	}
	pr, err := r.CreatePullRequest(ctx, NewPullRequest{Title: "Fix #4", Body: "Closes #4", Head: work.Branch(4), Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	var comments []fakegithub.ReviewComment
	for i := range 120 { // more than a page
		comments = append(comments, fakegithub.ReviewComment{Path: "calc.py", Line: 1, DiffHunk: "@@ -0,0 +1 @@\n+x = 1", Body: fmt.Sprintf("comment %d", i)})
	}
	seeded := repo.AddReview(pr.Number, fakegithub.Review{User: "alice", State: "CHANGES_REQUESTED", Body: "Please use 2.", Comments: comments})

	rv, err := r.Review(ctx, pr.Number, seeded.ID)
	if err != nil {
		t.Fatal(err)
	}
	first := ReviewComment{ID: seeded.Comments[0].ID, Author: "alice", Path: "calc.py", Line: 1, DiffHunk: "@@ -0,0 +1 @@\n+x = 1", Body: "comment 0"}
	if rv.ID != seeded.ID || rv.Author != "alice" || rv.Body != "Please use 2." || len(rv.Comments) != 120 || rv.Comments[0] != first {
		t.Errorf("Review = %+v (%d comments), first %+v", rv, len(rv.Comments), rv.Comments[0])
	}
	if _, err := r.Review(ctx, pr.Number, seeded.ID+1000); !errors.Is(err, ErrNotFound) {
		t.Errorf("Review of a missing review: %v, want ErrNotFound", err)
	}

	id, err := r.ReplyToReviewComment(ctx, pr.Number, first.ID, "Done in abc1234.")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReplyToReviewComment(ctx, pr.Number, id, "a reply to a reply"); err == nil {
		t.Error("a reply to a reply was taken; GitHub refuses it")
	}
	all, err := r.ReviewComments(ctx, pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	last := all[len(all)-1]
	if len(all) != 121 || all[0] != first || last.ID != id || last.InReplyTo != first.ID || last.Author != "github-actions[bot]" || last.Body != "Done in abc1234." {
		t.Errorf("ReviewComments: %d, first %+v, last %+v", len(all), all[0], last)
	}
}
