//go:build linux

package agent

import (
	"path/filepath"
	"testing"
)

func TestFirstCounter(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir,
		entry{name: "v2", content: "low 0\nhigh 0\nmax 7\noom 2\noom_kill 3\n"},
		entry{name: "v1", content: "oom_kill_disable 0\nunder_oom 0\noom_kill 9\n"},
		entry{name: "bad", content: "oom_kill lots\n"},
	)
	p := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		files []string
		key   string
		want  int64
	}{
		{[]string{p("v2"), p("v1")}, "oom_kill", 3},
		{[]string{p("missing"), p("v1")}, "oom_kill", 9},
		{[]string{p("v2"), p("v1")}, "max", 7},
		{[]string{p("v1"), p("v2")}, "max", 0}, // the first file that exists decides
		{[]string{p("missing")}, "max", 0},
		{[]string{p("bad")}, "oom_kill", 0},
		{nil, "max", 0},
	}
	for _, tt := range tests {
		if got := firstCounter(tt.files, tt.key); got != tt.want {
			t.Errorf("firstCounter(%v, %q) = %d, want %d", tt.files, tt.key, got, tt.want)
		}
	}
}
