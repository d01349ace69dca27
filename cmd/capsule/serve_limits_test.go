package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/internal/fakegithub"
	"github.com/capsulehq/capsule/internal/fakeopenai"
	"github.com/capsulehq/capsule/internal/sandboxtest"
	"github.com/capsulehq/capsule/internal/webhooktest"
)

// startServe starts the real binary's serve with env and args, waits for
// /readyz to answer 200 and returns the process and its logs; the process
// is killed when the test ends.
func startServe(t *testing.T, addr string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
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

// serveEnv is the environment of a server with a scripted model and a
// GitHub nobody calls.
func serveEnv(t *testing.T, addr, modelURL string) []string {
	_, keyPEM := fakegithub.NewAppKey(t)
	return append(os.Environ(),
		"GITHUB_APP_ID=1", "GITHUB_WEBHOOK_SECRET=s3cret", "GITHUB_API_URL=http://127.0.0.1:1/api/v3",
		"GITHUB_APP_PRIVATE_KEY="+string(keyPEM),
		"CAPSULE_DATA_DIR="+t.TempDir(), "CAPSULE_LISTEN="+addr,
		"OPENAI_BASE_URL="+modelURL, "CAPSULE_MODEL=m", "OPENAI_API_KEY=k")
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
	addr := freeAddr(t)
	cmd, logs := startServe(t, addr, serveEnv(t, addr, model.URL()), "--max-in-flight", strconv.Itoa(budget))
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
