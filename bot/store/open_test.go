package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenLocked(t *testing.T) {
	s, path := openTest(t)
	_, err := Open(path)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("the error %q does not name %s", err, path)
	}
	// A relative name for the same file is the same file.
	wd, _ := os.Getwd()
	if rel, err := filepath.Rel(wd, path); err == nil {
		if _, err := Open(rel); !errors.Is(err, ErrLocked) {
			t.Errorf("Open(%s) = %v, want ErrLocked", rel, err)
		}
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database\n", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want string // in the error message, besides the path
	}{
		{"missing directory", filepath.Join(dir, "missing", "capsule.db"), "no such file or directory"},
		{"not a database", notDB, "not a SQLite database"},
		{"a directory", dir, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(tt.path)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%s) succeeded", tt.path)
			}
			if !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open(%s) = %q, want it to name the file and say %q", tt.path, err, tt.want)
			}
		})
	}
	t.Run("empty path", func(t *testing.T) {
		if _, err := Open(""); !errors.Is(err, ErrInvalid) {
			t.Errorf("Open(\"\") = %v, want ErrInvalid", err)
		}
	})
	// The failures released the lock.
	for _, tt := range tests[1:] {
		if _, err := Open(tt.path); errors.Is(err, ErrLocked) {
			t.Errorf("Open(%s) after a failed Open: %v", tt.path, err)
		}
	}
}

func TestOpenNewerSchema(t *testing.T) {
	s, path := openTest(t)
	if _, err := s.w.Exec("PRAGMA user_version = 1000"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a newer schema = %v, want an error saying so", err)
	}
}

func TestReopen(t *testing.T) {
	s, path := openTest(t)
	ctx := context.Background()
	want := enqueue(t, s, newRequest("d1", 1), Created)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, _, err := s.Enqueue(ctx, newRequest("d2", 2)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Enqueue after Close = %v, want ErrClosed", err)
	}

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := get(t, s, want.ID); got != want {
		t.Fatalf("after reopening: %+v\nwant %+v", got, want)
	}
	enqueue(t, s, newRequest("d1", 1), Duplicate)
	enqueue(t, s, newRequest("d2", 1), Busy)
}

func TestSettings(t *testing.T) {
	s, _ := openTest(t)
	tests := []struct {
		db     *sql.DB
		pragma string
		want   string
	}{
		{s.w, "journal_mode", "wal"},
		{s.w, "synchronous", "2"},
		{s.w, "busy_timeout", "5000"},
		{s.w, "foreign_keys", "1"},
		{s.r, "journal_mode", "wal"},
		{s.r, "busy_timeout", "5000"},
		{s.r, "query_only", "1"},
	}
	for _, tt := range tests {
		var got string
		if err := tt.db.QueryRow("PRAGMA " + tt.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("PRAGMA %s = %s, want %s", tt.pragma, got, tt.want)
		}
	}
}

// The queries on the hot paths use the partial indexes made for them.
func TestQueryPlans(t *testing.T) {
	s, _ := openTest(t)
	tests := []struct {
		query string
		args  []any
		index string
	}{
		{activeQuery, []any{"acme", "widgets", 1}, "jobs_active_issue"},
		{claimableQuery, []any{0, 1}, "jobs_claimable"},
		{roundQuery, []any{"acme", "widgets", 12, "review:1"}, "jobs_round"},
		{pullRequestQuery, []any{"acme", "widgets", 1}, "jobs_issue"},
		{headQuery, []any{"acme", "widgets", 1, 12}, "jobs_issue"},
		{issueQuery, []any{"acme", "widgets", 12}, "jobs_pull_request"},
		{waitingRoundQuery, []any{"acme", "widgets", 12, "review:1"}, "waiting_round"},
		{nextWaitingQuery, []any{"acme", "widgets", 1}, "waiting_issue"},
	}
	for _, tt := range tests {
		rows, err := s.r.Query("EXPLAIN QUERY PLAN "+tt.query, tt.args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if p := strings.Join(plan, "; "); !strings.Contains(p, tt.index) || strings.Contains(p, "TEMP B-TREE") {
			t.Errorf("plan %q, want it to use %s and no temporary b-tree\nfor %s", p, tt.index, tt.query)
		}
	}
}

// Paths are not URIs: characters that mean something in one are just
// characters in a file name.
func TestOpenOddPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a b?c#d%20é")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "capsule.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, s, newRequest("d1", 1), Created)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not where it was asked to be: %v", err)
	}
}
