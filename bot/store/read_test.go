package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

func TestNotFound(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	if _, err := s.Get(ctx, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get = %v, want ErrNotFound", err)
	}
	if _, err := s.ByDelivery(ctx, "d1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("ByDelivery = %v, want ErrNotFound", err)
	}
}

func TestByDelivery(t *testing.T) {
	s, _ := openTest(t)
	want := enqueue(t, s, newRequest("d1", 1), Created)
	got, err := s.ByDelivery(context.Background(), "d1")
	if err != nil || got != want {
		t.Fatalf("ByDelivery = %+v, %v\nwant %+v", got, err, want)
	}
}

// TestFinishRecords checks what Finish keeps of what a job made.
func TestFinishRecords(t *testing.T) {
	label := newRequest("d1", 1)
	review := newRound("d1", 1, 12, "review:5", "seen")
	tests := []struct {
		name          string
		req           work.Request
		end           End
		comment       int64
		pr            int
		head, ofIssue string // the job's head SHA, PullRequestOf's
	}{
		{"opened", label, End{State: work.Done, StatusComment: 1001, PullRequest: 7, HeadSHA: "c0ffee"}, 1001, 7, "c0ffee", "c0ffee"},
		{"failed", label, End{State: work.Failed, Reason: "no"}, 0, 0, "", ""},
		{"round pushed", review, End{State: work.Done, StatusComment: 1001, HeadSHA: "pushed"}, 1001, 12, "pushed", "pushed"},
		{"round pushed nothing", review, End{State: work.Done}, 0, 12, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTest(t)
			ctx := context.Background()
			j := enqueue(t, s, tt.req, Created)
			finish(t, s, j, tt.end)
			got := get(t, s, j.ID)
			if got.State != tt.end.State || got.Reason != tt.end.Reason || got.StatusComment != tt.comment ||
				got.PullRequest != tt.pr || got.HeadSHA != tt.head {
				t.Errorf("after Finish(%+v): %+v", tt.end, got)
			}
			pr, ok, err := s.PullRequestOf(ctx, "acme", "widgets", 1)
			if want := (PullRequest{Issue: 1, Number: tt.pr, HeadSHA: tt.ofIssue}); err != nil || ok != (tt.pr != 0) || ok && pr != want {
				t.Errorf("PullRequestOf = %+v, %v, %v; want %+v", pr, ok, err, want)
			}
		})
	}
}

func TestList(t *testing.T) {
	s, _ := openTest(t)
	for i := range 5 {
		enqueue(t, s, newRequest(delivery(i), i+1), Created)
	}
	claim(t, s, "w1", time.Minute)
	tests := []struct {
		limit int
		want  []int64
	}{
		{0, []int64{5, 4, 3, 2, 1}},
		{-1, []int64{5, 4, 3, 2, 1}},
		{2, []int64{5, 4}},
		{10, []int64{5, 4, 3, 2, 1}},
	}
	for _, tt := range tests {
		jobs, err := s.List(context.Background(), tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, j := range jobs {
			ids = append(ids, j.ID)
		}
		if !equal(ids, tt.want) {
			t.Errorf("List(%d) = jobs %v, want %v", tt.limit, ids, tt.want)
		}
	}
}

func TestPing(t *testing.T) {
	s, _ := openTest(t)
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.Ping(context.Background()); err == nil {
		t.Fatal("Ping after Close succeeded")
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
