package sandbox_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// TestRemoveLeftoversAcrossHosts: replica A on one host started sandboxes
// for two jobs; replica B, on another host sharing the engine, removes the
// one whose job no longer runs under A's lease, keeps the other, and
// leaves alone a container of A's that serves no job (its owner is on
// another host, so B cannot tell whether it lives).
func TestRemoveLeftoversAcrossHosts(t *testing.T) {
	tag := fmt.Sprintf("%d", time.Now().UnixNano())
	a := sandboxtest.EngineOnHost(t, "replica-a-"+tag)
	b := sandboxtest.EngineOnHost(t, "replica-b-"+tag)
	replica := "replica-a-" + tag + "/1/1"
	queued := time.Unix(0, time.Now().UnixNano())
	taken := sandbox.Job{Replica: replica, ID: 1, Delivery: "delivery-1-" + tag, Queued: queued}
	held := sandbox.Job{Replica: replica, ID: 2, Delivery: "delivery-2-" + tag, Queued: queued}

	ctx := context.Background()
	for _, j := range []sandbox.Job{taken, held} {
		s, err := a.NewSession(sandbox.WithJob(ctx, j), sandboxtest.Spec(""))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
	}
	plain, err := a.NewSession(ctx, sandboxtest.Spec(""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Close() })

	var mu sync.Mutex
	var asked []sandbox.Job
	keep := func(_ context.Context, j sandbox.Job) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, j)
		return j != taken, nil // other jobs, this test's or not, are kept
	}
	if _, err := b.RemoveLeftovers(ctx, keep); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(asked, taken) || !slices.Contains(asked, held) {
		t.Errorf("keep was asked about %+v, want both of replica A's jobs", asked)
	}
	left := sandboxtest.Containers(t, a, "replica-a-"+tag)
	if _, ok := left[""]; !ok || len(left) != 2 || left["2"] == "" || left["1"] != "" {
		t.Errorf("replica A's containers after B's sweep, by job: %v; want job 2's and the one of no job", left)
	}

	if n, err := a.RemoveLeftovers(ctx, nil); err != nil || n != 0 {
		t.Errorf("A's own sweep without a judge of jobs removed %d, %v; want 0 (its owner lives)", n, err)
	}
}
