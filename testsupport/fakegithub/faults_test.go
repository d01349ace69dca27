package fakegithub

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-github/v88/github"
)

func TestFailNext(t *testing.T) {
	s := newServer(t)
	s.AddRepo("octo", "calc", nil)
	s.FailNext("GET", "/repos/octo/*", 1, http.StatusBadGateway, nil)
	gh := tokenClient(s, staticToken)
	ctx := context.Background()

	var er *github.ErrorResponse
	if _, _, err := gh.Repositories.Get(ctx, "octo", "calc"); !errors.As(err, &er) || er.Response.StatusCode != 502 {
		t.Fatalf("first Get: %v, want 502", err)
	}
	if _, _, err := gh.Repositories.Get(ctx, "octo", "calc"); err != nil {
		t.Fatalf("second Get: %v", err)
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("recorded %d requests, want both", n)
	}
}

func TestRateLimitFaults(t *testing.T) {
	s := newServer(t)
	s.AddRepo("octo", "calc", nil)
	gh := tokenClient(s, staticToken)
	ctx := context.Background()
	reset := time.Now().Add(time.Minute).Unix()

	s.FailNext("GET", "/repos/octo/calc", 1, http.StatusForbidden, http.Header{
		"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {strconv.FormatInt(reset, 10)},
	})
	var rl *github.RateLimitError
	if _, _, err := gh.Repositories.Get(ctx, "octo", "calc"); !errors.As(err, &rl) || rl.Rate.Reset.Unix() != reset {
		t.Errorf("primary rate limit: %v, want a RateLimitError resetting at %d", err, reset)
	}

	// go-github refuses requests until the reset it saw: use a fresh client.
	gh = tokenClient(s, staticToken)
	s.FailNext("GET", "/repos/octo/calc", 1, http.StatusForbidden, http.Header{"Retry-After": {"1"}})
	var abuse *github.AbuseRateLimitError
	if _, _, err := gh.Repositories.Get(ctx, "octo", "calc"); !errors.As(err, &abuse) || abuse.GetRetryAfter() != time.Second {
		t.Errorf("secondary rate limit: %v, want an AbuseRateLimitError with Retry-After 1s", err)
	}

	gh = tokenClient(s, staticToken)
	s.FailNext("*", "/repos/octo/calc/**", 1, http.StatusTooManyRequests, http.Header{"Retry-After": {"1"}})
	if _, _, err := gh.Git.GetRef(ctx, "octo", "calc", "heads/main"); !errors.As(err, &abuse) || abuse.Response.StatusCode != 429 || abuse.GetRetryAfter() != time.Second {
		t.Errorf("429: %v, want an AbuseRateLimitError with Retry-After 1s", err)
	}

	gh = tokenClient(s, staticToken)
	var er *github.ErrorResponse
	s.FailAlways("GET", "/repos/octo/calc", http.StatusServiceUnavailable, nil)
	for i := 0; i < 3; i++ {
		if _, _, err := gh.Repositories.Get(ctx, "octo", "calc"); !errors.As(err, &er) || er.Response.StatusCode != 503 {
			t.Errorf("FailAlways, try %d: %v", i, err)
		}
	}
	s.ClearFaults()
	if _, _, err := gh.Repositories.Get(ctx, "octo", "calc"); err != nil {
		t.Errorf("after ClearFaults: %v", err)
	}
}

func TestFaultedRequestsAreValidated(t *testing.T) {
	collect, violations := collecting()
	s := newServer(t, collect)
	s.AddRepo("octo", "calc", nil)
	s.FailNext("POST", "/repos/octo/calc/git/refs", 1, http.StatusBadGateway, nil)
	if status, _ := do(t, s, "POST", "repos/octo/calc/git/refs", staticToken, `{"ref": "refs/heads/x"}`); status != 502 {
		t.Errorf("status = %d, want the injected 502", status)
	}
	if v := violations(); len(v) != 1 {
		t.Errorf("violations = %v, want the missing sha reported", v)
	}
}

// TestDown: while the fake is down, every request fails at the HTTP
// level (a front end's 502, or no answer at all) and nothing acts; once
// it is up, requests are answered again.
func TestDown(t *testing.T) {
	s := newServer(t)
	s.AddRepo("octo", "calc", map[string]string{"README": "hi\n"})
	gh := tokenClient(s, staticToken)
	ctx := context.Background()

	s.Down(http.StatusBadGateway)
	var er *github.ErrorResponse
	if _, _, err := gh.Repositories.Get(ctx, "octo", "calc"); !errors.As(err, &er) || er.Response.StatusCode != 502 {
		t.Errorf("Get while down with 502: %v, want 502", err)
	}
	s.Down(0)
	if _, _, err := gh.Repositories.Get(ctx, "octo", "calc"); err == nil || errors.As(err, &er) {
		t.Errorf("Get while down without answers: %v, want a transport error", err)
	}
	s.Up()
	if _, _, err := gh.Repositories.Get(ctx, "octo", "calc"); err != nil {
		t.Errorf("Get once up: %v", err)
	}
}

// TestFaultAfterWrite: an AfterWrite fault lets the request act and
// fails its answer only.
func TestFaultAfterWrite(t *testing.T) {
	s := newServer(t)
	s.AddRepo("octo", "calc", map[string]string{"README": "hi\n"})
	gh := tokenClient(s, staticToken)
	ctx := context.Background()
	main, _, err := gh.Git.GetRef(ctx, "octo", "calc", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	s.Inject(Fault{Method: "POST", Path: "/repos/octo/calc/git/refs", Times: 1, Status: http.StatusBadGateway, AfterWrite: true})
	var er *github.ErrorResponse
	_, _, err = gh.Git.CreateRef(ctx, "octo", "calc", github.CreateRef{Ref: "refs/heads/fix", SHA: main.GetObject().GetSHA()})
	if !errors.As(err, &er) || er.Response.StatusCode != 502 {
		t.Fatalf("CreateRef: %v, want 502", err)
	}
	if _, _, err := gh.Git.GetRef(ctx, "octo", "calc", "heads/fix"); err != nil {
		t.Errorf("the branch whose answer was lost: %v, want it made", err)
	}
}

// TestStall: a stalled request waits until it is released, then is
// answered as usual; others pass.
func TestStall(t *testing.T) {
	s := newServer(t)
	s.AddRepo("octo", "calc", map[string]string{"README": "hi\n"})
	gh := tokenClient(s, staticToken)
	ctx := context.Background()
	reached, release := s.Stall("GET", "/repos/octo/calc")
	done := make(chan error, 1)
	go func() {
		_, _, err := gh.Repositories.Get(ctx, "octo", "calc")
		done <- err
	}()
	<-reached
	if _, _, err := gh.Git.GetRef(ctx, "octo", "calc", "heads/main"); err != nil {
		t.Errorf("another request while one is stalled: %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("the stalled request ended before its release: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	if err := <-done; err != nil {
		t.Errorf("the released request: %v", err)
	}
}
