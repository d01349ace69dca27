package sandbox

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestUnwanted(t *testing.T) {
	self := owner{host: "host-b", pid: 1, start: "1"}
	e := &Engine{owner: self}
	gone := owner{host: self.host, pid: 1 << 22, start: "1"}.String()
	elsewhere := owner{host: "host-a", pid: 1 << 22, start: "1"}.String()
	job := Job{Replica: "host-a/7/1", ID: 12, Delivery: "d-12", Queued: time.Unix(0, 1_700_000_000_123_456_789)}
	withJob := func(o string) map[string]string {
		l := map[string]string{LabelOwner: o}
		job.addLabels(l)
		return l
	}
	kept := func(context.Context, Job) (bool, error) { return true, nil }
	taken := func(_ context.Context, j Job) (bool, error) { return j != job, nil }
	failing := func(context.Context, Job) (bool, error) { return false, errors.New("store down") }
	tests := []struct {
		name     string
		labels   map[string]string
		keep     Keep
		unwanted bool
		err      bool
	}{
		{"no owner", map[string]string{}, nil, true, false},
		{"owner on this host ended", map[string]string{LabelOwner: gone}, nil, true, false},
		{"owner on this host ended, job kept", withJob(gone), kept, true, false},
		{"owner on another host, no job", map[string]string{LabelOwner: elsewhere}, taken, false, false},
		{"owner on another host, job not judged", withJob(elsewhere), nil, false, false},
		{"owner on another host, job kept", withJob(elsewhere), kept, false, false},
		{"owner on another host, job taken", withJob(elsewhere), taken, true, false},
		{"store fails", withJob(elsewhere), failing, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			why, err := e.unwanted(context.Background(), tt.labels, tt.keep)
			if (why != "") != tt.unwanted || (err != nil) != tt.err {
				t.Errorf("unwanted = %q, %v; want unwanted %v, error %v", why, err, tt.unwanted, tt.err)
			}
		})
	}
}

func TestJobLabels(t *testing.T) {
	j := Job{Replica: "h/1/2", ID: 42, Delivery: "72d3162e", Queued: time.Unix(0, 1_700_000_000_123_456_789)}
	e := &Engine{owner: owner{host: "h", pid: 1, start: "2"}}
	got, ok := parseJob(e.labels(WithJob(context.Background(), j)))
	if !ok || got != j {
		t.Errorf("parseJob(labels(WithJob(%+v))) = %+v, %v", j, got, ok)
	}
	if _, ok := parseJob(e.labels(context.Background())); ok {
		t.Error("a container of no job has job labels")
	}
}
