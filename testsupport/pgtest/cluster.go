package pgtest

import "testing"

// Cluster is a cluster of one test's own, which the test may stop and
// start again: a database outage.
type Cluster struct {
	c *cluster
}

// NewCluster starts a cluster for t alone, removed when t ends. Its
// databases (DSN) are dropped first, so t must leave it running. Like the
// shared cluster, it does not sync commits to disk.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	return newCluster(t, false)
}

// NewDurableCluster is NewCluster with fsync on, as a production server
// runs: for benchmarks that compare the cost of a commit.
func NewDurableCluster(t testing.TB) *Cluster {
	t.Helper()
	return newCluster(t, true)
}

func newCluster(t testing.TB, durable bool) *Cluster {
	t.Helper()
	c, err := start(durable)
	if err != nil {
		unavailable(t, err)
	}
	t.Cleanup(func() {
		if err := c.stop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return &Cluster{c: c}
}

// DSN returns the URL of a new, empty database on the cluster, dropped
// when t ends.
func (c *Cluster) DSN(t testing.TB) string {
	t.Helper()
	return c.c.database(t)
}

// Stop stops the server at once, as a crash would: every connection
// breaks and new ones are refused. The data stays.
func (c *Cluster) Stop(t testing.TB) {
	t.Helper()
	if err := c.c.halt(); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
}

// Start starts the stopped server again, on the same socket, and returns
// once it answers.
func (c *Cluster) Start(t testing.TB) {
	t.Helper()
	if err := c.c.serve(); err != nil {
		t.Fatalf("pgtest: start again: %v", err)
	}
}
