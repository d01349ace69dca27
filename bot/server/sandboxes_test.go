package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/store/postgres"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/pgtest"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// openPostgres opens the store on a new database of the test cluster.
func openPostgres(t testing.TB) *postgres.Store {
	t.Helper()
	return openDatabase(t, pgtest.DSN(t))
}

// openDatabase opens the store on the PostgreSQL database at dsn, closed
// when the test ends.
func openDatabase(t testing.TB, dsn string) *postgres.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// replica is a server named worker on st that runs no job itself.
func replica(t testing.TB, st store.Queue, worker string, change func(*Config)) *Server {
	t.Helper()
	cfg := Config{Store: st, Clients: noClients{}, Runner: &job.Runner{Logger: quietLogger()}, Secret: secret,
		Logger: quietLogger(), WorkerID: worker}
	if change != nil {
		change(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// request is a labelled-issue request for issue n of the test world,
// made by delivery.
func request(delivery string, n int) work.Request {
	return work.Request{Delivery: delivery, Event: "issues", Trigger: work.TriggerLabel, Installation: installation,
		Owner: owner, Repo: name, Issue: n, Sender: maintainer, Label: "capsule"}
}

// enqueue queues r as a new job.
func enqueue(t testing.TB, st store.Queue, r work.Request) store.Job {
	t.Helper()
	j, outcome, err := st.Enqueue(context.Background(), r)
	if err != nil || outcome != store.Created {
		t.Fatalf("Enqueue(%s) = %v, %v; want a new job", r.Delivery, outcome, err)
	}
	return j
}

// claim claims a job for worker.
func claim(t testing.TB, st store.Queue, worker string, lease time.Duration) store.Job {
	t.Helper()
	j, ok, err := st.Claim(context.Background(), worker, lease)
	if err != nil || !ok {
		t.Fatalf("Claim(%s) = %v, %v; want a job", worker, ok, err)
	}
	return j
}

// TestSandboxesOfADeadReplica: replica A, on one host, claimed two jobs
// and started their sandboxes, then died. Replica B, on another host
// sharing the engine, keeps them while A's leases hold; once one job has
// ended and B has taken the other up after its lease ran out, B's sweep
// removes both.
func TestSandboxesOfADeadReplica(t *testing.T) {
	st := openPostgres(t)
	tag := fmt.Sprint(time.Now().UnixNano())
	hostA, hostB := "host-a-"+tag, "host-b-"+tag
	engA, engB := sandboxtest.EngineOnHost(t, hostA), sandboxtest.EngineOnHost(t, hostB)
	a := replica(t, st, hostA+"/1/1", func(c *Config) { c.Sandboxes = engA })
	b := replica(t, st, hostB+"/2/2", func(c *Config) { c.Sandboxes = engB })

	ctx := context.Background()
	enqueue(t, st, request("ends-"+tag, 1))
	enqueue(t, st, request("taken-"+tag, 2))
	ends := claim(t, st, a.cfg.WorkerID, time.Hour)
	taken := claim(t, st, a.cfg.WorkerID, time.Hour)
	for _, j := range []store.Job{ends, taken} {
		s, err := engA.NewSession(a.withJob(ctx, j), sandboxtest.Spec(""))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
	}
	sweep := func() {
		t.Helper()
		if _, err := b.cfg.Sandboxes.RemoveLeftovers(ctx, b.keepSandbox); err != nil {
			t.Fatal(err)
		}
	}
	sweep()
	if got := sandboxtest.Containers(t, engA, hostA); len(got) != 2 {
		t.Fatalf("A's sandboxes while its leases hold, by job: %v; want both", got)
	}

	if err := st.Finish(ctx, ends.ID, a.cfg.WorkerID, store.End{State: work.Done}); err != nil {
		t.Fatal(err)
	}
	// A's lease of the other runs out now, not after a fixed interval that
	// starting two sandboxes on a busy machine may outlast.
	if err := st.Renew(ctx, taken.ID, a.cfg.WorkerID, time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "B takes up the job after A's lease", func() bool {
		j, ok, err := st.Claim(ctx, b.cfg.WorkerID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return ok && j.ID == taken.ID
	})
	sweep()
	if got := sandboxtest.Containers(t, engA, hostA); len(got) != 0 {
		t.Errorf("A's sandboxes after its jobs ended or were taken up, by job: %v; want none", got)
	}
}

// TestKeepSandbox: a sandbox is kept while its job runs under the replica
// that started it, and also when the queue cannot judge it (a job of
// another queue sharing the engine: another number, delivery or time).
func TestKeepSandbox(t *testing.T) {
	st := openPostgres(t)
	s := replica(t, st, "replica-1", nil)
	ctx := context.Background()
	running := enqueue(t, st, request("d-running", 1))
	claim(t, st, "replica-1", time.Hour)
	queued := enqueue(t, st, request("d-queued", 2))
	tests := []struct {
		name string
		job  sandbox.Job
		keep bool
	}{
		{"running under its replica", sandbox.Job{Replica: "replica-1", ID: running.ID, Delivery: "d-running", Queued: running.CreatedAt}, true},
		{"running under another replica", sandbox.Job{Replica: "replica-2", ID: running.ID, Delivery: "d-running", Queued: running.CreatedAt}, false},
		{"back in the queue", sandbox.Job{Replica: "replica-1", ID: queued.ID, Delivery: "d-queued", Queued: queued.CreatedAt}, false},
		{"another queue's job of that number", sandbox.Job{Replica: "replica-1", ID: queued.ID, Delivery: "d-elsewhere", Queued: queued.CreatedAt}, true},
		{"another queue's job of that number and delivery", sandbox.Job{Replica: "replica-1", ID: queued.ID, Delivery: "d-queued", Queued: queued.CreatedAt.Add(-time.Second)}, true},
		{"no such job", sandbox.Job{Replica: "replica-1", ID: 999, Delivery: "d-running", Queued: running.CreatedAt}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keep, err := s.keepSandbox(ctx, tt.job)
			if err != nil || keep != tt.keep {
				t.Errorf("keepSandbox = %v, %v; want %v", keep, err, tt.keep)
			}
		})
	}
}
