package main

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// TestServeLogs runs the real binary for three checks of a model endpoint
// that does not list the configured model, then stops it: every line it
// wrote is a JSON object, the warning is there once, not once per check,
// and durations are Go duration strings.
func TestServeLogs(t *testing.T) {
	sandboxtest.Engine(t)
	model := fakeopenai.New(t, nil, fakeopenai.WithModels("another-model"))
	w := newAppWorld(t, model.URL())
	cmd, logs := startServe(t, w.addr, w.env)
	time.Sleep(11 * time.Second) // the server checks the endpoint every 5s
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, logs)
	}
	warned := 0
	for line := range strings.Lines(logs.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["msg"] == nil || rec["level"] == nil {
			t.Errorf("a line that is not a JSON log record: %q", line)
			continue
		}
		if rec["msg"] == "model endpoint does not list the configured model" {
			warned++
		}
		for _, key := range []string{"grace", "wait"} {
			if v, ok := rec[key]; ok {
				if d, isString := v.(string); !isString || !validDuration(d) {
					t.Errorf("%s in %q is not a Go duration string", key, line)
				}
			}
		}
	}
	if warned != 1 {
		t.Errorf("the model warning was logged %d times, want once\n%s", warned, logs)
	}
	if !strings.Contains(logs.String(), `"msg":"signed in as the GitHub App"`) {
		t.Errorf("no line says the server signed in as the App\n%s", logs)
	}
}

func validDuration(s string) bool {
	_, err := time.ParseDuration(s)
	return err == nil
}
