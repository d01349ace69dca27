package job

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/capsulehq/capsule/bot/report"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/repo"
)

// publish commits the outcome's change on the issue's branch through the
// Git Data API and opens the pull request, or updates the one a previous
// run opened. It returns the zero PullRequest when there is no change to
// publish.
func (s *issueRun) publish(ctx context.Context, baseBranch, title string, o *repo.Outcome) (PullRequest, error) {
	if len(o.Edits) == 0 {
		return PullRequest{}, nil
	}
	sha, err := s.commit(ctx, withTrailers(commitMessage(s.t.Issue, title, o), s.t.Issue, ""), o)
	if err != nil {
		return PullRequest{}, err
	}
	branch := work.Branch(s.t.Issue)
	if err := s.pointBranch(ctx, branch, sha); err != nil {
		return PullRequest{}, err
	}
	prTitle, body := report.PullRequest(report.Issue{Owner: s.t.Owner, Repo: s.t.Repo, Number: s.t.Issue, Title: title},
		o.Log, s.runner.Version, 0)
	open, found, err := s.gh.OpenPullRequest(ctx, branch)
	if err != nil {
		return PullRequest{}, githubError("look for the issue's pull request", err)
	}
	if found {
		pr, err := s.gh.EditPullRequest(ctx, open.Number, prTitle, body)
		if err != nil {
			return PullRequest{}, githubError("update the pull request", err)
		}
		s.log.Info("pull request updated", "number", pr.Number, "commit", sha)
		pr.HeadSHA = sha
		s.opened(pr)
		return pr, nil
	}
	// Only a proven fix is ready for review.
	draft := o.Outcome() != attemptlog.Solved
	pr, err := s.gh.CreatePullRequest(ctx, NewPullRequest{Title: prTitle, Body: body, Head: branch, Base: baseBranch, Draft: draft})
	if err != nil {
		// GitHub may have opened it and its answer been lost (a 5xx or
		// a timeout after the write; the client's retry is then refused
		// as a second pull request from the branch): look again, so that
		// the job never opens two.
		again, found, ferr := s.gh.OpenPullRequest(ctx, branch)
		if ferr != nil || !found {
			return PullRequest{}, githubError("open the pull request", err)
		}
		s.log.Info("the pull request was opened, though GitHub's answer was lost", "number", again.Number, "err", err)
		pr = again
	}
	s.log.Info("pull request opened", "number", pr.Number, "commit", sha, "draft", draft)
	pr.HeadSHA = sha
	s.opened(pr)
	return pr, nil
}

// opened tells the hooks which pull request the job opened or updated.
func (s *issueRun) opened(pr PullRequest) {
	if s.hooks.PullRequest != nil {
		s.hooks.PullRequest(pr.Number)
	}
}

// commit makes one commit over s.parent with the outcome's files.
func (s *session) commit(ctx context.Context, message string, o *repo.Outcome) (string, error) {
	files := make([]File, 0, len(o.Edits))
	for _, e := range o.Edits {
		f := File{Path: e.Path, Mode: s.mode(e.Path), Delete: e.Delete}
		if !f.Delete {
			f.Content = e.Content
		}
		files = append(files, f)
	}
	sha, err := s.gh.CreateCommit(ctx, s.parent, message, files)
	if err != nil {
		return "", githubError("write the commit", err)
	}
	return sha, nil
}

// pointBranch makes branch point at sha, creating it or moving it (a
// retry replaces the previous run's commit).
func (s *issueRun) pointBranch(ctx context.Context, branch, sha string) error {
	_, err := s.gh.BranchHead(ctx, branch)
	switch {
	case errors.Is(err, ErrNotFound):
		cerr := s.gh.CreateBranch(ctx, branch, sha)
		if cerr == nil {
			return nil
		}
		// GitHub may have made it and its answer been lost (the retry is
		// then refused: the reference exists): look again.
		if _, err := s.gh.BranchHead(ctx, branch); err != nil {
			return githubError("create the branch "+branch, cerr)
		}
		if err := s.gh.MoveBranch(ctx, branch, sha); err != nil {
			return githubError("move the branch "+branch, err)
		}
	case err != nil:
		return githubError("read the branch "+branch, err)
	default:
		if err := s.gh.MoveBranch(ctx, branch, sha); err != nil {
			return githubError("move the branch "+branch, err)
		}
	}
	return nil
}

// commitMessage says what the commit is and whether its tests pass.
func commitMessage(issue int, title string, o *repo.Outcome) string {
	l := o.Log
	switch {
	case o.Outcome() == attemptlog.Solved:
		return fmt.Sprintf("Fix #%d: %s\n\nMade by Capsule; the tests that show the issue pass (`%s`) at attempt %d after %d model calls, with no regressions.\n",
			issue, title, l.TestCommand, l.AttemptIndex, l.ModelCalls())
	case o.Solved():
		return fmt.Sprintf("Unproven fix for #%d: %s\n\nMade by Capsule; the tests pass (`%s`) at attempt %d after %d model calls, but %s.\n",
			issue, title, l.TestCommand, l.AttemptIndex, l.ModelCalls(), l.UnprovenBecause())
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

// logRound adds r to the pull request's body, unless it is there, and
// takes back a "not passing" title and warning when r passed. The body
// is read again first: someone may have edited it while the loop ran.
func (s *session) logRound(ctx context.Context, pr PullRequest, r report.Round) error {
	pr, err := s.gh.PullRequest(ctx, pr.Number)
	if err != nil {
		return githubError("read the pull request", err)
	}
	title, body := report.RoundTitle(pr.Title, r), report.AddRound(pr.Body, r, 0)
	if title == pr.Title && body == pr.Body {
		return nil
	}
	if _, err := s.gh.EditPullRequest(ctx, pr.Number, title, body); err != nil {
		return githubError("log the round in the pull request", err)
	}
	return nil
}

// pushOnBranch commits o's change over the branch's head (s.parent) with
// message and the trailers of round key, and moves the branch to it,
// never forcing: when someone pushed meanwhile, it pushes nothing and
// says so. It returns "" when o changes nothing.
func (s *session) pushOnBranch(ctx context.Context, message, key string, o *repo.Outcome) (string, error) {
	if len(o.Edits) == 0 {
		return "", nil
	}
	sha, err := s.commit(ctx, withTrailers(message, s.t.Issue, key), o)
	if err != nil {
		return "", err
	}
	branch := work.Branch(s.t.Issue)
	if err := s.gh.AdvanceBranch(ctx, branch, sha); errors.Is(err, ErrNotFastForward) {
		return "", fmt.Errorf("someone pushed to %s while Capsule worked, and Capsule never force-pushes, so it pushed nothing: "+
			"comment `/capsule` with the request on the pull request to run again on the new head (%w)", branch, err)
	} else if err != nil {
		return "", githubError("move the branch "+branch, err)
	}
	return sha, nil
}

// roundMessage says what a round's commit is.
func roundMessage(issue int, r report.Round, title string, o *repo.Outcome) string {
	l := o.Log
	return fmt.Sprintf("Round %d for #%d: %s\n\nMade by Capsule for %s; the tests pass (`%s`) at attempt %d after %d model calls.\n",
		r.Number, issue, oneLine(title), oneLine(strings.NewReplacer("`", "", "@", "").Replace(r.Cause)), l.TestCommand, l.AttemptIndex, l.ModelCalls())
}

// newRound is round key on a pull request with body: numbered as the
// body logs it, else as the next.
func newRound(body, key, cause string) report.Round {
	n, ok := report.RoundNumber(body, key)
	if !ok {
		n = report.NextRound(body)
	}
	return report.Round{Number: n, Key: key, Cause: cause}
}
