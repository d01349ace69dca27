package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/work"
)

// enqueuers are the ways to enqueue that the benchmarks compare: the
// store's own, which commits concurrent calls together, and a transaction
// and fsync per call, for reference.
var enqueuers = []struct {
	name    string
	enqueue func(s *Store, ctx context.Context, j work.Request) error
}{
	{"group", func(s *Store, ctx context.Context, j work.Request) error {
		_, _, err := s.Enqueue(ctx, j)
		return err
	}},
	{"single", func(s *Store, ctx context.Context, j work.Request) error {
		return s.write(ctx, func(tx *sql.Tx) error {
			_, _, err := s.enqueue(ctx, tx, j)
			return err
		})
	}},
}

// BenchmarkEnqueue enqueues one delivery after another, each for an issue
// of its own: a committed (fsynced) transaction per operation either way.
func BenchmarkEnqueue(b *testing.B) {
	for _, e := range enqueuers {
		b.Run(e.name, func(b *testing.B) {
			s, _ := openTest(b)
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				if err := e.enqueue(s, ctx, newRequest(delivery(i), i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEnqueueParallel enqueues from 8×GOMAXPROCS goroutines at once,
// each delivery for an issue of its own. Webhook handlers wait on the disk,
// not the CPU, so there are more of them than cores.
func BenchmarkEnqueueParallel(b *testing.B) {
	for _, e := range enqueuers {
		b.Run(e.name, func(b *testing.B) {
			s, _ := openTest(b)
			ctx := context.Background()
			var n atomic.Int64
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := int(n.Add(1))
					if err := e.enqueue(s, ctx, newRequest(delivery(i), i)); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkEnqueueAt200PerSecond offers b.N deliveries at the rate the
// webhook must sustain, 200 a second on average, each on a goroutine of its
// own as net/http would, and reports the latency percentiles the webhook's
// acknowledgements would see (the target is a p99 of 20ms or less).
// Arrivals are a Poisson process, as independent events are, with a fixed
// seed so that every run offers the same schedule; ns/op is the wall time
// divided by b.N, about 5ms by construction.
func BenchmarkEnqueueAt200PerSecond(b *testing.B) {
	const rate = 200
	for _, e := range enqueuers {
		b.Run(e.name, func(b *testing.B) {
			s, _ := openTest(b)
			ctx := context.Background()
			latencies := make([]time.Duration, b.N)
			gaps := rand.New(rand.NewPCG(1, 2))
			var (
				wg     sync.WaitGroup
				offset time.Duration
			)
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				offset += time.Duration(gaps.ExpFloat64() * float64(time.Second) / rate)
				time.Sleep(time.Until(start.Add(offset)))
				wg.Go(func() {
					t := time.Now()
					if err := e.enqueue(s, ctx, newRequest(fmt.Sprintf("rate-%d", i), i+1)); err != nil {
						b.Error(err)
					}
					latencies[i] = time.Since(t)
				})
			}
			wg.Wait()
			b.StopTimer()
			slices.Sort(latencies)
			pct := func(p float64) float64 {
				return float64(latencies[int(p*float64(len(latencies)-1))]) / float64(time.Millisecond)
			}
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.99), "p99-ms")
			b.ReportMetric(pct(1), "max-ms")
		})
	}
}
