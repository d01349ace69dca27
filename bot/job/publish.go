package job

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// Branch is the branch a job pushes for an issue.
func Branch(issue int) string { return fmt.Sprintf("capsule/issue-%d", issue) }

// publish commits the outcome's change on the issue's branch through the
// Git Data API and opens the pull request, or updates the one a previous
// run opened. It returns nil when there is no change to publish.
func (s *session) publish(ctx context.Context, baseBranch, title string, o *pipeline.RepoOutcome) (*github.PullRequest, error) {
	if len(o.Edits) == 0 {
		return nil, nil
	}
	sha, err := s.commit(ctx, title, o)
	if err != nil {
		return nil, err
	}
	branch := Branch(s.t.Issue)
	if err := s.pointBranch(ctx, branch, sha); err != nil {
		return nil, err
	}
	prTitle, body := report.PullRequest(report.Issue{Owner: s.t.Owner, Repo: s.t.Repo, Number: s.t.Issue, Title: title},
		o.Log, s.runner.Version, 0)
	open, _, err := s.gh.PullRequests.List(ctx, s.t.Owner, s.t.Repo, &github.PullRequestListOptions{
		State: "open", Head: s.t.Owner + ":" + branch, ListOptions: github.ListOptions{PerPage: 10},
	})
	if err != nil {
		return nil, githubError("look for the issue's pull request", err)
	}
	if len(open) > 0 {
		pr, _, err := s.gh.PullRequests.Edit(ctx, s.t.Owner, s.t.Repo, open[0].GetNumber(),
			&github.PullRequest{Title: &prTitle, Body: &body})
		if err != nil {
			return nil, githubError("update the pull request", err)
		}
		s.log.Info("pull request updated", "number", pr.GetNumber(), "commit", sha)
		return pr, nil
	}
	// Only a proven fix is ready for review.
	draft := o.Outcome() != attemptlog.Solved
	pr, _, err := s.gh.PullRequests.Create(ctx, s.t.Owner, s.t.Repo, &github.NewPullRequest{
		Title: &prTitle, Head: &branch, Base: &baseBranch, Body: &body,
		Draft: &draft, MaintainerCanModify: github.Ptr(true),
	})
	if err != nil {
		return nil, githubError("open the pull request", err)
	}
	s.log.Info("pull request opened", "number", pr.GetNumber(), "commit", sha, "draft", draft)
	return pr, nil
}

// commit makes one commit over the pinned base with the outcome's files.
func (s *session) commit(ctx context.Context, title string, o *pipeline.RepoOutcome) (string, error) {
	base, _, err := s.gh.Git.GetCommit(ctx, s.t.Owner, s.t.Repo, s.base)
	if err != nil {
		return "", githubError("read the base commit", err)
	}
	entries := make([]*github.TreeEntry, 0, len(o.Edits))
	for _, e := range o.Edits {
		entry := &github.TreeEntry{Path: github.Ptr(e.Path), Type: github.Ptr("blob"), Mode: github.Ptr(fileMode(s.treeDir, e.Path))}
		if !e.Deletes() {
			entry.Content = github.Ptr(e.Content)
		}
		entries = append(entries, entry)
	}
	tree, _, err := s.gh.Git.CreateTree(ctx, s.t.Owner, s.t.Repo, base.GetTree().GetSHA(), entries)
	if err != nil {
		return "", githubError("write the tree", err)
	}
	commit, _, err := s.gh.Git.CreateCommit(ctx, s.t.Owner, s.t.Repo, github.Commit{
		Message: github.Ptr(commitMessage(s.t.Issue, title, o)),
		Tree:    &github.Tree{SHA: tree.SHA},
		Parents: []*github.Commit{{SHA: github.Ptr(s.base)}},
	}, nil)
	if err != nil {
		return "", githubError("write the commit", err)
	}
	return commit.GetSHA(), nil
}

// pointBranch makes branch point at sha, creating it or moving it (a
// retry replaces the previous run's commit).
func (s *session) pointBranch(ctx context.Context, branch, sha string) error {
	_, _, err := s.gh.Git.GetRef(ctx, s.t.Owner, s.t.Repo, "heads/"+branch)
	switch {
	case isNotFound(err):
		if _, _, err := s.gh.Git.CreateRef(ctx, s.t.Owner, s.t.Repo, github.CreateRef{Ref: "refs/heads/" + branch, SHA: sha}); err != nil {
			return githubError("create the branch "+branch, err)
		}
	case err != nil:
		return githubError("read the branch "+branch, err)
	default:
		if _, _, err := s.gh.Git.UpdateRef(ctx, s.t.Owner, s.t.Repo, "heads/"+branch, github.UpdateRef{SHA: sha, Force: github.Ptr(true)}); err != nil {
			return githubError("move the branch "+branch, err)
		}
	}
	return nil
}

// commitMessage says what the commit is and whether its tests pass.
func commitMessage(issue int, title string, o *pipeline.RepoOutcome) string {
	l := o.Log
	switch {
	case o.Outcome() == attemptlog.Solved:
		return fmt.Sprintf("Fix #%d: %s\n\nMade by Capsule; the tests that show the issue pass (`%s`) at attempt %d after %d model calls, with no regressions.\n",
			issue, title, l.TestCommand, l.AttemptIndex, l.ModelCalls())
	case o.Solved():
		return fmt.Sprintf("Unproven fix for #%d: %s\n\nMade by Capsule; the tests pass (`%s`) at attempt %d after %d model calls, but no test showed the issue.\n",
			issue, title, l.TestCommand, l.AttemptIndex, l.ModelCalls())
	}
	return fmt.Sprintf("Attempt at #%d: %s (tests do not pass)\n\nMade by Capsule; no attempt passed the tests (`%s`) in %d model calls.\n",
		issue, title, l.TestCommand, l.ModelCalls())
}

// fileMode keeps an existing file's executable bit.
func fileMode(dir, name string) string {
	if dir != "" {
		if info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name))); err == nil && info.Mode()&fs.ModePerm&0o111 != 0 {
			return "100755"
		}
	}
	return "100644"
}
