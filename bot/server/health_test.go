package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v88/github"
	openai "github.com/sashabaranov/go-openai"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/webhook"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/webhooktest"
)

// checkedServer is a server with a store in a temporary directory,
// checked often, that gives up on a failing store after grace.
func checkedServer(t *testing.T, clients Clients, change func(*Config)) (*Server, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "capsule.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := Config{
		Store: st, Clients: clients, Runner: &job.Runner{Logger: quietLogger()}, Secret: secret, Logger: quietLogger(),
		CheckEvery: 20 * time.Millisecond, StoreGrace: time.Second,
	}
	if change != nil {
		change(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, path
}

// runUntilDone runs s and returns a channel with Run's result; the run is
// stopped when the test ends.
func runUntilDone(t *testing.T, s *Server) <-chan error {
	ctx, cancel := context.WithCancel(context.Background())
	done, finished := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(finished)
		done <- s.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-finished
	})
	return done
}

// probe asks the handler for path and returns the status and body.
func probe(s *Server, method, path string, body io.Reader, header http.Header) (int, string) {
	r := httptest.NewRequest(method, path, body)
	for k, v := range header {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

// labelledPayload is an issues.labeled payload for issue number.
func labelledPayload(t *testing.T, number int) []byte {
	return webhooktest.Payload(t, "issues__labeled.payload.json", func(m map[string]any) {
		webhooktest.Retarget(m, owner, name, number, maintainer, installation)
		webhooktest.Object(m, "label")["name"] = "capsule"
	})
}

// labelledDelivery is a signed issues.labeled delivery for issue number.
func labelledDelivery(t *testing.T, number int, delivery string) (*strings.Reader, http.Header) {
	body := labelledPayload(t, number)
	return strings.NewReader(string(body)), webhooktest.Request(t, "http://x/webhook", "issues", delivery, body, secret).Header
}

// waitUntil polls ok for up to two minutes.
func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	waitSeeing(t, what, func() (bool, string) { return ok(), "" })
}

// waitSeeing polls check until it holds, for up to two minutes, a
// backstop far beyond what any of the waits takes on a busy machine; a
// wait that times out fails the test with what check last saw.
func waitSeeing(t *testing.T, what string, check func() (done bool, saw string)) {
	t.Helper()
	var saw string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var done bool
		if done, saw = check(); done {
			return
		}
	}
	if saw != "" {
		t.Fatalf("timed out waiting for %s; last saw: %s", what, saw)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// waitReadyz waits until s's /readyz answer pleases want, and fails the
// test with the last answer when it never does.
func waitReadyz(t *testing.T, s *Server, what string, want func(code int, body string) bool) {
	t.Helper()
	waitSeeing(t, what, func() (bool, string) {
		code, body := probe(s, http.MethodGet, "/readyz", nil, nil)
		return want(code, body), fmt.Sprintf("/readyz answered %d %s", code, strings.TrimSpace(body))
	})
}

// readyzOK and readyzFailing are waitReadyz's wants of a ready server and
// of one that is not ready and says why in words that include one of
// reasons.
func readyzOK(code int, _ string) bool { return code == http.StatusOK }

func readyzFailing(reasons ...string) func(int, string) bool {
	return func(code int, body string) bool {
		return code == http.StatusServiceUnavailable && slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(body, r) })
	}
}

// TestStoreFailingAtStart: when the jobs of the previous run cannot be put
// back, the server is not ready, refuses deliveries with 503, and Run
// gives up with an error once the grace has passed.
func TestStoreFailingAtStart(t *testing.T) {
	s, _ := checkedServer(t, noClients{}, nil)
	s.cfg.Store.(*store.Store).Close() // every query fails from now on
	done := runUntilDone(t, s)
	waitReadyz(t, s, "/readyz to fail", readyzFailing("store: failing since"))
	body, header := labelledDelivery(t, issueNumber, "d-1")
	if code, answer := probe(s, http.MethodPost, "/webhook", body, header); code != http.StatusServiceUnavailable {
		t.Errorf("delivery: answer %d %s, want 503", code, answer)
	}
	select {
	case err := <-done:
		if !errors.Is(err, errStoreFailed) || !strings.Contains(err.Error(), "closed") {
			t.Errorf("Run = %v, want the store's failure", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not give up on a store that never served")
	}
}

// TestDatabaseDeletedUnderServer: SQLite carries on writing to a deleted
// file without an error; the server notices, is no longer ready, refuses
// deliveries, and Run ends with an error after the grace.
func TestDatabaseDeletedUnderServer(t *testing.T) {
	s, path := checkedServer(t, noClients{}, nil)
	done := runUntilDone(t, s)
	waitReadyz(t, s, "/readyz", readyzOK)
	body, header := labelledDelivery(t, issueNumber, "d-1")
	if code, answer := probe(s, http.MethodPost, "/webhook", body, header); code != http.StatusAccepted {
		t.Fatalf("delivery before: answer %d %s, want 202", code, answer)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	// A new connection of the store's pool may create an empty file at
	// the path before the check runs: the check then finds it replaced.
	waitReadyz(t, s, "/readyz to fail", readyzFailing("gone", "was replaced by another file"))
	body, header = labelledDelivery(t, issueNumber+1, "d-2")
	if code, answer := probe(s, http.MethodPost, "/webhook", body, header); code != http.StatusServiceUnavailable {
		t.Errorf("delivery after: answer %d %s, want 503", code, answer)
	}
	select {
	case err := <-done:
		if !errors.Is(err, errStoreFailed) {
			t.Errorf("Run = %v, want the store's failure", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not give up on a deleted database")
	}
}

// concurrencyGitHub is a GitHub that answers 404 to everything after a
// short while, and counts the requests in flight at once.
type concurrencyGitHub struct {
	srv                 *httptest.Server
	inFlight, most, all atomic.Int64
}

func newConcurrencyGitHub(t *testing.T) *concurrencyGitHub {
	g := &concurrencyGitHub{}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := g.inFlight.Add(1)
		defer g.inFlight.Add(-1)
		for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
		}
		g.all.Add(1)
		time.Sleep(time.Millisecond)
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *concurrencyGitHub) Installation(int64) (*github.Client, error) {
	u := g.srv.URL + "/"
	return github.NewClient(github.WithHTTPClient(g.srv.Client()), github.WithURLs(&u, &u))
}

func (g *concurrencyGitHub) Forget(int64) {}

// TestAnnouncementsAreBounded takes 1,000 deliveries at once (250 times
// the announcers) while the model endpoint is down, so that each job is
// announced as waiting: no more than Announcers requests reach GitHub at
// once, and every job is announced.
func TestAnnouncementsAreBounded(t *testing.T) {
	const deliveries = 1000
	gh := newConcurrencyGitHub(t)
	s, _ := checkedServer(t, gh, func(c *Config) {
		c.Model = func(context.Context) error { return errors.New("connection refused") }
		c.StoreGrace = time.Minute
	})
	runUntilDone(t, s)
	waitUntil(t, "the model check to fail", func() bool { _, _, err := s.health.modelState(); return err != nil })

	requests := make([]work.Request, deliveries)
	for i := range requests {
		r, err := webhook.Parse("issues", labelledPayload(t, i+1))
		if err != nil {
			t.Fatal(err)
		}
		r.Delivery = "burst-" + strconv.Itoa(i)
		requests[i] = r
	}
	// All at once, into the webhook's sink, without the webhook's time
	// limit (which the store may not keep under the race detector).
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, deliveries)
	for _, r := range requests {
		wg.Go(func() {
			<-start
			if err := s.Accept(context.Background(), r); err != nil {
				errs <- err
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Accept: %v", err)
	}
	waitSeeing(t, "every announcement", func() (bool, string) {
		n := gh.all.Load()
		return n == deliveries, fmt.Sprintf("%d of %d announcements", n, deliveries)
	})
	if most := gh.most.Load(); most > int64(s.cfg.Announcers) {
		t.Errorf("%d requests at GitHub at once, want at most %d", most, s.cfg.Announcers)
	}
	t.Logf("%d announcements, at most %d at once", gh.all.Load(), gh.most.Load())
}

// TestModelOutageMidRun: a model endpoint that fails while a job runs
// puts the job back to wait, spending none of its claims, and the job
// runs to its pull request once the endpoint answers; past --model-wait
// the same outage fails the job with the endpoint's error.
func TestModelOutageMidRun(t *testing.T) {
	down := fakeopenai.Response{Status: http.StatusServiceUnavailable, Message: "the model is loading"}
	tests := []struct {
		name      string
		script    fakeopenai.Script
		modelWait time.Duration
		state     work.State
	}{
		{"waits, then runs", func(call int, req openai.ChatCompletionRequest) fakeopenai.Response {
			if call < 2 {
				return down
			}
			return fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats))
		}, 0, work.Done},
		{"fails past the wait", fakeopenai.Sequence(down), time.Nanosecond, work.Failed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.script, worldOptions{noModelRetries: true, checkEvery: 100 * time.Millisecond, modelWait: tt.modelWait})
			w.start()
			w.send("issues", "", w.labelled(maintainer, "capsule"), secret)
			jobs := w.wait()
			if len(jobs) != 1 || jobs[0].State != tt.state || jobs[0].Claims != 1 {
				t.Fatalf("jobs = %+v, want one %s after one claim", jobs, tt.state)
			}
			switch tt.state {
			case work.Done:
				if n := len(w.repo.PullRequests()); n != 1 {
					t.Errorf("%d pull requests, want 1", n)
				}
				if n := len(w.model.Requests()); n != 3 {
					t.Errorf("%d model requests, want 3 (2 refused, 1 answered)", n)
				}
			case work.Failed:
				if !strings.Contains(jobs[0].Reason, "the model is loading") {
					t.Errorf("reason %q does not give the endpoint's error", jobs[0].Reason)
				}
			}
		})
	}
}

// TestLongDeliveryIDs: two long delivery ids that share their first 200
// characters are two deliveries in the store, and an absurdly long one is
// refused with 400.
func TestLongDeliveryIDs(t *testing.T) {
	s, _ := checkedServer(t, noClients{}, nil)
	prefix := strings.Repeat("7", 200)
	for i, id := range []string{prefix + "-first", prefix + "-second"} {
		body, header := labelledDelivery(t, i+1, id)
		if code, answer := probe(s, http.MethodPost, "/webhook", body, header); code != http.StatusAccepted || !strings.Contains(answer, "queued") {
			t.Fatalf("delivery %d: answer %d %s, want 202 queued", i, code, answer)
		}
		j, err := s.cfg.Store.(*store.Store).ByDelivery(context.Background(), id)
		if err != nil || j.Issue != i+1 || j.Delivery != id {
			t.Errorf("delivery %d: job %+v, %v; want the job of issue %d under the whole id", i, j, err, i+1)
		}
	}
	body, header := labelledDelivery(t, 3, strings.Repeat("7", 10000))
	if code, answer := probe(s, http.MethodPost, "/webhook", body, header); code != http.StatusBadRequest || !strings.Contains(answer, "X-GitHub-Delivery") {
		t.Errorf("a 10,000-byte id: answer %d %s, want 400 naming the header", code, answer)
	}
}

// TestFullDisk fills the file system under the database (a small tmpfs,
// which needs root to mount): the worker's claim fails, the server is no
// longer ready, and it is ready again once there is room.
func TestFullDisk(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot mount a tmpfs (the test needs root under CI): %v %s", err, out)
		}
		t.Skipf("cannot mount a tmpfs (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	st, err := store.Open(filepath.Join(dir, "capsule.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := New(Config{
		Store: st, Clients: noClients{}, Runner: &job.Runner{Logger: quietLogger()}, Secret: secret, Logger: quietLogger(),
		CheckEvery: 20 * time.Millisecond, StoreGrace: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	body, header := labelledDelivery(t, issueNumber, "before-the-disk-fills")
	if code, answer := probe(s, http.MethodPost, "/webhook", body, header); code != http.StatusAccepted {
		t.Fatalf("delivery: answer %d %s, want 202", code, answer)
	}
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for chunk := make([]byte, 64<<10); err == nil; {
		_, err = f.Write(chunk)
	}
	f.Close()

	runUntilDone(t, s)
	waitReadyz(t, s, "/readyz to fail", readyzFailing("full"))
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	waitReadyz(t, s, "/readyz once there is room", readyzOK)
	waitUntil(t, "the job to be taken up", func() bool {
		j, err := st.ByDelivery(context.Background(), "before-the-disk-fills")
		return err == nil && j.Claims == 1
	})
}
