package server

import (
	"context"
	"fmt"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/webhook"
	"github.com/capsulehq/capsule/bot/work"
)

// admitRound checks a round's delivery against the store's record of the
// pull request Capsule opened, before anything is stored: the payload
// alone proves nothing (anyone who can push can name a branch
// capsule/issue-N). It returns the request with its Issue filled in for
// a command (whose payload does not name the branch), or an
// *webhook.Ignored error for a pull request that is not Capsule's, and
// for failing checks that did not run on the last commit Capsule pushed
// (a human pushed since, or the run is an old one).
func (s *Server) admitRound(ctx context.Context, r work.Request) (work.Request, error) {
	var (
		pr  store.PullRequest
		ok  bool
		err error
	)
	if r.Issue == 0 {
		pr, ok, err = s.cfg.Store.PullRequestNumbered(ctx, r.Owner, r.Repo, r.PullRequest)
	} else {
		pr, ok, err = s.cfg.Store.PullRequestOf(ctx, r.Owner, r.Repo, r.Issue)
	}
	if err != nil {
		return r, fmt.Errorf("read the record of the pull request: %w", err)
	}
	if why := work.CheckRecord(r, work.PullRequest{Number: pr.Number, HeadSHA: pr.HeadSHA}, ok); why != "" {
		return r, &webhook.Ignored{Reason: why}
	}
	r.Issue = pr.Issue
	return r, nil
}
