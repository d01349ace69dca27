package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

// TestDefer checks that a deferred job waits until its time, spends none
// of its claims however often it waits, and runs afterwards.
func TestDefer(t *testing.T) {
	s, _ := openTest(t)
	clk := fakeClock(s)
	ctx := context.Background()
	first := enqueue(t, s, newRequest("d1", 1), Created)
	for range MaxClaims + 2 {
		j := claim(t, s, "w", time.Minute)
		if j.ID != first.ID || j.Claims != 1 {
			t.Fatalf("claimed job %d with %d claims, want job %d with 1", j.ID, j.Claims, first.ID)
		}
		if err := s.Defer(ctx, j.ID, "w", clk.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got := get(t, s, j.ID); got.State != work.Queued || got.Claims != 0 || !got.NotBefore.Equal(clk.Now().Add(time.Minute)) {
			t.Fatalf("after Defer: %s with %d claims, not before %v", got.State, got.Claims, got.NotBefore)
		}
		claimNone(t, s, "w")
		clk.Advance(time.Minute)
	}
	// A job queued later is not held up by the waiting one.
	clk.Advance(-time.Second)
	second := enqueue(t, s, newRequest("d2", 2), Created)
	if j := claim(t, s, "w", time.Minute); j.ID != second.ID {
		t.Errorf("claimed job %d, want the one not waiting (%d)", j.ID, second.ID)
	}
	if err := s.Defer(ctx, first.ID, "w", clk.Now()); err == nil {
		t.Error("Defer of a job not running under the worker succeeded")
	}
}

func TestClaimCreatedBefore(t *testing.T) {
	s, _ := openTest(t)
	clk := fakeClock(s)
	old := enqueue(t, s, newRequest("d1", 1), Created)
	clk.Advance(time.Hour)
	enqueue(t, s, newRequest("d2", 2), Created)
	ctx := context.Background()
	j, ok, err := s.ClaimCreatedBefore(ctx, "w", time.Minute, clk.Now().Add(-time.Minute))
	if err != nil || !ok || j.ID != old.ID {
		t.Fatalf("ClaimCreatedBefore = job %d, %v, %v; want the old job %d", j.ID, ok, err, old.ID)
	}
	if _, ok, err := s.ClaimCreatedBefore(ctx, "w", time.Minute, clk.Now().Add(-time.Minute)); ok || err != nil {
		t.Errorf("ClaimCreatedBefore = %v, %v; want nothing, the other job is newer", ok, err)
	}
}

// TestMigrateKeepsJobs opens a database of schema version 1, as the first
// release wrote it, and checks that its jobs survive the migration and
// can be claimed.
func TestMigrateKeepsJobs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "capsule.db")
	db, err := sql.Open("sqlite", dsn(path, nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := apply(ctx, db, 1, migrations[0]); err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`INSERT INTO jobs (delivery, event, trigger, installation, owner, repo, issue, sender, label, state, created_at, updated_at)
		VALUES ('old-delivery', 'issues', 'label', 42, 'acme', 'widgets', 7, 'octocat', 'capsule', 'queued', 1, 1);
		INSERT INTO deliveries (delivery, job_id) VALUES ('old-delivery', 1);`)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	j := claim(t, s, "w", time.Minute)
	if j.Delivery != "old-delivery" || j.Issue != 7 || !j.NotBefore.IsZero() || j.Busy || j.Round != "" || j.HeadSHA != "" || j.PullRequest != 0 {
		t.Errorf("claimed %+v, want the old job", j)
	}
	var v int
	if err := s.r.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != schemaVersion {
		t.Errorf("user_version %d (%v), want %d", v, err, schemaVersion)
	}
}

// TestCheck damages the database file under an open store in each way
// SQLite would not notice, and checks that Check does.
func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		damage func(path string) error
		want   string
	}{
		{"deleted", os.Remove, "gone"},
		{"replaced", func(path string) error {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := os.Remove(path); err != nil {
				return err
			}
			return os.WriteFile(path, data, 0o600)
		}, "replaced"},
		{"truncated", func(path string) error { return os.Truncate(path, 0) }, "truncated"},
		{"overwritten", func(path string) error {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt([]byte("garbage garbage!"), 0)
			return err
		}, "overwritten"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, path := openTest(t)
			ctx := context.Background()
			enqueue(t, s, newRequest("d1", 1), Created)
			if err := s.Check(ctx); err != nil {
				t.Fatalf("Check of a sound store: %v", err)
			}
			if err := tt.damage(path); err != nil {
				t.Fatal(err)
			}
			// SQLite itself carries on.
			if err := s.Ping(ctx); err != nil {
				t.Logf("Ping noticed too: %v", err)
			}
			err := s.Check(ctx)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func TestCheckClosed(t *testing.T) {
	s, _ := openTest(t)
	s.Close()
	if err := s.Check(context.Background()); err == nil {
		t.Error("Check of a closed store succeeded")
	}
}
