package server

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/testsupport/pgtest"
)

// BenchmarkClaimThroughput fills a queue with CAPSULE_CLAIM_JOBS jobs
// (default 10,000), then runs them with servers of 8 workers each whose
// jobs end at once (the installation has no client, so a job fails before
// any work): what it measures is the queue's claims and ends through the
// workers' loop, not the jobs. Side by side: SQLite with its one server,
// PostgreSQL (a durable cluster of its own, on a Unix socket) with one
// replica and with three, each with a pool of its own. It reports jobs/s.
// Run it with -benchtime 1x.
func BenchmarkClaimThroughput(b *testing.B) {
	jobs := envInt(b, "CAPSULE_CLAIM_JOBS", 10_000)
	b.Run("sqlite/1x8", func(b *testing.B) {
		for range b.N {
			st, err := store.Open(filepath.Join(b.TempDir(), "capsule.db"))
			if err != nil {
				b.Fatal(err)
			}
			drain(b, []store.Queue{st}, jobs)
			st.Close()
		}
	})
	cluster := pgtest.NewDurableCluster(b)
	for _, replicas := range []int{1, 3} {
		b.Run(fmt.Sprintf("postgres/%dx8", replicas), func(b *testing.B) {
			for range b.N {
				dsn := cluster.DSN(b)
				stores := make([]store.Queue, replicas)
				for i := range stores {
					stores[i] = openDatabase(b, dsn)
				}
				drain(b, stores, jobs)
			}
		})
	}
}

// drain queues n jobs in stores[0], then times servers on each store, of
// 8 workers each, running them all.
func drain(b *testing.B, stores []store.Queue, n int) {
	b.StopTimer()
	fill(b, stores[0], n)
	servers := make([]*Server, len(stores))
	for i, st := range stores {
		s, err := New(Config{Store: st, Clients: noClients{}, Runner: &job.Runner{Logger: quietLogger()}, Secret: secret,
			Workers: 8, Logger: quietLogger(), WorkerID: fmt.Sprintf("replica-%d", i)})
		if err != nil {
			b.Fatal(err)
		}
		servers[i] = s
	}
	ctx, cancel := context.WithCancel(context.Background())
	var running sync.WaitGroup
	b.StartTimer()
	start := time.Now()
	for _, s := range servers {
		running.Go(func() { s.Run(ctx) })
	}
	for {
		counts, err := stores[0].Counts(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if counts[work.Queued]+counts[work.Running] == 0 {
			if counts[work.Failed] != n {
				b.Fatalf("counts %v, want %d jobs ended", counts, n)
			}
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	running.Wait()
	b.ReportMetric(float64(n)/elapsed.Seconds(), "jobs/s")
}

// fill queues n jobs, each of an issue of its own, 16 at a time.
func fill(b *testing.B, st store.Queue, n int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := int(next.Add(1)); i <= n; i = int(next.Add(1)) {
				r := request(fmt.Sprintf("fill-%d", i), i)
				if _, _, err := st.Enqueue(context.Background(), r); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
