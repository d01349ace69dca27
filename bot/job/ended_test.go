package job

import (
	"errors"
	"fmt"
	"testing"

	"github.com/capsulehq/capsule/bot/work"
)

// TestEnded shows Run's one channel: a Result whose State already says
// what the error means, so that no caller reconciles the two.
func TestEnded(t *testing.T) {
	boom := errors.New("502 Bad Gateway")
	for _, tc := range []struct {
		name   string
		res    Result
		err    error
		state  work.State
		reason string
	}{
		{"done", Result{State: work.Done}, nil, work.Done, ""},
		{"a failure said on GitHub", Result{State: work.Failed, Reason: "no attempt passed"}, nil, work.Failed, "no attempt passed"},
		{"skipped", Result{State: work.Skipped, Reason: "a bot"}, nil, work.Skipped, "a bot"},
		{"stopped by an error: failed for its reason", Result{}, boom, work.Failed, "502 Bad Gateway"},
		{"done, then GitHub failed: failed", Result{State: work.Done, PullRequest: 3}, boom, work.Failed, "502 Bad Gateway"},
		{"a reason of its own is kept", Result{State: work.Failed, Reason: "label the issue"}, boom, work.Failed, "label the issue"},
		{"waits for the model", Result{State: work.Queued, Reason: "down"}, fmt.Errorf("%w: down", ErrWaitingForModel), work.Queued, "down"},
		{"waits for GitHub", Result{State: work.Queued, Reason: "down"}, fmt.Errorf("%w: down", ErrWaitingForGitHub), work.Queued, "down"},
	} {
		got := ended(tc.res, tc.err)
		if got.State != tc.state || got.Reason != tc.reason || got.Err != tc.err || got.PullRequest != tc.res.PullRequest {
			t.Errorf("%s: ended = %+v, want state %s, reason %q, err %v", tc.name, got, tc.state, tc.reason, tc.err)
		}
	}
}
