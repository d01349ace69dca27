package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/internal/calculatortest"
	"github.com/capsulehq/capsule/internal/fakegithub"
	"github.com/capsulehq/capsule/internal/fakeopenai"
	"github.com/capsulehq/capsule/internal/sandboxtest"
	"github.com/capsulehq/capsule/internal/webhooktest"
)

func TestServeSettingsErrors(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	os.WriteFile(keyFile, []byte("not a key"), 0o600)
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no secret", nil, nil, "GITHUB_WEBHOOK_SECRET is not set"},
		{"no key", map[string]string{"GITHUB_WEBHOOK_SECRET": "s", "GITHUB_APP_ID": "1"}, nil, "private key is missing"},
		{"bad key", map[string]string{"GITHUB_WEBHOOK_SECRET": "s", "GITHUB_APP_ID": "1", "GITHUB_APP_PRIVATE_KEY_FILE": keyFile}, nil, "not a PEM RSA private key"},
		{"bad permission", map[string]string{"GITHUB_WEBHOOK_SECRET": "s"}, []string{"--min-permission", "owner"}, "--min-permission"},
		{"arguments", map[string]string{"GITHUB_WEBHOOK_SECRET": "s"}, []string{"extra"}, "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []string{"GITHUB_WEBHOOK_SECRET", "GITHUB_APP_ID", "GITHUB_APP_PRIVATE_KEY", "GITHUB_APP_PRIVATE_KEY_FILE"} {
				t.Setenv(v, tt.env[v])
			}
			code, _, stderr := capsule(t, append([]string{"serve"}, tt.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tt.want)
			}
		})
	}
}

// TestServeSurvivesKill kills the server with SIGKILL while a job waits
// for the model, starts it again, and checks the job finishes once with
// one pull request; then SIGTERM stops it cleanly.
func TestServeSurvivesKill(t *testing.T) {
	sandboxtest.Engine(t)
	key, keyPEM := fakegithub.NewAppKey(t)
	gh := fakegithub.New(t, fakegithub.WithApp(1, &key.PublicKey), fakegithub.WithPrefix("/api/v3"))
	repo := gh.AddRepo("octo", "calculator", calculatortest.Files(t))
	repo.AddIssue(3, "alice", calculatortest.IssueTitle, calculatortest.IssueBody)
	gh.AddInstallation(9, "octo/calculator")
	gh.SetPermission("octo", "calculator", "alice", "admin")

	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	model := fakeopenai.New(t, func(call int, _ openai.ChatCompletionRequest) fakeopenai.Response {
		if call == 0 {
			once.Do(func() { close(started) })
			<-release // the server is killed meanwhile
		}
		return fakeopenai.Reply(calculatortest.Answer("calc/stats.py", calculatortest.RightStats))
	}, fakeopenai.WithModels("m"))
	t.Cleanup(func() { close(release) }) // before the model server closes

	dataDir, addr := t.TempDir(), freeAddr(t)
	env := append(os.Environ(),
		"GITHUB_APP_ID=1", "GITHUB_WEBHOOK_SECRET=s3cret", "GITHUB_API_URL="+gh.URL(),
		"GITHUB_APP_PRIVATE_KEY="+string(keyPEM),
		"CAPSULE_DATA_DIR="+dataDir, "CAPSULE_LISTEN="+addr,
		"OPENAI_BASE_URL="+model.URL(), "CAPSULE_MODEL=m", "OPENAI_API_KEY=k")
	serve := func() (*exec.Cmd, *bytes.Buffer) { return startServe(t, addr, env) }
	first, logs := serve()
	body := webhooktest.Payload(t, "issues__labeled.payload.json", func(m map[string]any) {
		webhooktest.Retarget(m, "octo", "calculator", 3, "alice", 9)
		webhooktest.Object(m, "label")["name"] = "capsule"
	})
	resp, err := http.DefaultClient.Do(webhooktest.Request(t, "http://"+addr+"/webhook", "issues", "d-1", body, []byte("s3cret")))
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("delivery: %v %v\n%s", resp, err, logs)
	}
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatalf("the job never called the model\n%s", logs)
	}
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()

	second, logs := serve()
	waitFor(t, "the pull request", func() bool { return len(repo.PullRequests()) > 0 }, logs)
	waitFor(t, "the done label", func() bool {
		for _, l := range repo.Labels(3) {
			if l == job.LabelDone {
				return true
			}
		}
		return false
	}, logs)
	second.Process.Signal(syscall.SIGTERM)
	if err := second.Wait(); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, logs)
	}

	if n := len(repo.PullRequests()); n != 1 {
		t.Errorf("%d pull requests, want 1", n)
	}
	st, err := store.Open(filepath.Join(dataDir, "capsule.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	jobs, _ := st.List(context.Background(), 10)
	if len(jobs) != 1 || jobs[0].State != store.Done || jobs[0].Claims != 2 {
		t.Errorf("jobs = %+v, want one done after two claims", jobs)
	}
	if !strings.Contains(logs.String(), `"msg":"requeued the jobs a previous run left running"`) {
		t.Errorf("the restart did not say it requeued the job:\n%s", logs)
	}
}

// freeAddr returns a loopback address nobody listens on.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitFor(t *testing.T, what string, ok func() bool, logs *bytes.Buffer) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s\n%s", what, logs)
}
