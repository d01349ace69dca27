package server

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/store/postgres"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/pipeline/repo"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/pgtest"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
	"github.com/capsulehq/capsule/testsupport/webhooktest"
)

// overlapping is a solver that solves every issue, counting its runs
// and recording each run that started while another of the same issue
// was running.
type overlapping struct {
	runs     atomic.Int64
	mu       sync.Mutex
	running  map[string]int // by task ID: the issue
	overlaps []string
}

func newOverlapping() *overlapping { return &overlapping{running: make(map[string]int)} }

func (o *overlapping) Solve(_ context.Context, t repo.Task) (*repo.Outcome, error) {
	o.runs.Add(1)
	o.mu.Lock()
	o.running[t.ID]++
	if o.running[t.ID] > 1 {
		o.overlaps = append(o.overlaps, t.ID)
	}
	o.mu.Unlock()
	time.Sleep(time.Millisecond) // a run long enough for another to overlap it
	o.mu.Lock()
	o.running[t.ID]--
	o.mu.Unlock()
	return solved(t), nil
}

// replicas are servers of the test world sharing one PostgreSQL
// database, each with its store (its own pool) and its workers, served
// over HTTP and run until the test ends.
type replicas struct {
	servers []*Server
	urls    []string        // their webhooks
	store   *postgres.Store // one more view of the database, for the test
}

func newReplicas(w *world, n int, o worldOptions) *replicas {
	t := w.t
	t.Helper()
	dsn := pgtest.DSN(t)
	e := w.endpoints("")
	e.Database = dsn
	r := &replicas{}
	for range n {
		s := newServerOn(t, openDatabase(t, dsn), e, o, quietLogger())
		srv := httptest.NewServer(s.Handler())
		t.Cleanup(srv.Close)
		done := runUntilDone(t, s)
		t.Cleanup(func() {
			select {
			case err := <-done:
				t.Errorf("a replica stopped: %v", err)
			default:
			}
		})
		r.servers = append(r.servers, s)
		r.urls = append(r.urls, srv.URL+"/webhook")
	}
	r.store = openDatabase(t, dsn)
	return r
}

// TestReplicasShareTheQueue: three replicas on one PostgreSQL database,
// each with its own workers, behind one sender of signed deliveries: 1,000
// deliveries labelling 40 issues, spread over the replicas, one in five a
// redelivery of an earlier one (to any replica). Every delivery is
// acknowledged; every job runs once and is done; no issue ever has two
// jobs running at once; each issue has one pull request.
func TestReplicasShareTheQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 deliveries")
	}
	const (
		deliveries = 1000
		issues     = 40
		firstIssue = 100
	)
	solver := newOverlapping()
	w := newFakes(t, nil, worldOptions{})
	for n := firstIssue; n < firstIssue+issues; n++ {
		w.repo.AddIssue(n, maintainer, fmt.Sprintf("issue %d", n), "the mean of an empty list")
	}
	r := newReplicas(w, 3, worldOptions{solver: solver, workers: 4})

	rng := rand.New(rand.NewPCG(17, 1))
	type delivery struct {
		id   string
		body []byte
	}
	var sent []delivery
	reqs := make([]*http.Request, deliveries)
	for i := range reqs {
		d := delivery{id: fmt.Sprintf("d-%04d", i), body: w.labelledOn(firstIssue+rng.IntN(issues), maintainer, "capsule")}
		if i%5 == 4 {
			d = sent[rng.IntN(len(sent))]
		} else {
			sent = append(sent, d)
		}
		reqs[i] = webhooktest.Request(t, r.urls[rng.IntN(len(r.urls))], "issues", d.id, d.body, secret)
	}
	answers := make([]string, deliveries)
	var senders sync.WaitGroup
	next := atomic.Int64{}
	for range 16 {
		senders.Go(func() {
			for i := int(next.Add(1) - 1); i < deliveries; i = int(next.Add(1) - 1) {
				answers[i] = answer(reqs[i])
			}
		})
	}
	senders.Wait()
	for i, a := range answers {
		if a != "202" {
			t.Errorf("delivery %s (%d): %s, want 202", reqs[i].Header.Get("X-GitHub-Delivery"), i, a)
		}
	}

	st := r.store
	waitUntil(t, "every job to end", func() bool {
		counts, err := st.Counts(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return counts[work.Queued]+counts[work.Running] == 0
	})
	jobs, err := st.List(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	issuesSolved := map[int]bool{}
	for _, j := range jobs {
		if j.State != work.Done || j.Claims != 1 {
			t.Errorf("job %d of issue %d: %s after %d claims (%s); want done after one", j.ID, j.Issue, j.State, j.Claims, j.Reason)
		}
		issuesSolved[j.Issue] = true
	}
	if runs := solver.runs.Load(); runs != int64(len(jobs)) {
		t.Errorf("the solver ran %d times for %d jobs", runs, len(jobs))
	}
	if len(solver.overlaps) > 0 {
		t.Errorf("jobs of one issue ran at once: %v", solver.overlaps)
	}
	if prs := w.repo.PullRequests(); len(prs) != len(issuesSolved) {
		t.Errorf("%d pull requests for %d issues", len(prs), len(issuesSolved))
	}
	if v := w.gh.Violations(); len(v) > 0 {
		t.Errorf("requests GitHub would reject: %v", v)
	}
	t.Logf("%d deliveries (%d distinct) made %d jobs on %d issues", deliveries, len(sent), len(jobs), len(issuesSolved))
}

// answer sends req and returns the answer's status code, or the error.
func answer(req *http.Request) string {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return fmt.Sprint(resp.StatusCode)
}

// TestKillReplicaMidJob: of two replicas on one PostgreSQL database, the
// one running a job is killed (SIGKILL) mid-job: while it asks the model,
// its sandbox running, or right after GitHub created the pull request,
// before it heard of it. The other replica takes the job up once the
// lease has run out and finishes it: one pull request, the job done after
// two claims, and the dead replica's sandbox removed.
func TestKillReplicaMidJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	tests := []struct {
		name  string
		where func(*endpoints) *string // the endpoint the killer stands before
		match func(*http.Request) bool
	}{
		{"at the model call", func(e *endpoints) *string { return &e.Model }, func(r *http.Request) bool {
			return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions")
		}},
		{"after GitHub opened the pull request", func(e *endpoints) *string { return &e.GitHub }, func(r *http.Request) bool {
			return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, fmt.Sprintf("/repos/%s/%s/pulls", owner, name))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newFakes(t, wrongThenRight, worldOptions{})
			e := w.endpoints("")
			e.Database, e.Lease = pgtest.DSN(t), 2*time.Second
			doomed := e
			k, through := newKiller(t, *tt.where(&doomed))
			*tt.where(&doomed) = through

			first := startChild(t, doomed)
			k.arm(first.cmd, tt.match)
			delivery := fmt.Sprintf("label-%d", time.Now().UnixNano())
			first.send(t, "issues", delivery, w.labelled(maintainer, "capsule"))
			waitUntil(t, "the first replica to take the job", func() bool {
				return strings.Contains(first.logs.String(), `"msg":"job started"`)
			})
			second := startChild(t, e)
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("the killed replica's log:\n%s\nthe other's:\n%s", first.logs, second.logs)
				}
			})
			k.waitKilled(t, first.logs)

			waitUntil(t, "the done label", func() bool { return slices.Contains(w.repo.Labels(issueNumber), job.LabelDone) })
			eng := sandboxtest.Engine(t)
			waitUntil(t, "the killed replica's sandbox to be removed", func() bool {
				list, err := eng.Client().ContainerList(context.Background(), container.ListOptions{
					All: true, Filters: filters.NewArgs(filters.Arg("label", sandbox.LabelDelivery+"="+delivery)),
				})
				return err == nil && len(list) == 0
			})
			second.stop(t)
			if n := len(w.repo.PullRequests()); n != 1 {
				t.Errorf("%d pull requests, want 1", n)
			}
			jobs, err := openDatabase(t, e.Database).List(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != 1 || jobs[0].State != work.Done || jobs[0].Claims != 2 || jobs[0].PullRequest != w.repo.PullRequests()[0].Number {
				t.Errorf("jobs = %+v, want one done after two claims, with the pull request", jobs)
			}
			if v := w.gh.Violations(); len(v) > 0 {
				t.Errorf("requests GitHub would reject: %v", v)
			}
		})
	}
}
