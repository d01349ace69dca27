package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
	"github.com/capsulehq/capsule/testsupport/webhooktest"
)

// childEnv holds the endpoints (JSON) of the server TestServerProcess
// runs; without it that test does nothing.
const childEnv = "CAPSULE_SERVER_CHILD"

// TestServerProcess is not a test: the crash tests run the test binary
// again to run a server of the test world in a process of its own, which
// they kill. It prints the address it serves on, then serves until
// SIGTERM.
func TestServerProcess(t *testing.T) {
	raw := os.Getenv(childEnv)
	if raw == "" {
		t.Skip("run by the crash tests")
	}
	var e endpoints
	if err := json.Unmarshal([]byte(raw), &e); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	var s *Server
	if e.Database != "" {
		s = newServerOn(t, openDatabase(t, e.Database), e, worldOptions{}, logger)
	} else {
		s, _ = newServer(t, e, worldOptions{}, logger)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go http.Serve(ln, s.Handler())
	fmt.Printf("listening on %s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := s.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// child is a server of the test world in a process of its own.
type child struct {
	cmd  *exec.Cmd
	url  string // its webhook
	logs *syncBuffer
}

// startChild starts a server process reaching e and waits until it
// serves; the test kills it when it ends.
func startChild(t *testing.T, e endpoints) *child {
	t.Helper()
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	c := &child{logs: &syncBuffer{}}
	c.cmd = exec.Command(os.Args[0], "-test.run=^TestServerProcess$")
	c.cmd.Env = append(os.Environ(), childEnv+"="+string(raw))
	c.cmd.Stderr = c.logs
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.cmd.Process.Kill(); c.cmd.Wait() })
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if addr, ok := strings.CutPrefix(lines.Text(), "listening on "); ok {
			c.url = "http://" + addr + "/webhook"
			break
		}
	}
	if c.url == "" {
		t.Fatalf("the server process did not start: %v\n%s", lines.Err(), c.logs)
	}
	go func() { // the rest, so that the process never blocks on a full pipe
		for lines.Scan() {
		}
	}()
	return c
}

// send posts a signed delivery to the server process.
func (c *child) send(t *testing.T, event, delivery string, body []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(webhooktest.Request(t, c.url, event, delivery, body, secret))
	if err != nil {
		t.Fatalf("deliver %s: %v\n%s", delivery, err, c.logs)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("deliver %s: %s\n%s", delivery, resp.Status, c.logs)
	}
}

// stop ends the server process with SIGTERM and fails the test unless it
// exits cleanly.
func (c *child) stop(t *testing.T) {
	t.Helper()
	c.cmd.Process.Signal(syscall.SIGTERM)
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("the server process after SIGTERM: %v\n%s", err, c.logs)
	}
}

// syncBuffer collects a process's output while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// killer stands between a server process and the fake GitHub. Once armed,
// it lets the fake carry out the first request that matches, then kills
// the process with SIGKILL before the answer reaches it: GitHub did the
// work, and the server never learnt it.
type killer struct {
	proxy *httputil.ReverseProxy
	srv   *httptest.Server

	mu     sync.Mutex
	match  func(*http.Request) bool // nil when not armed
	victim *exec.Cmd
	killed chan struct{} // closed once it killed
}

// newKiller starts a killer in front of the API at base and returns it
// with the base URL through it.
func newKiller(t *testing.T, base string) (*killer, string) {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	k := &killer{proxy: httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host}), killed: make(chan struct{})}
	k.srv = httptest.NewServer(k)
	t.Cleanup(k.srv.Close)
	return k, k.srv.URL + u.Path
}

// arm makes the killer kill victim after the first request that matches.
func (k *killer) arm(victim *exec.Cmd, match func(*http.Request) bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.victim, k.match = victim, match
}

func (k *killer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	match := k.match
	if match != nil && match(r) {
		k.match = nil
	} else {
		match = nil
	}
	victim := k.victim
	k.mu.Unlock()
	if match == nil {
		k.proxy.ServeHTTP(w, r)
		return
	}
	k.proxy.ServeHTTP(httptest.NewRecorder(), r) // carried out, never answered
	victim.Process.Kill()
	victim.Wait()
	close(k.killed)
	http.Error(w, "the server was killed", http.StatusBadGateway)
}

// waitKilled waits until the killer has killed.
func (k *killer) waitKilled(t *testing.T, logs fmt.Stringer) {
	t.Helper()
	select {
	case <-k.killed:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the server process was never killed\n%s", logs)
	}
}

// storeJobs opens the store at path, once no process holds it, and
// returns its jobs, newest first.
func storeJobs(t *testing.T, path string) []store.Job {
	t.Helper()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	jobs, err := st.List(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// TestKillWhileOpeningPullRequest kills the server right after GitHub
// created the pull request and before the server heard of it; the
// restarted server finishes the job with that pull request, not another.
func TestKillWhileOpeningPullRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	w := newFakes(t, wrongThenRight, worldOptions{})
	e := w.endpoints(filepath.Join(t.TempDir(), "capsule.db"))
	k, through := newKiller(t, e.GitHub)
	e.GitHub = through

	first := startChild(t, e)
	k.arm(first.cmd, func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, fmt.Sprintf("/repos/%s/%s/pulls", owner, name))
	})
	first.send(t, "issues", "label-1", w.labelled(maintainer, "capsule"))
	k.waitKilled(t, first.logs)
	if n := len(w.repo.PullRequests()); n != 1 {
		t.Fatalf("%d pull requests when the server was killed, want 1", n)
	}

	second := startChild(t, e)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the restarted server's log:\n%s", second.logs)
		}
	})
	waitUntil(t, "the done label", func() bool { return slices.Contains(w.repo.Labels(issueNumber), job.LabelDone) })
	second.stop(t)
	if n := len(w.repo.PullRequests()); n != 1 {
		t.Errorf("%d pull requests, want 1", n)
	}
	jobs := storeJobs(t, e.Store)
	if len(jobs) != 1 || jobs[0].State != work.Done || jobs[0].Claims != 2 || jobs[0].PullRequest != w.repo.PullRequests()[0].Number {
		t.Errorf("jobs = %+v, want one done after two claims, with the pull request", jobs)
	}
	if v := w.gh.Violations(); len(v) > 0 {
		t.Errorf("requests GitHub would reject: %v", v)
	}
}

// TestKillDuringRound kills the server in a review round right after
// GitHub carried out the round's push, or its reply in the review's
// thread, before the server heard of it. The restarted server finishes
// the round with one commit and one reply, and asks the model nothing
// more.
func TestKillDuringRound(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	branchRef := fmt.Sprintf("/repos/%s/%s/git/refs/heads/%s", owner, name, work.Branch(issueNumber))
	tests := []struct {
		name    string
		match   func(*http.Request) bool
		replies int // in the thread when the server was killed
	}{
		{"after the push", func(r *http.Request) bool {
			return r.Method == http.MethodPatch && strings.HasSuffix(r.URL.Path, branchRef)
		}, 0},
		{"after the reply", func(r *http.Request) bool {
			return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/replies")
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newFakes(t, openThenReview, worldOptions{config: roundsConfig(t)})
			e := w.endpoints(filepath.Join(t.TempDir(), "capsule.db"))
			k, through := newKiller(t, e.GitHub)
			e.GitHub = through

			first := startChild(t, e)
			first.send(t, "issues", "label", w.labelled(maintainer, "capsule"))
			// The store learns of the pull request as the job ends.
			waitUntil(t, "the label's job to end", func() bool { return strings.Contains(first.logs.String(), `"msg":"job ended"`) })
			pr := w.repo.PullRequests()[0]
			opened := w.head()

			rv := w.repo.AddReview(pr.Number, fakegithub.Review{User: maintainer, Comments: []fakegithub.ReviewComment{{
				Path: "calc/stats.py", Line: 1, DiffHunk: "@@ -1 +1 @@\n+\"\"\"Statistics over lists of numbers.\"\"\"",
				Body: "say in the docstring what an empty list gives",
			}}})
			thread, key := rv.Comments[0].ID, fmt.Sprintf("review:%d", rv.ID)
			k.arm(first.cmd, tt.match)
			first.send(t, "pull_request_review_comment", "review", reviewCommentPayload(t, capsulePR(pr.Number, opened.SHA), maintainer, rv.ID, thread, rv.Comments[0].Body))
			k.waitKilled(t, first.logs)
			pushed := w.head()
			if !slices.Equal(pushed.Parents, []string{opened.SHA}) || w.replies(pr.Number, thread, key) != tt.replies {
				t.Fatalf("when the server was killed: head %+v over %s, %d replies; want the round's commit and %d", pushed, opened.SHA, w.replies(pr.Number, thread, key), tt.replies)
			}

			second := startChild(t, e)
			waitUntil(t, "round 2 in the body", func() bool {
				return strings.Contains(w.repo.PullRequests()[0].Body, "<!-- capsule:round 2 ")
			})
			second.stop(t)
			if t.Failed() {
				t.Logf("the restarted server's log:\n%s", second.logs)
			}
			if head := w.head(); head.SHA != pushed.SHA {
				t.Errorf("the branch moved on to %s after the restart, want it at the round's commit %s", head.SHA, pushed.SHA)
			}
			if n := w.replies(pr.Number, thread, key); n != 1 {
				t.Errorf("%d replies in the thread, want 1", n)
			}
			if n := len(w.model.Requests()); n != 3 {
				t.Errorf("%d model calls, want 3: the restart asked the model again", n)
			}
			jobs := storeJobs(t, e.Store)
			if len(jobs) != 2 || jobs[0].Round != key || jobs[0].State != work.Done || jobs[0].Claims != 2 || jobs[0].HeadSHA != pushed.SHA {
				t.Errorf("jobs = %+v, want the round done after two claims at %s", jobs, pushed.SHA)
			}
			if v := w.gh.Violations(); len(v) > 0 {
				t.Errorf("requests GitHub would reject: %v", v)
			}
		})
	}
}
