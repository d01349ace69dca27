package job

import (
	"archive/tar"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/capsulehq/capsule/bot/work"
)

// fakeGitHub is the GitHub port in memory, for one repository: what the
// job's decisions are tested against. Set fail[method] to make a method
// fail, failOnce[method] to make its next call fail.
type fakeGitHub struct {
	t  *testing.T
	mu sync.Mutex

	defaultBranch string
	heads         map[string]string // branch -> commit
	files         map[string]string // the default branch's files
	executable    map[string]bool   // files with the executable bit
	perms         map[string]string // user -> role; missing users are not found
	issues        map[int]Issue
	comments      []fakeComment
	labels        map[int][]string
	commits       []fakeCommit
	pulls         []fakePull
	reviews       []fakeReview        // with their comments
	replies       []fakeReviewComment // Capsule's (and others') replies in threads
	ci            fakeCI              // check runs, jobs and logs: fake_ci_test.go
	fail          map[string]error
	failOnce      map[string]error
	calls         []string // the methods called, in order
	killAt        killAt
	nextID        int64
}

type fakeComment struct {
	Comment
	Issue int
}

type fakeCommit struct {
	SHA, Parent, Message string
	Files                []File
}

type fakeReview struct {
	Review
	Pull int
}

type fakeReviewComment struct {
	ReviewComment
	Pull int
}

type fakePull struct {
	NewPullRequest
	Number int
	Open   bool
	// Author opened it: Capsule's bot user when empty. HeadRepo is a
	// fork's full name; empty for the fake's repository.
	Author, HeadRepo string
}

// The fake's repository: owner/name and issue 12, whose title and body
// the solver sees.
const (
	fakeOwner, fakeName = "octo", "calc"
	fakeIssue           = 12
	fakeBase            = "0000000000000000000000000000000000000001"
)

func newFakeGitHub(t *testing.T) *fakeGitHub {
	return &fakeGitHub{
		t:             t,
		defaultBranch: "main",
		heads:         map[string]string{"main": fakeBase},
		files:         map[string]string{"calc/ops.py": "def add(a, b):\n    return a - b\n", "run.sh": "pytest\n"},
		executable:    map[string]bool{"run.sh": true},
		perms:         map[string]string{"alice": "maintain", "tri": "triage", "writer": "write"},
		issues:        map[int]Issue{fakeIssue: {Title: "add subtracts", Body: "add(1, 2) gives -1"}},
		labels:        map[int][]string{},
		fail:          map[string]error{},
		failOnce:      map[string]error{},
		nextID:        100,
	}
}

var _ GitHub = (*fakeGitHub)(nil)

// killAt stops a job as kill -9 would, at the n-th call of method: the
// call fails and kill (the job's context's cancel) runs, so that the job
// writes nothing more.
type killAt struct {
	method string
	n      int
	kill   func()
}

// call records a call and returns the error set for it.
func (f *fakeGitHub) call(method string) error {
	f.calls = append(f.calls, method)
	if k := f.killAt; k.method == method && k.kill != nil {
		if f.count(method) == k.n {
			k.kill()
			return context.Canceled
		}
	}
	if err, ok := f.failOnce[method]; ok {
		delete(f.failOnce, method)
		return err
	}
	return f.fail[method]
}

// count returns how many times method was called.
func (f *fakeGitHub) count(method string) int {
	n := 0
	for _, c := range f.calls {
		if c == method {
			n++
		}
	}
	return n
}

func notFoundf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrNotFound)
}

func (f *fakeGitHub) DefaultBranch(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.defaultBranch, f.call("DefaultBranch")
}

func (f *fakeGitHub) BranchHead(_ context.Context, branch string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("BranchHead"); err != nil {
		return "", err
	}
	sha, ok := f.heads[branch]
	if !ok {
		return "", notFoundf("branch %s", branch)
	}
	return sha, nil
}

func (f *fakeGitHub) File(_ context.Context, path, ref string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("File"); err != nil {
		return nil, err
	}
	if ref != f.heads[f.defaultBranch] {
		f.t.Errorf("File(%s) at %s, not at the pinned head", path, ref)
	}
	text, ok := f.files[path]
	if !ok {
		return nil, notFoundf("file %s", path)
	}
	return []byte(text), nil
}

func (f *fakeGitHub) Permission(_ context.Context, user string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("Permission"); err != nil {
		return "", err
	}
	role, ok := f.perms[user]
	if !ok {
		return "", notFoundf("user %s", user)
	}
	return role, nil
}

func (f *fakeGitHub) Issue(_ context.Context, number int) (Issue, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("Issue"); err != nil {
		return Issue{}, err
	}
	issue, ok := f.issues[number]
	if !ok {
		return Issue{}, notFoundf("issue %d", number)
	}
	return issue, nil
}

func (f *fakeGitHub) Comments(_ context.Context, issue int) ([]Comment, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("Comments"); err != nil {
		return nil, err
	}
	var out []Comment
	for _, c := range f.comments {
		if c.Issue == issue {
			out = append(out, c.Comment)
		}
	}
	return out, nil
}

func (f *fakeGitHub) CreateComment(_ context.Context, issue int, body string) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("CreateComment"); err != nil {
		return 0, err
	}
	f.nextID++
	f.comments = append(f.comments, fakeComment{Comment{ID: f.nextID, Body: body}, issue})
	return f.nextID, nil
}

func (f *fakeGitHub) EditComment(_ context.Context, id int64, body string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("EditComment"); err != nil {
		return err
	}
	for i := range f.comments {
		if f.comments[i].ID == id {
			f.comments[i].Body = body
			return nil
		}
	}
	return notFoundf("comment %d", id)
}

func (f *fakeGitHub) AddLabels(_ context.Context, issue int, labels ...string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("AddLabels"); err != nil {
		return err
	}
	for _, l := range labels {
		if !slices.Contains(f.labels[issue], l) {
			f.labels[issue] = append(f.labels[issue], l)
		}
	}
	return nil
}

func (f *fakeGitHub) RemoveLabel(_ context.Context, issue int, label string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("RemoveLabel"); err != nil {
		return err
	}
	i := slices.Index(f.labels[issue], label)
	if i < 0 {
		return notFoundf("label %s", label)
	}
	f.labels[issue] = slices.Delete(f.labels[issue], i, i+1)
	return nil
}

func (f *fakeGitHub) Archive(_ context.Context, ref string) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("Archive"); err != nil {
		return nil, err
	}
	files, ok := f.filesAt(ref)
	if !ok {
		f.t.Errorf("Archive at %s, not at the default branch's head nor a commit made since", ref)
		return nil, notFoundf("commit %s", ref)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		mode := int64(0o644)
		if f.executable[name] {
			mode = 0o755
		}
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: "octo-calc-0000001/" + name, Typeflag: tar.TypeReg, Mode: mode, Size: int64(len(body))}); err != nil {
			return nil, err
		}
		io.WriteString(tw, body)
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	gz.Close()
	return io.NopCloser(&buf), nil
}

// filesAt returns the files of commit sha: the default branch's head, or
// a commit made over it since.
func (f *fakeGitHub) filesAt(sha string) (map[string]string, bool) {
	if sha == f.heads[f.defaultBranch] {
		return f.files, true
	}
	c, ok := f.commit(sha)
	if !ok {
		return nil, false
	}
	files, ok := f.filesAt(c.Parent)
	if !ok {
		return nil, false
	}
	files = maps.Clone(files)
	for _, e := range c.Files {
		if e.Delete {
			delete(files, e.Path)
		} else {
			files[e.Path] = e.Content
		}
	}
	return files, true
}

func (f *fakeGitHub) CreateCommit(_ context.Context, parent, message string, files []File) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("CreateCommit"); err != nil {
		return "", err
	}
	sha := fmt.Sprintf("%040x", len(f.commits)+2)
	f.commits = append(f.commits, fakeCommit{SHA: sha, Parent: parent, Message: message, Files: files})
	return sha, nil
}

func (f *fakeGitHub) CreateBranch(_ context.Context, branch, sha string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("CreateBranch"); err != nil {
		return err
	}
	if _, ok := f.heads[branch]; ok {
		return fmt.Errorf("branch %s exists", branch)
	}
	f.heads[branch] = sha
	return nil
}

func (f *fakeGitHub) MoveBranch(_ context.Context, branch, sha string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("MoveBranch"); err != nil {
		return err
	}
	if _, ok := f.heads[branch]; !ok {
		return notFoundf("branch %s", branch)
	}
	f.heads[branch] = sha
	return nil
}

func (f *fakeGitHub) AdvanceBranch(_ context.Context, branch, sha string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("AdvanceBranch"); err != nil {
		return err
	}
	head, ok := f.heads[branch]
	if !ok {
		return notFoundf("branch %s", branch)
	}
	if !f.descends(sha, head) {
		return fmt.Errorf("move %s to %s: %w", branch, sha, ErrNotFastForward)
	}
	f.heads[branch] = sha
	return nil
}

// descends reports whether commit sha is ancestor or descends from it.
func (f *fakeGitHub) descends(sha, ancestor string) bool {
	for sha != ancestor {
		c, ok := f.commit(sha)
		if !ok {
			return false
		}
		sha = c.Parent
	}
	return true
}

func (f *fakeGitHub) commit(sha string) (fakeCommit, bool) {
	for _, c := range f.commits {
		if c.SHA == sha {
			return c, true
		}
	}
	return fakeCommit{}, false
}

func (f *fakeGitHub) CommitMessage(_ context.Context, sha string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("CommitMessage"); err != nil {
		return "", err
	}
	if sha == fakeBase {
		return "Initial commit\n", nil
	}
	c, ok := f.commit(sha)
	if !ok {
		return "", notFoundf("commit %s", sha)
	}
	return c.Message, nil
}

func (f *fakeGitHub) PullRequest(_ context.Context, number int) (PullRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("PullRequest"); err != nil {
		return PullRequest{}, err
	}
	for _, p := range f.pulls {
		if p.Number == number {
			return f.pullRequest(p), nil
		}
	}
	return PullRequest{}, notFoundf("pull request %d", number)
}

func (f *fakeGitHub) Review(_ context.Context, pull int, id int64) (Review, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("Review"); err != nil {
		return Review{}, err
	}
	for _, rv := range f.reviews {
		if rv.Pull == pull && rv.ID == id {
			rv.Comments = slices.Clone(rv.Comments)
			return rv.Review, nil
		}
	}
	return Review{}, notFoundf("review %d", id)
}

func (f *fakeGitHub) ReviewComments(_ context.Context, pull int) ([]ReviewComment, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("ReviewComments"); err != nil {
		return nil, err
	}
	var out []ReviewComment
	for _, rv := range f.reviews {
		if rv.Pull == pull {
			out = append(out, rv.Comments...)
		}
	}
	for _, c := range f.replies {
		if c.Pull == pull {
			out = append(out, c.ReviewComment)
		}
	}
	slices.SortFunc(out, func(a, b ReviewComment) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func (f *fakeGitHub) ReplyToReviewComment(_ context.Context, pull int, id int64, body string) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("ReplyToReviewComment"); err != nil {
		return 0, err
	}
	for _, rv := range f.reviews {
		for _, c := range rv.Comments {
			if rv.Pull == pull && c.ID == id {
				f.nextID++
				f.replies = append(f.replies, fakeReviewComment{ReviewComment{ID: f.nextID, InReplyTo: id, Author: fakeBot, Path: c.Path, Line: c.Line, Body: body}, pull})
				return f.nextID, nil
			}
		}
	}
	return 0, notFoundf("review comment %d (replies answer a thread's first comment)", id)
}

// threadReplies returns the bodies of the replies to review comment id.
func (f *fakeGitHub) threadReplies(id int64) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.replies {
		if c.InReplyTo == id {
			out = append(out, c.Body)
		}
	}
	return out
}

func (f *fakeGitHub) OpenPullRequest(_ context.Context, branch string) (PullRequest, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("OpenPullRequest"); err != nil {
		return PullRequest{}, false, err
	}
	for _, p := range f.pulls {
		if p.Open && p.Head == branch {
			return f.pullRequest(p), true, nil
		}
	}
	return PullRequest{}, false, nil
}

func (f *fakeGitHub) CreatePullRequest(_ context.Context, pr NewPullRequest) (PullRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("CreatePullRequest"); err != nil {
		return PullRequest{}, err
	}
	if _, ok := f.heads[pr.Head]; !ok {
		return PullRequest{}, fmt.Errorf("no branch %s", pr.Head)
	}
	f.pulls = append(f.pulls, fakePull{NewPullRequest: pr, Number: 100 + len(f.pulls), Open: true})
	return f.pullRequest(f.pulls[len(f.pulls)-1]), nil
}

func (f *fakeGitHub) EditPullRequest(_ context.Context, number int, title, body string) (PullRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.call("EditPullRequest"); err != nil {
		return PullRequest{}, err
	}
	for i := range f.pulls {
		if f.pulls[i].Number == number {
			f.pulls[i].Title, f.pulls[i].Body = title, body
			return f.pullRequest(f.pulls[i]), nil
		}
	}
	return PullRequest{}, notFoundf("pull request %d", number)
}

// fakeBot is Capsule's bot user in the fake.
const fakeBot = "capsule-app[bot]"

func (f *fakeGitHub) pullRequest(p fakePull) PullRequest {
	repo := fakeOwner + "/" + fakeName
	pr := PullRequest{
		Number: p.Number, URL: fmt.Sprintf("https://github.com/%s/pull/%d", repo, p.Number), Draft: p.Draft,
		HeadSHA: f.heads[p.Head], State: "closed", Title: p.Title, Body: p.Body,
		HeadRef: p.Head, HeadRepo: p.HeadRepo, BaseRepo: repo, Author: p.Author, AuthorType: "User",
	}
	if p.Open {
		pr.State = "open"
	}
	if pr.HeadRepo == "" {
		pr.HeadRepo = repo
	}
	if pr.Author == "" {
		pr.Author = fakeBot
	}
	if strings.HasSuffix(pr.Author, "[bot]") {
		pr.AuthorType = "Bot"
	}
	return pr
}

// bodies returns the bodies of the issue's comments.
func (f *fakeGitHub) bodies(issue int) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.comments {
		if c.Issue == issue {
			out = append(out, c.Body)
		}
	}
	return out
}

// wrote reports whether a method that changes GitHub was called.
func (f *fakeGitHub) wrote() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.calls {
		if strings.HasPrefix(c, "Create") || strings.HasPrefix(c, "Edit") || strings.HasPrefix(c, "Add") ||
			strings.HasPrefix(c, "Remove") || strings.HasPrefix(c, "Move") || strings.HasPrefix(c, "Advance") || strings.HasPrefix(c, "Reply") {
			out = append(out, c)
		}
	}
	return out
}

// runJob runs t with r, giving the Result's Err apart for the tests'
// checks.
func runJob(ctx context.Context, r *Runner, gh GitHub, t work.Request, hooks Hooks) (Result, error) {
	res := r.Run(ctx, gh, t, hooks)
	return res, res.Err
}
