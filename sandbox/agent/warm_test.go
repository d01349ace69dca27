//go:build linux

package agent

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWarmEnv(t *testing.T) {
	tests := []struct {
		env  []string
		want []string // nil: the run cannot be warm
	}{
		{[]string{"HOME=/tmp", "LANG=C.UTF-8", "PYTHONHASHSEED=0", "PYTHONUSERBASE=/w/.local", "PYTHONUNBUFFERED=1"},
			[]string{"PATH=" + systemPath, "LANG=C.UTF-8", "PYTHONHASHSEED=0"}},
		{[]string{"PATH=/capsule/workspace/bin", "LC_NUMERIC=C", "PYTHONPATH=/w", "PYTHONWARNINGS=ignore"},
			[]string{"PATH=" + systemPath, "LC_NUMERIC=C", "PYTHONWARNINGS=ignore"}},
		{[]string{"PYTHONHOME=/capsule/workspace"}, nil},
		{[]string{"PYTHONSTARTUP=/x"}, nil},
		{[]string{"PYTHONMALLOC=debug"}, nil},
	}
	for _, tt := range tests {
		got, ok := warmEnv(tt.env)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("warmEnv(%q) = %q, %v; want %q", tt.env, got, ok, tt.want)
		}
	}
}

func TestWarmMessage(t *testing.T) {
	w := &Warm{Args: []string{"capsule_harness.py", "--cpu-limit", "3"}, CPULimit: 2500 * time.Millisecond}
	msg, err := warmMessage(w, "/capsule/workspace", []string{"A=1", "B=2"})
	if want := "run\x003\x00/capsule/workspace\x003\x00capsule_harness.py\x00--cpu-limit\x003\x00A=1\x00B=2"; err != nil || string(msg) != want {
		t.Errorf("message %q, %v; want %q", msg, err, want)
	}
	w.CPULimit = 0
	if msg, err := warmMessage(w, "/w", nil); err != nil || !strings.HasPrefix(string(msg), "run\x000\x00") {
		t.Errorf("no CPU limit: %q, %v", msg, err)
	}
	for _, bad := range []struct {
		args []string
		env  []string
	}{
		{nil, nil},
		{[]string{"../escape"}, nil},
		{[]string{warmDriverName}, nil},
		{[]string{"script.py", "a\x00b"}, nil},
		{[]string{"script.py"}, []string{"A=\x00"}},
		{[]string{"script.py"}, []string{strings.Repeat("x", maxWarmMessage)}},
	} {
		if msg, err := warmMessage(&Warm{Args: bad.args}, "/w", bad.env); err == nil {
			t.Errorf("args %q, env of %d: message %q, want an error", bad.args, len(bad.env), msg)
		}
	}
}
