package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/internal/httpretry"
	"github.com/capsulehq/capsule/pipeline/repo"
)

// ErrWaitingForGitHub is wrapped by the error of a job that stopped to
// wait for GitHub (see Hooks.WaitForGitHub).
var ErrWaitingForGitHub = errors.New("waiting for GitHub")

// GitHubDown reports whether err says GitHub could not be reached or kept
// failing after the client's retries (the loop's errors, the model's
// among them, are never GitHub's): a network error (DNS, connection
// refused or reset, a timeout), a 5xx answer, an installation token that
// could not be minted for either reason, or a rate limit whose reset lies
// further away than the client waits. A 4xx answer is GitHub's verdict,
// not an outage; a cancelled context is the caller's.
func GitHubDown(err error) bool {
	var loop *loopError
	if err == nil || errors.Is(err, context.Canceled) || errors.As(err, &loop) {
		return false
	}
	var (
		resp     *github.ErrorResponse
		token    *ghinstallation.HTTPError
		download *downloadError
		rate     *github.RateLimitError
		abuse    *github.AbuseRateLimitError
		tooLong  *httpretry.WaitTooLongError
		network  net.Error
	)
	switch {
	case errors.As(err, &rate), errors.As(err, &abuse), errors.As(err, &tooLong):
		return true
	case errors.As(err, &resp) && resp.Response != nil:
		return resp.Response.StatusCode >= http.StatusInternalServerError
	case errors.As(err, &download):
		return download.code >= http.StatusInternalServerError
	case errors.As(err, &token) && token.Response != nil:
		code := token.Response.StatusCode
		return code >= http.StatusInternalServerError || code == http.StatusTooManyRequests
	}
	return errors.As(err, &network) || errors.Is(err, io.ErrUnexpectedEOF)
}

// RetryAt returns when GitHub said it will take the job's requests again,
// for a rate limit (the installation's own, not an outage of GitHub):
// its reset, or its Retry-After. It returns the zero time for any other
// error.
func RetryAt(err error, now time.Time) time.Time {
	var (
		tooLong *httpretry.WaitTooLongError
		rate    *github.RateLimitError
		abuse   *github.AbuseRateLimitError
	)
	switch {
	case errors.As(err, &tooLong):
		return tooLong.Until
	case errors.As(err, &rate):
		return rate.Rate.Reset.Time
	case errors.As(err, &abuse) && abuse.RetryAfter != nil:
		return now.Add(*abuse.RetryAfter)
	}
	return time.Time{}
}

// Kept is what a job that stopped to wait for GitHub had done that
// GitHub does not hold: the loop's outcome, the commit it worked over
// and the modes of the files it changes. Its next run, given it back
// (Hooks.Kept), publishes it without running the loop again.
type Kept struct {
	outcome *repo.Outcome
	parent  string
	modes   map[string]string
}

// waitsForGitHub reports whether the job stops to wait for GitHub rather
// than fail with err.
func (s *session) waitsForGitHub(ctx context.Context, err error) bool {
	return ctx.Err() == nil && GitHubDown(err) && s.hooks.WaitForGitHub != nil && s.hooks.WaitForGitHub(err)
}

// waitForGitHub ends the run of a job that will wait for GitHub: nothing
// more is written (GitHub does not answer), the loop's outcome, if it
// ran, is handed to Hooks.Keep, and the error wraps ErrWaitingForGitHub.
func (s *session) waitForGitHub(cause error) (Result, error) {
	s.log.Warn("job waits for GitHub", "err", cause)
	if s.solved != nil && s.hooks.Keep != nil {
		k := &Kept{outcome: s.solved, parent: s.solvedOver, modes: map[string]string{}}
		for _, e := range s.solved.Edits {
			k.modes[e.Path] = s.mode(e.Path)
		}
		s.hooks.Keep(k)
	}
	return Result{State: work.Queued, Reason: cause.Error(), StatusComment: s.comment},
		fmt.Errorf("%w: %w", ErrWaitingForGitHub, cause)
}

// resume returns the outcome an earlier run of the job kept, with the
// commit it was made over as the job's parent, or nil when there is none.
func (s *session) resume() *repo.Outcome {
	k := s.hooks.Kept
	if k == nil || k.outcome == nil {
		return nil
	}
	s.parent, s.modes = k.parent, k.modes
	s.solved, s.solvedOver = k.outcome, k.parent
	s.log.Info("the loop's outcome was kept from the run that waited for GitHub: publishing it", "parent", k.parent)
	return k.outcome
}

// mode is the mode of the file at path in the job's commit: as kept, or
// as in the fetched tree.
func (s *session) mode(path string) string {
	if m, ok := s.modes[path]; ok {
		return m
	}
	return fileMode(s.treeDir, path)
}

// loopError is the error of the loop (the model, the sandbox), which
// no network error in it makes GitHub's.
type loopError struct{ err error }

func (e *loopError) Error() string { return e.err.Error() }
func (e *loopError) Unwrap() error { return e.err }

// downloadError is a download's answer other than 200.
type downloadError struct {
	code   int
	status string
}

func (e *downloadError) Error() string { return "download: " + e.status }
