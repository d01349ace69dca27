package ghapp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/internal/httpretry"
	"github.com/capsulehq/capsule/internal/httpretry/retrytest"
)

func TestTokenClient(t *testing.T) {
	var mu sync.Mutex
	var auths []string
	hits := 0
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/repos/o/r", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		writeJSON(w, 200, map[string]any{"full_name": "o/r"})
	})
	mux.HandleFunc("GET /api/v3/repos/o/flaky", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		writeJSON(w, 502, map[string]any{"message": "Server Error"})
	})
	mux.HandleFunc("GET /api/v3/repos/o/limited", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(2*time.Hour).Unix(), 10))
		writeJSON(w, 403, map[string]any{"message": "API rate limit exceeded"})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	if _, err := NewTokenClient(" ", srv.URL, RetryPolicy{}, nil); err == nil {
		t.Error("NewTokenClient accepted an empty token")
	}
	if _, err := NewTokenClient("t", "::", RetryPolicy{}, nil); err == nil {
		t.Error("NewTokenClient accepted a bad base URL")
	}

	var rec retrytest.Sleeps
	c, err := NewTokenClient("ghs_action", srv.URL, RetryPolicy{MaxRetries: 3, Sleep: rec.Sleep}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, _, err := c.Repositories.Get(ctx, "o", "r"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(auths) != 1 || auths[0] != "Bearer ghs_action" {
		t.Errorf("Authorization %q, want Bearer ghs_action", auths)
	}
	mu.Unlock()

	// Giving up returns the last response, which go-github reports.
	_, resp, err := c.Repositories.Get(ctx, "o", "flaky")
	var ge *github.ErrorResponse
	if !errors.As(err, &ge) || resp.StatusCode != 502 {
		t.Errorf("flaky: %v; want go-github's 502 error", err)
	}
	mu.Lock()
	if hits != 4 || len(rec.Got()) != 3 {
		t.Errorf("flaky: %d requests, delays %v; want 4 and 3", hits, rec.Got())
	}
	mu.Unlock()

	// A reset beyond MaxWait fails at once, with a clear error.
	_, _, err = c.Repositories.Get(ctx, "o", "limited")
	var wt *httpretry.WaitTooLongError
	if !errors.As(err, &wt) || wt.Reason != "primary rate limit" || wt.Status != 403 {
		t.Errorf("limited: %v; want a *httpretry.WaitTooLongError for the primary rate limit", err)
	}
}
