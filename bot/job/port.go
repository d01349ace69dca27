package job

import (
	"context"
	"errors"
	"io"

	"github.com/capsulehq/capsule/bot/round"
	"github.com/capsulehq/capsule/bot/work"
)

// GitHub is what a job does on GitHub, on the repository it works on:
// the port the job is written against. Repository implements it over
// go-github; the job's tests use an in-memory fake. An error wraps
// ErrNotFound when the thing asked for does not exist (or the token
// cannot see it).
type GitHub interface {
	// DefaultBranch names the repository's default branch.
	DefaultBranch(ctx context.Context) (string, error)
	// BranchHead returns the commit branch points at.
	BranchHead(ctx context.Context, branch string) (string, error)
	// File returns the content of the file at path in commit ref.
	File(ctx context.Context, path, ref string) ([]byte, error)
	// Permission returns user's role on the repository: none, read,
	// triage, write, maintain or admin.
	Permission(ctx context.Context, user string) (string, error)

	// Issue reads an issue.
	Issue(ctx context.Context, number int) (Issue, error)
	// Comments lists an issue's comments, oldest first.
	Comments(ctx context.Context, issue int) ([]Comment, error)
	// CreateComment comments on an issue and returns the comment's id.
	CreateComment(ctx context.Context, issue int, body string) (int64, error)
	// EditComment replaces a comment's body.
	EditComment(ctx context.Context, id int64, body string) error
	// AddLabels adds labels to an issue.
	AddLabels(ctx context.Context, issue int, labels ...string) error
	// RemoveLabel removes a label from an issue.
	RemoveLabel(ctx context.Context, issue int, label string) error

	// Archive returns the gzipped tarball of commit ref, whose entries
	// share one top directory; the caller closes it.
	Archive(ctx context.Context, ref string) (io.ReadCloser, error)
	// CreateCommit makes a commit over parent that changes files, and
	// returns its SHA. No branch points at it yet.
	CreateCommit(ctx context.Context, parent, message string, files []File) (string, error)
	// CreateBranch makes a new branch point at sha.
	CreateBranch(ctx context.Context, branch, sha string) error
	// MoveBranch makes an existing branch point at sha, even when sha
	// does not descend from its head.
	MoveBranch(ctx context.Context, branch, sha string) error
	// AdvanceBranch makes an existing branch point at sha, which must
	// descend from its head: it never forces. The error wraps
	// ErrNotFastForward when the branch moved on meanwhile (someone
	// pushed).
	AdvanceBranch(ctx context.Context, branch, sha string) error
	// CommitMessage returns the message of commit sha.
	CommitMessage(ctx context.Context, sha string) (string, error)

	// OpenPullRequest finds the open pull request from branch; false when
	// there is none.
	OpenPullRequest(ctx context.Context, branch string) (PullRequest, bool, error)
	// CreatePullRequest opens a pull request.
	CreatePullRequest(ctx context.Context, pr NewPullRequest) (PullRequest, error)
	// EditPullRequest replaces a pull request's title and body.
	EditPullRequest(ctx context.Context, number int, title, body string) (PullRequest, error)
	// PullRequest reads a pull request, whatever its state.
	PullRequest(ctx context.Context, number int) (PullRequest, error)

	// Review reads a review of pull request pull, with its comments.
	Review(ctx context.Context, pull int, id int64) (Review, error)
	// ReviewComments lists the review comments of pull request pull,
	// replies included, oldest first.
	ReviewComments(ctx context.Context, pull int) ([]ReviewComment, error)
	// ReplyToReviewComment answers review comment id, the first of its
	// thread, in that thread, and returns the reply's id.
	ReplyToReviewComment(ctx context.Context, pull int, id int64, body string) (int64, error)

	// PullRequestCommits lists the commits of pull request pull, oldest
	// first (GitHub lists 250 at most).
	PullRequestCommits(ctx context.Context, pull int) ([]Commit, error)
	// CheckRuns lists the latest check run of each name on commit sha.
	CheckRuns(ctx context.Context, sha string) ([]CheckRun, error)
	// Annotations lists the first annotations of check run id.
	Annotations(ctx context.Context, checkRun int64) ([]round.Annotation, error)
	// WorkflowJobs lists the jobs of GitHub Actions workflow run id (its
	// latest attempt).
	WorkflowJobs(ctx context.Context, run int64) ([]WorkflowJob, error)
	// JobLog returns the end of the log of GitHub Actions job id: its last
	// MaxJobLogBytes at most, from the start of a line.
	JobLog(ctx context.Context, job int64) (string, error)
}

// Issue is what the job reads of an issue.
type Issue struct {
	Title, Body string
}

// Comment is an issue comment.
type Comment struct {
	ID   int64
	Body string
}

// Review is a submitted pull request review.
type Review struct {
	ID       int64
	Author   string
	Body     string // the reviewer's summary; may be empty
	Comments []ReviewComment
}

// ReviewComment is a comment on a line of a pull request's diff.
type ReviewComment struct {
	ID int64
	// InReplyTo is the first comment of the thread a reply answers; 0 for
	// a thread's first comment.
	InReplyTo int64
	Author    string
	Path      string
	Line      int // 0 for a comment on a whole file
	// DiffHunk is the diff shown above the comment, ending at its line.
	DiffHunk string
	Body     string
}

// ErrNotFastForward is wrapped by AdvanceBranch's error when the branch's
// head is not an ancestor of the commit: someone pushed to it.
var ErrNotFastForward = errors.New("the branch moved: not a fast-forward")

// File is one file a commit changes.
type File struct {
	Path    string
	Content string
	Mode    string // "100644", or "100755" for an executable
	Delete  bool   // the commit deletes the file; Content is unused
}

// NewPullRequest is a pull request to open.
type NewPullRequest struct {
	Title, Body string
	Head, Base  string // branch names
	Draft       bool
}

// PullRequest is a pull request opened, updated or read.
type PullRequest struct {
	Number int
	URL    string
	Draft  bool
	// HeadSHA is the commit the pull request's branch points at, when the
	// job knows it (after it pushed, or when it read the pull request).
	HeadSHA string

	// The fields below are what PullRequest reads, to tell Capsule's pull
	// request from one that only looks like it.

	State       string // open or closed
	Title, Body string
	HeadRef     string // the head branch's name
	// HeadRepo and BaseRepo are the full names (owner/name) of the head
	// and base repositories: they differ for a fork's pull request.
	HeadRepo, BaseRepo string
	// Author is the login of who opened it, AuthorType its type: "Bot"
	// for an App's bot user or github-actions[bot], else "User".
	Author, AuthorType string
}

// Identity is what p shows of itself for the checks of whether it is
// Capsule's (work.PullRequest); number is the pull request asked for,
// which p as read may leave zero.
func (p PullRequest) Identity(number int) work.PullRequest {
	return work.PullRequest{
		Number: number, State: p.State, HeadRef: p.HeadRef, HeadSHA: p.HeadSHA,
		Head: work.Repository{FullName: p.HeadRepo}, Base: work.Repository{FullName: p.BaseRepo},
		Author: work.Account{Login: p.Author, Type: p.AuthorType},
	}
}
