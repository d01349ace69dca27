package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bot/store/postgres"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
	"github.com/capsulehq/capsule/testsupport/pgtest"
)

func TestDatabaseCheck(t *testing.T) {
	dsn := pgtest.DSN(t)
	tests := []struct {
		name     string
		database string
		before   func(t *testing.T)
		status   string
		info     string // in the check's info
	}{
		{"unset", "", nil, "-", "SQLite in"},
		{"not a postgres URL", "mysql://capsule:s3cret@db/capsule", nil, "FAIL", "must be a postgres:// URL"},
		{"unreachable", "postgres://capsule:s3cret@127.0.0.1:1/capsule?connect_timeout=5", nil, "FAIL", "127.0.0.1"},
		{"empty database", dsn, nil, "ok", "serve creates the schema at its first start"},
		{"migrated", dsn, func(t *testing.T) {
			st, err := postgres.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
		}, "ok", fmt.Sprintf("schema version %d", postgres.SchemaVersion())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(databaseEnv, tt.database)
			t.Setenv("CAPSULE_DATA_DIR", t.TempDir())
			if tt.before != nil {
				tt.before(t)
			}
			c := databaseCheck(context.Background())
			if c.status() != tt.status || !strings.Contains(c.info, tt.info) || strings.Contains(c.info, "s3cret") {
				t.Errorf("databaseCheck = %s %q, want %s saying %q and no password", c.status(), c.info, tt.status, tt.info)
			}
		})
	}
}

// serve refuses a --database that is not a postgres:// URL, without
// repeating it.
func TestServeDatabaseURL(t *testing.T) {
	_, key := fakegithub.NewAppKey(t)
	for name, value := range map[string]string{
		"GITHUB_WEBHOOK_SECRET": "s", "GITHUB_APP_ID": "1", "GITHUB_APP_PRIVATE_KEY": string(key), "GITHUB_APP_PRIVATE_KEY_FILE": "",
		"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "CAPSULE_MODEL": "m", databaseEnv: "",
	} {
		t.Setenv(name, value)
	}
	code, _, stderr := capsule(t, "serve", "--database", "mysql://capsule:s3cret@db/capsule")
	if code != exitUsage || !strings.Contains(stderr, "must be a postgres:// URL") || strings.Contains(stderr, "s3cret") {
		t.Errorf("exit %d, stderr %q; want %d, the URL refused without its password", code, stderr, exitUsage)
	}
}

// With --database the queue is PostgreSQL's, and the data directory is
// left alone; without it, SQLite's file in the data directory.
func TestOpenJobStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir() + "/data"
	st, err := openJobStore(ctx, pgtest.DSN(t), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(*postgres.Store); !ok {
		t.Errorf("openJobStore with a URL = %T, want *postgres.Store", st)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the data directory was touched: %v", err)
	}
	sq, err := openJobStore(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	if _, err := os.Stat(sqlitePath(dir)); err != nil {
		t.Errorf("no SQLite queue in the data directory: %v", err)
	}
}
