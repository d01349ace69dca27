package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/internal/httpretry"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/repo"
)

func TestGitHubDown(t *testing.T) {
	answer := func(code int) *github.ErrorResponse {
		return &github.ErrorResponse{Response: &http.Response{StatusCode: code, Request: &http.Request{Method: "GET", URL: &url.URL{}}}}
	}
	refused := &url.Error{Op: "Post", URL: "https://api.github.com/", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}
	tests := []struct {
		name string
		err  error
		down bool
	}{
		{"nil", nil, false},
		{"502", fmt.Errorf("open the pull request: %w", answer(502)), true},
		{"500", answer(500), true},
		{"404", answer(404), false},
		{"422", answer(422), false},
		{"connection refused", refused, true},
		{"no such host", &url.Error{Op: "Get", Err: &net.DNSError{Err: "no such host", Name: "api.github.com", IsNotFound: true}}, true},
		{"EOF", &url.Error{Op: "Get", Err: io.EOF}, true},
		{"token, unreachable", fmt.Errorf("could not refresh installation id 7's token: %w", &ghinstallation.HTTPError{Message: "x", RootCause: refused}), true},
		{"token, 503", &ghinstallation.HTTPError{Message: "x", Response: &http.Response{StatusCode: 503}}, true},
		{"token, suspended", &ghinstallation.HTTPError{Message: "x", Response: &http.Response{StatusCode: 403}}, false},
		{"rate limit", &github.RateLimitError{Response: &http.Response{StatusCode: 403}}, true},
		{"rate limit past the wait", &httpretry.WaitTooLongError{Wait: time.Hour}, true},
		{"download 502", &downloadError{code: 502, status: "502 Bad Gateway"}, true},
		{"download 404", &downloadError{code: 404, status: "404 Not Found"}, false},
		{"cancelled", fmt.Errorf("%w: %w", context.Canceled, refused), false},
		{"other", errors.New("no branch capsule/issue-12"), false},
		{"the loop's network error", fmt.Errorf("attempt 2: %w", &loopError{refused}), false},
	}
	for _, tt := range tests {
		if got := GitHubDown(tt.err); got != tt.down {
			t.Errorf("%s: GitHubDown(%v) = %v, want %v", tt.name, tt.err, got, tt.down)
		}
	}
}

// TestRunWaitsForGitHub: a job whose pull request cannot be opened for
// GitHub being down ends waiting, saying nothing of a failure, and hands
// over its loop's outcome; its next run publishes that outcome without
// running the loop again. Without the hook the job fails as before.
func TestRunWaitsForGitHub(t *testing.T) {
	down := fmt.Errorf("POST pulls: %w", &url.Error{Op: "Post", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}})
	var solved atomic.Int32
	solver := solverFunc(func(context.Context, repo.Task) (*repo.Outcome, error) {
		solved.Add(1)
		return outcome(attemptlog.Solved, fix), nil
	})
	f := newFakeGitHub(t)
	f.fail["CreatePullRequest"] = down
	r := &Runner{Logger: quiet(), WorkDir: t.TempDir(), Solver: solver}
	var kept *Kept
	hooks := Hooks{WaitForGitHub: func(error) bool { return true }, Keep: func(k *Kept) { kept = k }}
	res, err := runJob(context.Background(), r, f, labelled(), hooks)
	if !errors.Is(err, ErrWaitingForGitHub) || res.State != work.Queued || kept == nil {
		t.Fatalf("Run = %+v, %v, kept %v; want waiting for GitHub with the outcome kept", res, err, kept)
	}
	for _, b := range f.bodies(fakeIssue) {
		if strings.Contains(b, "failed") || strings.Contains(b, "Failed") {
			t.Errorf("a status comment says the job failed:\n%s", b)
		}
	}

	delete(f.fail, "CreatePullRequest")
	res, err = runJob(context.Background(), r, f, labelled(), Hooks{Kept: kept})
	if err != nil || res.State != work.Done || res.PullRequest == 0 {
		t.Fatalf("the next run = %+v, %v; want done with a pull request", res, err)
	}
	if n := solved.Load(); n != 1 {
		t.Errorf("the loop ran %d times, want once", n)
	}

	f = newFakeGitHub(t)
	f.fail["CreatePullRequest"] = down
	if res, err := runJob(context.Background(), r, f, labelled(), Hooks{}); errors.Is(err, ErrWaitingForGitHub) || res.State != work.Failed {
		t.Errorf("without WaitForGitHub: Run = %+v, %v; want failed", res, err)
	}
}

func TestRetryAt(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	reset := now.Add(40 * time.Minute)
	wait := 90 * time.Second
	tests := []struct {
		name string
		err  error
		want time.Time
	}{
		{"past the client's wait", fmt.Errorf("open the pull request: %w", &httpretry.WaitTooLongError{Until: reset}), reset},
		{"primary", &github.RateLimitError{Rate: github.Rate{Reset: github.Timestamp{Time: reset}}}, reset},
		{"secondary", &github.AbuseRateLimitError{RetryAfter: &wait}, now.Add(wait)},
		{"outage", &url.Error{Op: "Get", Err: io.EOF}, time.Time{}},
	}
	for _, tt := range tests {
		if got := RetryAt(tt.err, now); !got.Equal(tt.want) {
			t.Errorf("%s: RetryAt = %v, want %v", tt.name, got, tt.want)
		}
	}
}
