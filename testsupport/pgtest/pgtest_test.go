package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

// Each DSN is a database of its own, empty, in which the test may create
// tables.
func TestDSN(t *testing.T) {
	ctx := context.Background()
	names := map[string]bool{}
	for range 2 {
		conn, err := pgx.Connect(ctx, DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var name string
		var tables int
		if err := conn.QueryRow(ctx, `SELECT current_database(),
			(SELECT count(*) FROM pg_tables WHERE schemaname = 'public')`).Scan(&name, &tables); err != nil {
			t.Fatal(err)
		}
		if names[name] || tables != 0 {
			t.Fatalf("database %s: seen before %v, %d tables", name, names[name], tables)
		}
		names[name] = true
		if _, err := conn.Exec(ctx, `CREATE TABLE t (id int)`); err != nil {
			t.Fatal(err)
		}
	}
}

// A cluster of the test's own stops, refusing connections, and starts
// again with its data.
func TestClusterStopStart(t *testing.T) {
	c := NewCluster(t)
	dsn := c.DSN(t)
	ctx := context.Background()
	exec := func(sql string) error {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec(`CREATE TABLE kept (id int)`); err != nil {
		t.Fatal(err)
	}
	c.Stop(t)
	if err := exec(`SELECT 1`); err == nil {
		t.Fatal("a stopped cluster answered")
	}
	c.Start(t)
	if err := exec(`SELECT * FROM kept`); err != nil {
		t.Fatalf("after a restart: %v", err)
	}
}

// A durable cluster syncs its commits; the tests' clusters do not.
func TestDurableCluster(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		dsn  string
		want string
	}{{DSN(t), "off"}, {NewDurableCluster(t).DSN(t), "on"}} {
		conn, err := pgx.Connect(ctx, tt.dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var fsync string
		if err := conn.QueryRow(ctx, `SHOW fsync`).Scan(&fsync); err != nil || fsync != tt.want {
			t.Errorf("fsync = %q, %v; want %s", fsync, err, tt.want)
		}
	}
}
