package logx

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// lines decodes the JSON lines in b.
func lines(t *testing.T, b *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(b.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestJSONDurations(t *testing.T) {
	var b bytes.Buffer
	log := slog.New(JSON(&b, nil))
	log.Info("waits", "wait", 6*time.Hour, slog.Group("g", "d", 1500*time.Millisecond), "n", 3)
	got := lines(t, &b)
	if len(got) != 1 || got[0]["wait"] != "6h0m0s" || got[0]["g"].(map[string]any)["d"] != "1.5s" || got[0]["n"] != float64(3) {
		t.Errorf("logged %v, want durations as Go duration strings", got)
	}
}

// TestPolls: a warning repeated by every run of a check is logged once,
// again when its attributes change, said to be over once when it stops,
// and logged again when it comes back.
func TestPolls(t *testing.T) {
	var b bytes.Buffer
	p := NewPolls(JSON(&b, nil))
	log := slog.New(p).With("url", "http://model")
	ctx := context.Background()
	run := func(listed ...string) {
		if len(listed) > 0 {
			log.Warn("model endpoint does not list the configured model", "listed", listed)
		}
		p.Round(ctx)
	}
	run("a")
	run("a")
	run("a")
	run("a", "b") // changed
	run("a", "b")
	run()    // over
	run()    // still over
	run("a") // back
	var got []string
	for _, l := range lines(t, &b) {
		got = append(got, l["level"].(string)+" "+l["msg"].(string))
	}
	want := []string{
		"WARN model endpoint does not list the configured model",
		"WARN model endpoint does not list the configured model",
		"INFO no longer: model endpoint does not list the configured model",
		"WARN model endpoint does not list the configured model",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("logged\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
