package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/webhook"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/testsupport/pgtest"
	"github.com/capsulehq/capsule/testsupport/webhooktest"
)

// BenchmarkWebhookLoad sends signed issues.labeled deliveries at a fixed
// rate for a fixed time (CAPSULE_LOAD_RATE per second, default 200, for
// CAPSULE_LOAD_SECONDS, default 30), first to a handler whose sink
// stores nothing (the baseline), then to the server with its SQLite
// store, then to the server with its PostgreSQL store (a cluster of its
// own, on a Unix socket, made durable: fsync on, as SQLite commits); jobs
// are queued, not run. It reports the acknowledgement latency's p50 and
// p99, the rate held, and checks that every acknowledged delivery is in
// the store. Run it with -benchtime 1x.
func BenchmarkWebhookLoad(b *testing.B) {
	rate, seconds := envInt(b, "CAPSULE_LOAD_RATE", 200), envInt(b, "CAPSULE_LOAD_SECONDS", 30)
	secret := []byte("load-secret")
	n := rate * seconds
	bodies := make([][]byte, n)
	for i := range bodies {
		bodies[i] = webhooktest.Payload(b, "issues__labeled.payload.json", func(m map[string]any) {
			webhooktest.Retarget(m, "octo", "load", i+1, "alice", 7)
		})
	}

	b.Run("baseline", func(b *testing.B) {
		h, err := webhook.NewHandler(webhook.Options{Secret: secret, Sink: discard{}, Logger: quietLogger()})
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(h)
		defer srv.Close()
		for range b.N {
			sendLoad(b, srv.URL, secret, bodies, rate, "base")
		}
	})
	b.Run("sqlite", func(b *testing.B) {
		for i := range b.N {
			st, err := store.Open(filepath.Join(b.TempDir(), fmt.Sprintf("capsule-%d.db", i)))
			if err != nil {
				b.Fatal(err)
			}
			storeLoad(b, st, secret, bodies, rate, fmt.Sprintf("sqlite%d", i))
		}
	})
	b.Run("postgres", func(b *testing.B) {
		cluster := pgtest.NewDurableCluster(b)
		for i := range b.N {
			storeLoad(b, openDatabase(b, cluster.DSN(b)), secret, bodies, rate, fmt.Sprintf("postgres%d", i))
		}
	})
}

// loadStore is a store whose deliveries the load benchmark looks up.
type loadStore interface {
	store.Queue
	ByDelivery(ctx context.Context, delivery string) (store.Job, error)
	Close() error
}

// storeLoad sends the load to a server on st, checks that every
// acknowledged delivery is in st, and closes it.
func storeLoad(b *testing.B, st loadStore, secret []byte, bodies [][]byte, rate int, prefix string) {
	defer st.Close()
	s, err := New(Config{Store: st, Clients: noClients{}, Runner: &job.Runner{}, Secret: secret, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	acked := sendLoad(b, srv.URL+"/webhook", secret, bodies, rate, prefix)
	srv.Close()
	for _, id := range acked {
		if _, err := st.ByDelivery(context.Background(), id); err != nil {
			b.Fatalf("acknowledged delivery %s is not in the store: %v", id, err)
		}
	}
}

// sendLoad sends the bodies at rate per second, open loop (a slow answer
// does not delay the next send), and reports the latencies. It returns
// the delivery ids that were acknowledged with 202.
func sendLoad(b *testing.B, url string, secret []byte, bodies [][]byte, rate int, prefix string) []string {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}, Timeout: 30 * time.Second}
	latencies := make([]time.Duration, len(bodies))
	acked := make([]string, 0, len(bodies))
	var mu sync.Mutex
	var wg sync.WaitGroup
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	for i, body := range bodies {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		id := fmt.Sprintf("%s-%d", prefix, i)
		req := webhooktest.Request(b, url, "issues", id, body, secret)
		wg.Go(func() {
			t0 := time.Now()
			resp, err := client.Do(req)
			latencies[i] = time.Since(t0)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				b.Errorf("delivery %s: %s", id, resp.Status)
				return
			}
			mu.Lock()
			acked = append(acked, id)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(len(acked))/elapsed.Seconds(), "acks/s")
	b.ReportMetric(float64(len(acked))/float64(len(bodies)), "acked-fraction")
	return acked
}

func envInt(b *testing.B, name string, fallback int) int {
	v := os.Getenv(name)
	if v == "" {
		return fallback
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

type discard struct{}

func (discard) Accept(context.Context, work.Request) error { return nil }
