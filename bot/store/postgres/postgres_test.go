package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/store/postgres"
	"github.com/capsulehq/capsule/bot/store/storetest"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/testsupport/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// openTest opens a store on a new database and closes it when the test
// ends.
func openTest(t *testing.T, dsn string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func TestSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) storetest.Store {
		s := openTest(t, pgtest.DSN(t))
		postgres.SetClock(s, now)
		return s
	})
}

// TestMigrateRace starts two replicas at once on an empty database, with
// the race forced: the first holds the migration lock, paused, until the
// second is seen waiting for it. Both come up, and the schema is migrated
// once.
func TestMigrateRace(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	var (
		mu     sync.Mutex
		found  []int
		inside = make(chan struct{})
		resume = make(chan struct{})
	)
	defer postgres.SetMigrating(func(v int) {
		mu.Lock()
		found = append(found, v)
		first := len(found) == 1
		mu.Unlock()
		if first {
			close(inside)
			<-resume
		}
	})()

	errs := make(chan error, 2)
	open := func() {
		s, err := postgres.Open(ctx, dsn)
		if err == nil {
			t.Cleanup(func() { s.Close() })
		}
		errs <- err
	}
	go open()
	<-inside
	var once sync.Once
	release := func() { once.Do(func() { close(resume) }) }
	defer release() // should the test fail before
	go open()
	waitFor(t, dsn, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`, 1)
	release()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if want := []int{0, postgres.SchemaVersion()}; !slices.Equal(found, want) {
		t.Errorf("the replicas found schema versions %v, want %v", found, want)
	}
	waitFor(t, dsn, `SELECT count(*) FROM schema_migrations`, postgres.SchemaVersion())
}

// waitFor polls query, which counts something, on a connection of its own
// until it answers want; it fails the test after a minute.
func waitFor(t *testing.T, dsn, query string, want int) {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, dsn)
	var n int
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err := conn.QueryRow(ctx, query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == want {
			return
		}
	}
	t.Fatalf("%s = %d, want %d", query, n, want)
}

// A database a newer build migrated is refused, not written to.
func TestOpenNewerSchema(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := openTest(t, dsn)
	exec(t, dsn, `INSERT INTO schema_migrations (version) VALUES (1000)`)
	s.Close()
	if _, err := postgres.Open(context.Background(), dsn); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a newer schema = %v, want an error saying it is newer", err)
	}
}

// exec runs a statement on the database dsn names.
func exec(t *testing.T, dsn, sql string) {
	t.Helper()
	if _, err := connect(t, dsn).Exec(context.Background(), sql); err != nil {
		t.Fatal(err)
	}
}

// connect opens a connection to the database dsn names, closed when the
// test ends.
func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// Open fails on a database that does not answer or a URL that does not
// parse, without the password in the error.
func TestOpenErrors(t *testing.T) {
	for _, dsn := range []string{
		"postgres://capsule:s3cret@127.0.0.1:1/capsule?connect_timeout=5",
		"postgres://capsule:s3cret@[::1/capsule",
		"host=/nonexistent port=5432 user=capsule password=s3cret",
	} {
		s, err := postgres.Open(context.Background(), dsn)
		if err == nil {
			s.Close()
			t.Fatalf("Open(%s) succeeded", dsn)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%s) = %q, which shows the password", dsn, err)
		}
	}
}

// A job queued, or put back, by one replica wakes the workers of another.
func TestWakeups(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := openTest(t, dsn), openTest(t, dsn)
	ctx := context.Background()
	drain(b)
	storetest.Enqueue(t, a, storetest.NewRequest("d1", 1), store.Created)
	woken(t, b, "a job queued by another replica")

	j := storetest.Claim(t, a, "w1", time.Minute)
	drain(b)
	if err := a.Release(ctx, j.ID, "w1"); err != nil {
		t.Fatal(err)
	}
	woken(t, b, "a job another replica released")
}

// A listener whose connection is cut connects again, wakes the workers
// for what it may have missed, and hears the next job.
func TestWakeupsAfterReconnect(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := openTest(t, dsn), openTest(t, dsn)
	drain(b)
	var cut int
	err := connect(t, dsn).QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'LISTEN capsule_jobs'`).Scan(&cut)
	if err != nil || cut != 2 {
		t.Fatalf("cut %d listeners, %v; want both replicas'", cut, err)
	}
	woken(t, b, "reconnecting")
	storetest.Enqueue(t, a, storetest.NewRequest("d1", 1), store.Created)
	woken(t, b, "a job queued after it reconnected")
}

// woken fails the test unless s wakes its workers within a minute.
func woken(t *testing.T, s *postgres.Store, what string) {
	t.Helper()
	select {
	case <-s.Wakeups():
	case <-time.After(time.Minute):
		t.Fatalf("no wake-up on %s", what)
	}
}

// drain takes a pending wake-up, if any, off s.
func drain(s *postgres.Store) {
	select {
	case <-s.Wakeups():
	default:
	}
}

// Two replicas, four workers each, claim a queue of jobs at once: each
// job is claimed once.
func TestClaimConcurrent(t *testing.T) {
	dsn := pgtest.DSN(t)
	replicas := []*postgres.Store{openTest(t, dsn), openTest(t, dsn)}
	const jobs = 200
	for i := range jobs {
		storetest.Enqueue(t, replicas[0], storetest.NewRequest(storetest.Delivery(i), i+1), store.Created)
	}
	var (
		mu      sync.Mutex
		claimed = map[int64]string{}
		wg      sync.WaitGroup
	)
	for r, s := range replicas {
		for w := range 4 {
			worker := fmt.Sprintf("replica-%d/worker-%d", r, w)
			wg.Go(func() {
				for {
					j, ok, err := s.Claim(context.Background(), worker, time.Hour)
					if err != nil {
						t.Error(err)
						return
					}
					if !ok {
						return
					}
					mu.Lock()
					if other, seen := claimed[j.ID]; seen {
						t.Errorf("job %d claimed by %s and %s", j.ID, other, worker)
					}
					claimed[j.ID] = worker
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if len(claimed) != jobs {
		t.Errorf("%d jobs claimed, want %d", len(claimed), jobs)
	}
	storetest.WantCounts(t, replicas[1], map[work.State]int{work.Running: jobs})
}

// RecoverAbandoned leaves alone the jobs of a replica whose lease still
// runs: that replica may be alive.
func TestRecoverAbandonedKeepsLiveLeases(t *testing.T) {
	s := openTest(t, pgtest.DSN(t))
	clk := storetest.NewClock()
	postgres.SetClock(s, clk.Now)
	for i := range 2 {
		storetest.Enqueue(t, s, storetest.NewRequest(storetest.Delivery(i), i+1), store.Created)
	}
	storetest.Claim(t, s, "alive", time.Hour)
	dead := storetest.Claim(t, s, "dead", time.Minute)
	clk.Advance(time.Minute)
	if n, err := s.RecoverAbandoned(context.Background()); err != nil || n != 1 {
		t.Fatalf("RecoverAbandoned = %d, %v; want 1", n, err)
	}
	if got := storetest.Get(t, s, dead.ID); got.State != work.Queued || got.Claims != 1 {
		t.Errorf("the dead replica's job is %s with %d claims, want queued with 1", got.State, got.Claims)
	}
	storetest.WantCounts(t, s, map[work.State]int{work.Running: 1, work.Queued: 1})
}

// Ping reports the schema's version without migrating, and refuses a
// newer one.
func TestPing(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	if v, err := postgres.Ping(ctx, dsn); err != nil || v != 0 {
		t.Fatalf("Ping of an empty database = %d, %v; want 0", v, err)
	}
	openTest(t, dsn).Close()
	if v, err := postgres.Ping(ctx, dsn); err != nil || v != postgres.SchemaVersion() {
		t.Fatalf("Ping of a migrated database = %d, %v; want %d", v, err, postgres.SchemaVersion())
	}
	exec(t, dsn, `INSERT INTO schema_migrations (version) VALUES (1000)`)
	if _, err := postgres.Ping(ctx, dsn); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Ping of a newer schema = %v, want an error saying it is newer", err)
	}
	if _, err := postgres.Ping(ctx, "postgres://capsule:s3cret@[::1/capsule"); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("Ping of a URL that does not parse = %v, want an error without the password", err)
	}
}

// TestQueryPlans checks that each query that looks up jobs by issue,
// round or pull request can use its index: owner and repo go through
// lower() in the queries exactly as in the indexes. (Sequential scans are
// turned off, as a small table would make them the cheaper plan.)
func TestQueryPlans(t *testing.T) {
	dsn := pgtest.DSN(t)
	openTest(t, dsn)
	conn := connect(t, dsn)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		query string
		args  []any
		index string
	}{
		{postgres.ClaimableQuery, []any{int64(1), int64(2)}, "jobs_claimable"},
		{postgres.ActiveQuery, []any{"acme", "widgets", 1}, "jobs_active_issue"},
		{postgres.RoundQuery, []any{"acme", "widgets", 1, "review:1"}, "jobs_round"},
		{postgres.IssueQuery, []any{"acme", "widgets", 1}, "jobs_pull_request"},
	} {
		var plan strings.Builder
		rows, err := conn.Query(ctx, "EXPLAIN "+tt.query, tt.args...)
		if err != nil {
			t.Fatal(err)
		}
		var line string
		if _, err := pgx.ForEachRow(rows, []any{&line}, func() error {
			plan.WriteString(line + "\n")
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan.String(), " on "+tt.index) && !strings.Contains(plan.String(), "using "+tt.index) {
			t.Errorf("the plan of\n%s\ndoes not use %s:\n%s", tt.query, tt.index, plan.String())
		}
	}
}

// TestMigrateKeepsWaitingRounds opens a database of schema version 1
// holding an active job and a round waiting for it: after the migration
// to label triggers that wait too, the round is still queued in its turn,
// and a label trigger can wait beside it.
func TestMigrateKeepsWaitingRounds(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	exec(t, dsn, `CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
		INSERT INTO schema_migrations (version) VALUES (1);`)
	exec(t, dsn, postgres.FirstMigration)
	exec(t, dsn, `INSERT INTO jobs (delivery, event, trigger, installation, owner, repo, issue, sender, label, state, created_at, updated_at)
		VALUES ('old-delivery', 'issues', 'label', 42, 'acme', 'widgets', 7, 'octocat', 'bug', 'queued', 1, 1);
		INSERT INTO deliveries (delivery, job_id) VALUES ('old-delivery', 1);
		INSERT INTO waiting (delivery, event, trigger, installation, owner, repo, issue, sender, pull_request, round, head_sha, created_at)
		VALUES ('old-review', 'pull_request_review', 'review', 42, 'acme', 'widgets', 7, 'octocat', 12, 'review:1', 'aaa', 2);
		INSERT INTO deliveries (delivery, job_id) VALUES ('old-review', 1);`)
	s := openTest(t, dsn)
	label := storetest.NewRequest("new-label", 7)
	if _, outcome, err := s.Enqueue(ctx, label); err != nil || outcome != store.Waiting {
		t.Fatalf("Enqueue of the capsule label = %v, %v; want it waiting", outcome, err)
	}
	for _, want := range []string{"old-delivery", "old-review", "new-label"} {
		j, ok, err := s.Claim(ctx, "w", time.Minute)
		if err != nil || !ok || j.Delivery != want {
			t.Fatalf("Claim = %+v, %v, %v; want the job of %s", j, ok, err, want)
		}
		if err := s.Finish(ctx, j.ID, "w", store.End{State: work.Done}); err != nil {
			t.Fatal(err)
		}
	}
}
