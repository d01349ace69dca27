package server

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/testsupport/pgtest"
)

// TestDatabaseOutage: two replicas on one PostgreSQL database that goes
// down. Both fail /readyz and refuse deliveries at once; the one whose
// grace is short exits; the other, whose grace the outage does not
// outlast, is ready again once the database is back, takes deliveries
// into the queue and runs their jobs.
func TestDatabaseOutage(t *testing.T) {
	cluster := pgtest.NewCluster(t)
	dsn := cluster.DSN(t)
	patient := replica(t, openDatabase(t, dsn), "patient", func(c *Config) {
		c.CheckEvery, c.StoreGrace = 20*time.Millisecond, time.Hour
	})
	brief := replica(t, openDatabase(t, dsn), "brief", func(c *Config) {
		c.CheckEvery, c.StoreGrace = 20*time.Millisecond, 200*time.Millisecond
	})
	patientDone, briefDone := runUntilDone(t, patient), runUntilDone(t, brief)
	for _, s := range []*Server{patient, brief} {
		waitReadyz(t, s, s.cfg.WorkerID+"'s /readyz", readyzOK)
	}

	cluster.Stop(t)
	for _, s := range []*Server{patient, brief} {
		waitReadyz(t, s, s.cfg.WorkerID+"'s /readyz to fail", func(code int, _ string) bool { return code != http.StatusOK })
	}
	body, header := labelledDelivery(t, issueNumber, "d-during")
	if code, answer := probe(patient, http.MethodPost, "/webhook", body, header); code != http.StatusServiceUnavailable {
		t.Errorf("a delivery during the outage: answer %d %s, want 503", code, answer)
	}
	select {
	case err := <-briefDone:
		if !errors.Is(err, errStoreFailed) {
			t.Errorf("the brief replica's Run = %v, want the store's failure", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the replica with a short grace did not exit")
	}
	select {
	case err := <-patientDone:
		t.Fatalf("the patient replica exited within its grace: %v", err)
	default:
	}

	cluster.Start(t)
	waitReadyz(t, patient, "the patient replica ready again", readyzOK)
	body, header = labelledDelivery(t, issueNumber, "d-after")
	if code, answer := probe(patient, http.MethodPost, "/webhook", body, header); code != http.StatusAccepted {
		t.Fatalf("a delivery after the outage: answer %d %s, want 202", code, answer)
	}
	// Its workers take jobs again: this one ends at once, failed, as the
	// test's installation has no client.
	waitUntil(t, "the patient replica to run the job", func() bool {
		counts, err := patient.cfg.Store.Counts(context.Background())
		return err == nil && counts[work.Failed] == 1
	})
	counts, err := patient.cfg.Store.Counts(context.Background())
	total := 0
	for _, n := range counts {
		total += n
	}
	if err != nil || total != 1 {
		t.Errorf("jobs after the outage: %v, %v; want the one delivered after it", counts, err)
	}
}
