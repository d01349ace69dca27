package sandbox

import (
	"context"
	"strconv"
	"time"
)

// Labels that name the job a container serves, so that any replica
// sharing the engine can tell whether the container is still wanted: its
// job still runs under the lease of the replica that started it.
const (
	LabelJob      = "dev.capsule.job"
	LabelReplica  = "dev.capsule.replica"
	LabelDelivery = "dev.capsule.delivery"
	LabelQueued   = "dev.capsule.queued"
)

// Job names the job a sandbox serves in the App's queue.
type Job struct {
	// Replica is the worker the job's lease is held under (the server's
	// WorkerID).
	Replica string
	ID      int64
	// Delivery is the delivery that queued the job, and Queued when: they
	// tell job N of one queue from job N of another queue whose sandboxes
	// share the engine.
	Delivery string
	Queued   time.Time
}

// Keep reports whether a job's container is still wanted: whether the job
// still runs under its replica's lease. It answers true for a job it
// cannot judge (one of another queue).
type Keep func(ctx context.Context, j Job) (bool, error)

type jobKey struct{}

// WithJob returns a context whose sessions (NewSession) label their
// containers with j.
func WithJob(ctx context.Context, j Job) context.Context {
	return context.WithValue(ctx, jobKey{}, j)
}

// jobOf is the job WithJob put in ctx.
func jobOf(ctx context.Context) (Job, bool) {
	j, ok := ctx.Value(jobKey{}).(Job)
	return j, ok
}

// addLabels adds j's labels to labels.
func (j Job) addLabels(labels map[string]string) {
	labels[LabelJob] = strconv.FormatInt(j.ID, 10)
	labels[LabelReplica] = j.Replica
	labels[LabelDelivery] = j.Delivery
	labels[LabelQueued] = strconv.FormatInt(j.Queued.UnixNano(), 10)
}

// parseJob reads the job labels of a container, if it has them.
func parseJob(labels map[string]string) (Job, bool) {
	id, err := strconv.ParseInt(labels[LabelJob], 10, 64)
	if err != nil || labels[LabelReplica] == "" {
		return Job{}, false
	}
	queued, err := strconv.ParseInt(labels[LabelQueued], 10, 64)
	if err != nil {
		return Job{}, false
	}
	return Job{Replica: labels[LabelReplica], ID: id, Delivery: labels[LabelDelivery], Queued: time.Unix(0, queued)}, true
}
