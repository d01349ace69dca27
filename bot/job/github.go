package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"
)

// Repository is the GitHub port over go-github, for one repository. It
// keeps GitHub's quirks here: labels are added in the object form, the
// permission is read with its role_name, and a 404 becomes ErrNotFound.
type Repository struct {
	gh          *github.Client
	owner, name string
	// Download fetches archives and job logs; nil means a client with a
	// timeout of downloadTimeout.
	Download *http.Client
}

// NewRepository returns the port for owner/name through gh, an
// installation's (or the Action's token's) client.
func NewRepository(gh *github.Client, owner, name string) *Repository {
	return &Repository{gh: gh, owner: owner, name: name}
}

var _ GitHub = (*Repository)(nil)

// downloadTimeout bounds an archive's download.
const downloadTimeout = 10 * time.Minute

// notFound makes GitHub's 404 an ErrNotFound; other errors pass as they
// are.
func notFound(err error) error {
	var e *github.ErrorResponse
	if errors.As(err, &e) && e.Response != nil && e.Response.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%w (GitHub answered 404: the installation may lack access)", ErrNotFound)
	}
	return err
}

// DefaultBranch implements GitHub.
func (r *Repository) DefaultBranch(ctx context.Context) (string, error) {
	repo, _, err := r.gh.Repositories.Get(ctx, r.owner, r.name)
	if err != nil {
		return "", notFound(err)
	}
	return repo.GetDefaultBranch(), nil
}

// BranchHead implements GitHub.
func (r *Repository) BranchHead(ctx context.Context, branch string) (string, error) {
	ref, _, err := r.gh.Git.GetRef(ctx, r.owner, r.name, "heads/"+branch)
	if err != nil {
		return "", notFound(err)
	}
	return ref.GetObject().GetSHA(), nil
}

// File implements GitHub.
func (r *Repository) File(ctx context.Context, path, ref string) ([]byte, error) {
	file, _, _, err := r.gh.Repositories.GetContents(ctx, r.owner, r.name, path, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		return nil, notFound(err)
	}
	if file == nil {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	text, err := file.GetContent()
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return []byte(text), nil
}

// Permission implements GitHub. GitHub's role_name tells triage and
// maintain apart, which permission does not; go-github does not decode
// it, so the request is made here.
func (r *Repository) Permission(ctx context.Context, user string) (string, error) {
	u := fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", url.PathEscape(r.owner), url.PathEscape(r.name), url.PathEscape(user))
	req, err := r.gh.NewRequest(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	var level struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	if _, err := r.gh.Do(req, &level); err != nil {
		return "", notFound(err)
	}
	if rank(level.RoleName) > 0 {
		return level.RoleName, nil
	}
	return level.Permission, nil
}

// Issue implements GitHub.
func (r *Repository) Issue(ctx context.Context, number int) (Issue, error) {
	issue, _, err := r.gh.Issues.Get(ctx, r.owner, r.name, number)
	if err != nil {
		return Issue{}, notFound(err)
	}
	return Issue{Title: issue.GetTitle(), Body: issue.GetBody()}, nil
}

// Comments implements GitHub, reading every page.
func (r *Repository) Comments(ctx context.Context, issue int) ([]Comment, error) {
	return listPages(math.MaxInt, func(opts github.ListOptions) ([]Comment, *github.Response, error) {
		list, resp, err := r.gh.Issues.ListComments(ctx, r.owner, r.name, issue, &github.IssueListCommentsOptions{ListOptions: opts})
		out := make([]Comment, 0, len(list))
		for _, c := range list {
			out = append(out, Comment{ID: c.GetID(), Body: c.GetBody()})
		}
		return out, resp, err
	})
}

// CreateComment implements GitHub.
func (r *Repository) CreateComment(ctx context.Context, issue int, body string) (int64, error) {
	c, _, err := r.gh.Issues.CreateComment(ctx, r.owner, r.name, issue, &github.IssueComment{Body: &body})
	if err != nil {
		return 0, notFound(err)
	}
	return c.GetID(), nil
}

// EditComment implements GitHub.
func (r *Repository) EditComment(ctx context.Context, id int64, body string) error {
	_, _, err := r.gh.Issues.EditComment(ctx, r.owner, r.name, id, &github.IssueComment{Body: &body})
	return notFound(err)
}

// AddLabels implements GitHub. go-github sends a bare array, which
// GitHub still takes but its API description no longer allows; this
// sends the object form GitHub recommends.
func (r *Repository) AddLabels(ctx context.Context, issue int, labels ...string) error {
	u := fmt.Sprintf("repos/%s/%s/issues/%d/labels", url.PathEscape(r.owner), url.PathEscape(r.name), issue)
	req, err := r.gh.NewRequest(ctx, http.MethodPost, u, map[string][]string{"labels": labels})
	if err != nil {
		return err
	}
	_, err = r.gh.Do(req, nil)
	return notFound(err)
}

// RemoveLabel implements GitHub.
func (r *Repository) RemoveLabel(ctx context.Context, issue int, label string) error {
	_, err := r.gh.Issues.RemoveLabelForIssue(ctx, r.owner, r.name, issue, label)
	return notFound(err)
}

// Archive implements GitHub: it asks GitHub where the tarball is, then
// downloads it.
func (r *Repository) Archive(ctx context.Context, ref string) (io.ReadCloser, error) {
	link, _, err := r.gh.Repositories.GetArchiveLink(ctx, r.owner, r.name, github.Tarball,
		&github.RepositoryContentGetOptions{Ref: ref}, 3)
	if err != nil {
		return nil, notFound(err)
	}
	return r.download(ctx, link.String())
}

// CreateCommit implements GitHub through the Git Data API: a tree over
// the parent's, then the commit.
func (r *Repository) CreateCommit(ctx context.Context, parent, message string, files []File) (string, error) {
	base, _, err := r.gh.Git.GetCommit(ctx, r.owner, r.name, parent)
	if err != nil {
		return "", fmt.Errorf("read the parent: %w", notFound(err))
	}
	entries := make([]*github.TreeEntry, 0, len(files))
	for _, f := range files {
		entry := &github.TreeEntry{Path: github.Ptr(f.Path), Type: github.Ptr("blob"), Mode: github.Ptr(f.Mode)}
		if !f.Delete {
			entry.Content = github.Ptr(f.Content)
		}
		entries = append(entries, entry)
	}
	tree, _, err := r.gh.Git.CreateTree(ctx, r.owner, r.name, base.GetTree().GetSHA(), entries)
	if err != nil {
		return "", fmt.Errorf("write the tree: %w", notFound(err))
	}
	commit, _, err := r.gh.Git.CreateCommit(ctx, r.owner, r.name, github.Commit{
		Message: github.Ptr(message),
		Tree:    &github.Tree{SHA: tree.SHA},
		Parents: []*github.Commit{{SHA: github.Ptr(parent)}},
	}, nil)
	if err != nil {
		return "", notFound(err)
	}
	return commit.GetSHA(), nil
}

// CreateBranch implements GitHub.
func (r *Repository) CreateBranch(ctx context.Context, branch, sha string) error {
	_, _, err := r.gh.Git.CreateRef(ctx, r.owner, r.name, github.CreateRef{Ref: "refs/heads/" + branch, SHA: sha})
	return notFound(err)
}

// MoveBranch implements GitHub.
func (r *Repository) MoveBranch(ctx context.Context, branch, sha string) error {
	_, _, err := r.gh.Git.UpdateRef(ctx, r.owner, r.name, "heads/"+branch, github.UpdateRef{SHA: sha, Force: github.Ptr(true)})
	return notFound(err)
}

// AdvanceBranch implements GitHub: GitHub answers 422 "Update is not a
// fast forward" when the branch's head is not an ancestor of sha.
func (r *Repository) AdvanceBranch(ctx context.Context, branch, sha string) error {
	_, _, err := r.gh.Git.UpdateRef(ctx, r.owner, r.name, "heads/"+branch, github.UpdateRef{SHA: sha, Force: github.Ptr(false)})
	var e *github.ErrorResponse
	if errors.As(err, &e) && e.Response != nil && e.Response.StatusCode == http.StatusUnprocessableEntity &&
		strings.Contains(strings.ToLower(strings.ReplaceAll(e.Message, "-", " ")), "fast forward") {
		return fmt.Errorf("move %s to %s: %w", branch, sha, ErrNotFastForward)
	}
	return notFound(err)
}

// CommitMessage implements GitHub.
func (r *Repository) CommitMessage(ctx context.Context, sha string) (string, error) {
	c, _, err := r.gh.Git.GetCommit(ctx, r.owner, r.name, sha)
	if err != nil {
		return "", notFound(err)
	}
	return c.GetMessage(), nil
}

// OpenPullRequest implements GitHub.
func (r *Repository) OpenPullRequest(ctx context.Context, branch string) (PullRequest, bool, error) {
	open, _, err := r.gh.PullRequests.List(ctx, r.owner, r.name, &github.PullRequestListOptions{
		State: "open", Head: r.owner + ":" + branch, ListOptions: github.ListOptions{PerPage: 10},
	})
	if err != nil || len(open) == 0 {
		return PullRequest{}, false, notFound(err)
	}
	return pullRequest(open[0]), true, nil
}

// CreatePullRequest implements GitHub; maintainers may push to the
// branch.
func (r *Repository) CreatePullRequest(ctx context.Context, pr NewPullRequest) (PullRequest, error) {
	made, _, err := r.gh.PullRequests.Create(ctx, r.owner, r.name, &github.NewPullRequest{
		Title: &pr.Title, Head: &pr.Head, Base: &pr.Base, Body: &pr.Body,
		Draft: &pr.Draft, MaintainerCanModify: github.Ptr(true),
	})
	if err != nil {
		return PullRequest{}, notFound(err)
	}
	return pullRequest(made), nil
}

// EditPullRequest implements GitHub.
func (r *Repository) EditPullRequest(ctx context.Context, number int, title, body string) (PullRequest, error) {
	pr, _, err := r.gh.PullRequests.Edit(ctx, r.owner, r.name, number, &github.PullRequest{Title: &title, Body: &body})
	if err != nil {
		return PullRequest{}, notFound(err)
	}
	return pullRequest(pr), nil
}

// PullRequest implements GitHub.
func (r *Repository) PullRequest(ctx context.Context, number int) (PullRequest, error) {
	pr, _, err := r.gh.PullRequests.Get(ctx, r.owner, r.name, number)
	if err != nil {
		return PullRequest{}, notFound(err)
	}
	return pullRequest(pr), nil
}

// Review implements GitHub, reading every page of its comments.
func (r *Repository) Review(ctx context.Context, pull int, id int64) (Review, error) {
	rv, _, err := r.gh.PullRequests.GetReview(ctx, r.owner, r.name, pull, id)
	if err != nil {
		return Review{}, notFound(err)
	}
	out := Review{ID: rv.GetID(), Author: rv.GetUser().GetLogin(), Body: rv.GetBody()}
	out.Comments, err = listPages(math.MaxInt, func(opts github.ListOptions) ([]ReviewComment, *github.Response, error) {
		list, resp, err := r.gh.PullRequests.ListReviewComments(ctx, r.owner, r.name, pull, id, &opts)
		return reviewComments(list), resp, err
	})
	return out, err
}

// ReviewComments implements GitHub, reading every page.
func (r *Repository) ReviewComments(ctx context.Context, pull int) ([]ReviewComment, error) {
	return listPages(math.MaxInt, func(opts github.ListOptions) ([]ReviewComment, *github.Response, error) {
		list, resp, err := r.gh.PullRequests.ListComments(ctx, r.owner, r.name, pull,
			&github.PullRequestListCommentsOptions{Sort: "created", Direction: "asc", ListOptions: opts})
		return reviewComments(list), resp, err
	})
}

// listPages reads every page of a list, up to pages of them, converting
// each page as it comes.
func listPages[T any](pages int, list func(github.ListOptions) ([]T, *github.Response, error)) ([]T, error) {
	opts := github.ListOptions{PerPage: 100}
	var out []T
	for range pages {
		items, resp, err := list(opts)
		if err != nil {
			return nil, notFound(err)
		}
		out = append(out, items...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return out, nil
}

// reviewComments converts a page of GitHub's review comments.
func reviewComments(list []*github.PullRequestComment) []ReviewComment {
	out := make([]ReviewComment, 0, len(list))
	for _, c := range list {
		out = append(out, ReviewComment{
			ID: c.GetID(), InReplyTo: c.GetInReplyTo(), Author: c.GetUser().GetLogin(),
			Path: c.GetPath(), Line: c.GetLine(), DiffHunk: c.GetDiffHunk(), Body: c.GetBody(),
		})
	}
	return out
}

// ReplyToReviewComment implements GitHub with a request of its own:
// go-github's CreateCommentInReplyTo posts to /pulls/{n}/comments with
// in_reply_to, which GitHub's API description does not allow.
func (r *Repository) ReplyToReviewComment(ctx context.Context, pull int, id int64, body string) (int64, error) {
	u := fmt.Sprintf("repos/%s/%s/pulls/%d/comments/%d/replies", url.PathEscape(r.owner), url.PathEscape(r.name), pull, id)
	req, err := r.gh.NewRequest(ctx, http.MethodPost, u, map[string]string{"body": body})
	if err != nil {
		return 0, err
	}
	var c github.PullRequestComment
	if _, err := r.gh.Do(req, &c); err != nil {
		return 0, notFound(err)
	}
	return c.GetID(), nil
}

func pullRequest(pr *github.PullRequest) PullRequest {
	return PullRequest{
		Number: pr.GetNumber(), URL: pr.GetHTMLURL(), Draft: pr.GetDraft(), HeadSHA: pr.GetHead().GetSHA(),
		State: pr.GetState(), Title: pr.GetTitle(), Body: pr.GetBody(),
		HeadRef: pr.GetHead().GetRef(), HeadRepo: pr.GetHead().GetRepo().GetFullName(), BaseRepo: pr.GetBase().GetRepo().GetFullName(),
		Author: pr.GetUser().GetLogin(), AuthorType: pr.GetUser().GetType(),
	}
}
