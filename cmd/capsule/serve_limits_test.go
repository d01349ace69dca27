package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/work"
	"github.com/capsulehq/capsule/testsupport/calculatortest"

	"github.com/capsulehq/capsule/testsupport/fakegithub"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
	"github.com/capsulehq/capsule/testsupport/webhooktest"
)

// startServe starts the real binary's serve with env and args, waits for
// /readyz to answer 200 and returns the process and its logs; the process
// is killed when the test ends.
func startServe(t *testing.T, addr string, env []string, args ...string) (*exec.Cmd, *logBuffer) {
	t.Helper()
	var logs logBuffer
	cmd := exec.Command(sandboxtest.AgentBinary(t), append([]string{"serve"}, args...)...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(t, "the server to be ready", func() bool {
		code, _ := get(t, "http://"+addr+"/readyz")
		return code == http.StatusOK
	}, &logs)
	return cmd, &logs
}

// logBuffer collects a process's output while the test reads it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// get fetches url and returns the status and body; 0 when it failed.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	client := http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// vmHWM reads a process's peak resident set size, in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// zeros is a body of n bytes made as it is read, so that 250 of them cost
// the test nothing.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n == 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), z.n))
	clear(p[:n])
	z.n -= int64(n)
	return n, nil
}

// TestServeBoundsBodiesInFlight sends 250 concurrent 25 MB deliveries
// with wrong signatures to the real binary and checks that its peak
// resident memory stays under its idle peak plus the in-flight budget,
// that the deliveries past the budget are answered 503 with Retry-After,
// and that the server still takes a signed delivery afterwards.
func TestServeBoundsBodiesInFlight(t *testing.T) {
	sandboxtest.Engine(t)
	const (
		budget   = 64 << 20
		bodySize = 25 << 20
		senders  = 250
	)
	model := fakeopenai.New(t, nil, fakeopenai.WithModels("m"))
	w := newAppWorld(t, model.URL())
	addr := w.addr
	cmd, logs := startServe(t, addr, w.env, "--max-in-flight", strconv.Itoa(budget))
	idle := vmHWM(t, cmd.Process.Pid)

	client := &http.Client{
		Transport: &http.Transport{MaxConnsPerHost: senders, DisableKeepAlives: true},
		Timeout:   2 * time.Minute,
	}
	var (
		mu    sync.Mutex
		codes = map[int]int{} // 0 for a connection the server closed mid-body
		retry int
		wg    sync.WaitGroup
	)
	for i := range senders {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", &zeros{n: bodySize})
			if err != nil {
				t.Error(err)
				return
			}
			req.ContentLength = bodySize
			req.Header.Set("X-GitHub-Event", "issues")
			req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("stranger-%d", i))
			req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
			resp, err := client.Do(req)
			code := 0
			if err == nil {
				code = resp.StatusCode
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			mu.Lock()
			defer mu.Unlock()
			codes[code]++
			if code == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "" {
				retry++
			}
		})
	}
	wg.Wait()
	peak := vmHWM(t, cmd.Process.Pid)
	t.Logf("VmHWM idle %d MiB, after %d senders of %d MiB %d MiB (budget %d MiB); answers %v",
		idle>>20, senders, bodySize>>20, peak>>20, budget>>20, codes)
	if peak > idle+budget {
		t.Errorf("peak resident memory %d MiB, want under idle %d MiB + budget %d MiB", peak>>20, idle>>20, budget>>20)
	}
	for code, n := range codes {
		switch code {
		case http.StatusUnauthorized, http.StatusServiceUnavailable, 0:
		default:
			t.Errorf("%d answers %d, want 401 or 503", n, code)
		}
	}
	if codes[http.StatusServiceUnavailable] == 0 || retry != codes[http.StatusServiceUnavailable] {
		t.Errorf("%d answers 503, %d of them with Retry-After; want some, all with it", codes[http.StatusServiceUnavailable], retry)
	}
	if codes[http.StatusUnauthorized] == 0 {
		t.Error("no delivery was read to its end and refused 401")
	}
	// The senders that saw the connection close were answered 503 too,
	// before the rest of their body: the server says so in its log.
	overloaded := strings.Count(logs.String(), `"msg":"webhook: in-flight budget used up"`)
	if refused := overloaded + codes[http.StatusUnauthorized]; refused != senders {
		t.Errorf("the server refused %d deliveries (%d over the budget), want all %d", refused, overloaded, senders)
	}

	body := webhooktest.Payload(t, "ping__payload.json", nil)
	resp, err := http.DefaultClient.Do(webhooktest.Request(t, "http://"+addr+"/webhook", "ping", "after-the-storm", body, []byte("s3cret")))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a signed ping after the storm: %v %v\n%s", resp, err, logs)
	}
	resp.Body.Close()
}

// appWorld is a fake GitHub with the App installed on the calculator
// repository, whose issue 3 alice (an admin) labels, and the environment
// of a server for it.
type appWorld struct {
	repo    *fakegithub.Repo
	dataDir string
	addr    string
	env     []string
}

func newAppWorld(t *testing.T, modelURL string) *appWorld {
	t.Helper()
	key, keyPEM := fakegithub.NewAppKey(t)
	gh := fakegithub.New(t, fakegithub.WithApp(1, &key.PublicKey), fakegithub.WithPrefix("/api/v3"))
	w := &appWorld{repo: gh.AddRepo("octo", "calculator", calculatortest.Files(t)), dataDir: t.TempDir(), addr: freeAddr(t)}
	w.repo.AddIssue(3, "alice", calculatortest.IssueTitle, calculatortest.IssueBody)
	gh.AddInstallation(9, "octo/calculator")
	gh.SetPermission("octo", "calculator", "alice", "admin")
	w.env = append(os.Environ(),
		"GITHUB_APP_ID=1", "GITHUB_WEBHOOK_SECRET=s3cret", "GITHUB_API_URL="+gh.URL(),
		"GITHUB_APP_PRIVATE_KEY="+string(keyPEM),
		"CAPSULE_DATA_DIR="+w.dataDir, "CAPSULE_LISTEN="+w.addr,
		"OPENAI_BASE_URL="+modelURL, "CAPSULE_MODEL=m", "OPENAI_API_KEY=k")
	return w
}

// label sends the signed delivery of the capsule label on issue 3.
func (w *appWorld) label(t *testing.T, logs *logBuffer) {
	t.Helper()
	body := webhooktest.Payload(t, "issues__labeled.payload.json", func(m map[string]any) {
		webhooktest.Retarget(m, "octo", "calculator", 3, "alice", 9)
		webhooktest.Object(m, "label")["name"] = "capsule"
	})
	resp, err := http.DefaultClient.Do(webhooktest.Request(t, "http://"+w.addr+"/webhook", "issues", "d-1", body, []byte("s3cret")))
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("delivery: %v %v\n%s", resp, err, logs)
	}
	resp.Body.Close()
}

// finish waits for the pull request, stops the server with SIGTERM, and
// checks that it opened one pull request and ended the job done after
// claims claims.
func (w *appWorld) finish(t *testing.T, cmd *exec.Cmd, logs *logBuffer, claims int) {
	t.Helper()
	waitFor(t, "the pull request", func() bool { return len(w.repo.PullRequests()) > 0 }, logs)
	waitFor(t, "the done label", func() bool { return slices.Contains(w.repo.Labels(3), job.LabelDone) }, logs)
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, logs)
	}
	if n := len(w.repo.PullRequests()); n != 1 {
		t.Errorf("%d pull requests, want 1", n)
	}
	st, err := store.Open(filepath.Join(w.dataDir, "capsule.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	jobs, _ := st.List(context.Background(), 10)
	if len(jobs) != 1 || jobs[0].State != work.Done || jobs[0].Claims != claims {
		t.Errorf("jobs = %+v, want one done after %d claims", jobs, claims)
	}
}

// switchable is a model endpoint that is down (it drops every
// connection) until it is switched on, and then forwards to a scripted
// model.
type switchable struct {
	on    atomic.Bool
	proxy *httputil.ReverseProxy
}

func (s *switchable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.on.Load() {
		s.proxy.ServeHTTP(w, r)
		return
	}
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

// TestServeWaitsForModel starts the real binary with a model endpoint that
// drops every connection: the server starts anyway, says the model is
// unreachable in /readyz (still 200) and in its metrics, acknowledges a
// delivery and says in the status comment that the job waits; once the
// endpoint answers, the job runs and opens one pull request, having spent
// one claim.
func TestServeWaitsForModel(t *testing.T) {
	sandboxtest.Engine(t)
	model := fakeopenai.New(t, func(int, openai.ChatCompletionRequest) fakeopenai.Response {
		return fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats))
	}, fakeopenai.WithModels("m"))
	target, err := url.Parse(model.URL())
	if err != nil {
		t.Fatal(err)
	}
	endpoint := &switchable{proxy: httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})}
	down := httptest.NewServer(endpoint)
	t.Cleanup(down.Close)

	w := newAppWorld(t, down.URL+"/v1")
	cmd, logs := startServe(t, w.addr, w.env)
	base := "http://" + w.addr
	waitFor(t, "/readyz to say the model is unreachable", func() bool {
		code, body := get(t, base+"/readyz")
		return code == http.StatusOK && strings.Contains(body, "model: unreachable")
	}, logs)
	if _, metrics := get(t, base+"/metrics"); !strings.Contains(metrics, "capsule_model_reachable 0") {
		t.Errorf("the metrics do not say the model is unreachable")
	}
	w.label(t, logs)
	waitFor(t, "the status comment to say the job waits for the model", func() bool {
		for _, c := range w.repo.Comments(3) {
			if strings.Contains(c.Body, "waits for the model endpoint") {
				return true
			}
		}
		return false
	}, logs)

	endpoint.on.Store(true)
	waitFor(t, "the metrics to say the model is back", func() bool {
		_, metrics := get(t, base+"/metrics")
		return strings.Contains(metrics, "capsule_model_reachable 1")
	}, logs)
	w.finish(t, cmd, logs, 1)
}

// TestServeExitsWhenDatabaseDeleted deletes capsule.db under the real
// binary: /readyz fails, and the process exits non-zero after
// --store-grace, for its supervisor to start it again.
func TestServeExitsWhenDatabaseDeleted(t *testing.T) {
	sandboxtest.Engine(t)
	model := fakeopenai.New(t, nil, fakeopenai.WithModels("m"))
	w := newAppWorld(t, model.URL())
	addr := w.addr
	cmd, logs := startServe(t, addr, w.env, "--store-grace", "3s")
	if err := os.Remove(filepath.Join(w.dataDir, "capsule.db")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "/readyz to fail", func() bool {
		code, _ := get(t, "http://"+addr+"/readyz")
		return code == http.StatusServiceUnavailable
	}, logs)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Errorf("the server ended with %v, want a non-zero exit", err)
		}
		if !strings.Contains(logs.String(), "the store cannot serve the workers") {
			t.Errorf("the server did not say why it stopped:\n%s", logs)
		}
	case <-time.After(time.Minute):
		t.Fatalf("the server still runs a minute after its database was deleted\n%s", logs)
	}
}
