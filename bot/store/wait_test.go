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

// TestMigrateKeepsWaitingRounds opens a database of schema version 5
// holding an active job and a round waiting for it: after the migration
// to label triggers that wait too, the round is still queued in its turn,
// and a label trigger can wait beside it.
func TestMigrateKeepsWaitingRounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "capsule.db")
	db, err := sql.Open("sqlite", dsn(path, nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for v := range 5 {
		if err := apply(ctx, db, v+1, migrations[v]); err != nil {
			t.Fatal(err)
		}
	}
	_, err = db.Exec(`INSERT INTO jobs (delivery, event, trigger, installation, owner, repo, issue, sender, label, state, created_at, updated_at)
		VALUES ('old-delivery', 'issues', 'label', 42, 'acme', 'widgets', 7, 'octocat', 'bug', 'queued', 1, 1);
		INSERT INTO deliveries (delivery, job_id) VALUES ('old-delivery', 1);
		INSERT INTO waiting (delivery, event, trigger, installation, owner, repo, issue, sender, pull_request, round, head_sha, created_at)
		VALUES ('old-review', 'pull_request_review', 'review', 42, 'acme', 'widgets', 7, 'octocat', 12, 'review:1', 'aaa', 2);
		INSERT INTO deliveries (delivery, job_id) VALUES ('old-review', 1);`)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := work.Request{Delivery: "new-label", Event: "issues", Trigger: work.TriggerLabel, Installation: 42,
		Owner: "acme", Repo: "widgets", Issue: 7, Sender: "octocat", Label: "capsule"}
	if _, outcome, err := s.Enqueue(ctx, r); err != nil || outcome != Waiting {
		t.Fatalf("Enqueue of the capsule label = %v, %v; want it waiting", outcome, err)
	}
	old := claim(t, s, "w", time.Minute)
	if err := s.Finish(ctx, old.ID, "w", End{State: work.Skipped}); err != nil {
		t.Fatal(err)
	}
	if j := claim(t, s, "w", time.Minute); j.Round != "review:1" || j.Label != "" {
		t.Fatalf("claimed %+v, want the round that waited", j)
	} else if err := s.Finish(ctx, j.ID, "w", End{State: work.Done}); err != nil {
		t.Fatal(err)
	}
	if j := claim(t, s, "w", time.Minute); j.Label != "capsule" || j.Delivery != "new-label" {
		t.Fatalf("claimed %+v, want the capsule label's job", j)
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
