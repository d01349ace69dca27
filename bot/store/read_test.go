package store

import (
	"context"
	"errors"
	"testing"
	"time"
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
	if err := s.Note(ctx, 1, 2, 3); !errors.Is(err, ErrNotFound) {
		t.Errorf("Note = %v, want ErrNotFound", err)
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

func TestNote(t *testing.T) {
	s, _ := openTest(t)
	j := enqueue(t, s, newRequest("d1", 1), Created)
	tests := []struct {
		comment int64
		pr      int
		want    [2]int64 // status comment, pull request
	}{
		{0, 0, [2]int64{0, 0}},
		{1001, 0, [2]int64{1001, 0}},
		{0, 7, [2]int64{1001, 7}},
		{1002, 8, [2]int64{1002, 8}},
		{0, 0, [2]int64{1002, 8}},
	}
	for _, tt := range tests {
		if err := s.Note(context.Background(), j.ID, tt.comment, tt.pr); err != nil {
			t.Fatal(err)
		}
		got := get(t, s, j.ID)
		if [2]int64{got.StatusComment, int64(got.PullRequest)} != tt.want {
			t.Errorf("after Note(%d, %d): comment %d, pull request %d; want %v",
				tt.comment, tt.pr, got.StatusComment, got.PullRequest, tt.want)
		}
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
