package fakegithub

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v88/github"
)

// TestConcurrentRequests runs clients in parallel (meant for -race).
func TestConcurrentRequests(t *testing.T) {
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", map[string]string{"a.txt": "a\n"})
	s.AddIssue("octo", "calc", 1, "Bug", "")
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gh := tokenClient(s, staticToken)
			if _, _, err := gh.Git.CreateBlob(ctx, "octo", "calc", github.Blob{Content: github.Ptr(fmt.Sprint(i)), Encoding: github.Ptr("utf-8")}); err != nil {
				t.Errorf("CreateBlob: %v", err)
			}
			if _, _, err := gh.Issues.CreateComment(ctx, "octo", "calc", 1, &github.IssueComment{Body: github.Ptr(fmt.Sprint(i))}); err != nil {
				t.Errorf("CreateComment: %v", err)
			}
			if _, _, err := gh.Git.GetRef(ctx, "octo", "calc", "heads/main"); err != nil {
				t.Errorf("GetRef: %v", err)
			}
			_ = repo.Comments(1)
			_ = s.Requests()
		}()
	}
	wg.Wait()
	if n := len(repo.Comments(1)); n != 8 {
		t.Errorf("%d comments, want 8", n)
	}
}

// errorRecorder is a testing.TB whose Errorf is recorded, not fatal.
type errorRecorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestViolationsFailTheTest checks the default: a violation is a t.Errorf.
func TestViolationsFailTheTest(t *testing.T) {
	rec := &errorRecorder{TB: t}
	s := New(rec, WithToken(staticToken))
	s.AddRepo("octo", "calc", nil)
	if status, _ := do(t, s, "POST", "repos/octo/calc/git/refs", staticToken, `{"sha": "abc"}`); status != 422 {
		t.Errorf("status = %d, want 422", status)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "POST /repos/octo/calc/git/refs") || !strings.Contains(rec.errs[0], `"ref"`) {
		t.Errorf("Errorf calls = %q, want one naming the request and the missing ref", rec.errs)
	}
}
