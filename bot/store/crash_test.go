package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bot/work"
)

// helperEnv names the database TestHelperProcess enqueues into; the test
// does nothing without it.
const helperEnv = "CAPSULE_STORE_HELPER_DB"

// TestHelperProcess is not a test: TestKillAfterEnqueue runs the test
// binary again to run it in a process of its own. It enqueues jobs as fast
// as it can, printing each delivery ID once Enqueue has returned, the way
// the webhook acknowledges a delivery, until it is killed.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("run by TestKillAfterEnqueue")
	}
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// A bound, in case the parent never gets round to killing us.
	for i := range 100_000 {
		d := fmt.Sprintf("crash-%06d", i)
		if _, _, err := s.Enqueue(context.Background(), newRequest(d, i+1)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(d) // unbuffered: once printed, acknowledged
	}
	os.Exit(3)
}

// TestKillAfterEnqueue kills a process that is enqueueing, with SIGKILL,
// and checks that every delivery it acknowledged is in the store.
func TestKillAfterEnqueue(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	path := filepath.Join(t.TempDir(), "capsule.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	const beforeKill = 100
	var acked []string
	lines := bufio.NewScanner(out)
	for len(acked) < beforeKill && lines.Scan() {
		acked = appendDelivery(acked, lines.Text())
	}
	if len(acked) < beforeKill {
		t.Fatalf("the helper stopped after %d deliveries: %v", len(acked), lines.Err())
	}
	// While it runs, the helper holds the store.
	if _, err := Open(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("Open while the helper runs = %v, want ErrLocked", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// What it printed before it died was acknowledged too.
	for lines.Scan() {
		acked = appendDelivery(acked, lines.Text())
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the helper exited cleanly; it should have been killed")
	}

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, d := range acked {
		if _, err := s.ByDelivery(context.Background(), d); err != nil {
			t.Errorf("acknowledged delivery %s: %v", d, err)
		}
	}
	counts, err := s.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if counts[work.Queued] < len(acked) {
		t.Errorf("%d jobs queued, fewer than the %d acknowledged", counts[work.Queued], len(acked))
	}
	t.Logf("%d deliveries acknowledged before SIGKILL, %d jobs in the store", len(acked), counts[work.Queued])
}

// appendDelivery appends line to acked if it is a delivery ID, rather than
// something the testing package printed.
func appendDelivery(acked []string, line string) []string {
	if strings.HasPrefix(line, "crash-") {
		acked = append(acked, line)
	}
	return acked
}
