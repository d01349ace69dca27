package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakegithub"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

func TestServeSettingsErrors(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	os.WriteFile(keyFile, []byte("not a key"), 0o600)
	key, _ := fakegithub.NewAppKey(t)
	_, otherPEM := fakegithub.NewAppKey(t)
	gh := fakegithub.New(t, fakegithub.WithApp(1, &key.PublicKey), fakegithub.WithPrefix("/api/v3"))
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
		{"credentials GitHub refuses", map[string]string{"GITHUB_WEBHOOK_SECRET": "s", "GITHUB_APP_ID": "1",
			"GITHUB_APP_PRIVATE_KEY": string(otherPEM), "GITHUB_API_URL": gh.URL()}, nil, "GitHub refuses the App's credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []string{"GITHUB_WEBHOOK_SECRET", "GITHUB_APP_ID", "GITHUB_APP_PRIVATE_KEY", "GITHUB_APP_PRIVATE_KEY_FILE", "GITHUB_API_URL"} {
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

	w := newAppWorld(t, model.URL())
	first, logs := startServe(t, w.addr, w.env)
	w.label(t, logs)
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatalf("the job never called the model\n%s", logs)
	}
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()

	second, logs := startServe(t, w.addr, w.env)
	w.finish(t, second, logs, 2)
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

func waitFor(t *testing.T, what string, ok func() bool, logs *logBuffer) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s\n%s", what, logs)
}
