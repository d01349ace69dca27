package repo

import (
	"cmp"
	"reflect"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/repoconfig"
	"github.com/capsulehq/capsule/sandbox"
)

// testMaxima are small maxima, so that the defaults can exceed them.
var testMaxima = Maxima{Attempts: 10, Timeout: time.Hour, History: 3, Memory: 2 << 30, CPUs: 2, Disk: 2 << 30, AnswerFiles: 20, ReproduceTries: 5}

func TestMaximaCap(t *testing.T) {
	fromFile := func(edit func(*repoconfig.Config)) repoconfig.Config {
		c := repoconfig.Default()
		c.Source = repoconfig.Path
		edit(&c)
		return c
	}
	tests := []struct {
		name   string
		max    Maxima
		config repoconfig.Config
		want   func(*repoconfig.Config) // the resolved values expected
		notes  []string
	}{
		{
			name:   "defaults within the maxima",
			max:    testMaxima,
			config: repoconfig.Default(),
			want:   func(c *repoconfig.Config) {},
		},
		{
			name: "every value over its maximum",
			max:  testMaxima,
			config: fromFile(func(c *repoconfig.Config) {
				c.MaxAttempts, c.Timeout, c.History, c.Memory, c.CPUs, c.Disk = 1_000_000, 10000*time.Hour, 50, 64<<30, 64, 1<<40
			}),
			want: func(c *repoconfig.Config) {
				c.MaxAttempts, c.Timeout, c.History, c.Memory, c.CPUs, c.Disk = 10, time.Hour, 3, 2<<30, 2, 2<<30
			},
			notes: []string{
				"max_attempts 1000000 in .github/capsule.yml capped to 10 by the operator",
				"timeout 10000h0m0s in .github/capsule.yml capped to 1h0m0s by the operator",
				"history 50 in .github/capsule.yml capped to 3 by the operator",
				"memory 64 GiB in .github/capsule.yml capped to 2 GiB by the operator",
				"cpus 64 in .github/capsule.yml capped to 2 by the operator",
				"disk 1024 GiB in .github/capsule.yml capped to 2 GiB by the operator",
			},
		},
		{
			name: "values at their maximum",
			max:  testMaxima,
			config: fromFile(func(c *repoconfig.Config) {
				c.MaxAttempts, c.Timeout, c.History, c.Memory, c.CPUs, c.Disk = 10, time.Hour, 3, 2<<30, 2, 2<<30
			}),
			want: func(c *repoconfig.Config) {},
		},
		{
			name:   "defaults over tight maxima",
			max:    Maxima{Attempts: 1, Timeout: time.Minute, History: 0, Memory: 256 << 20, CPUs: 0.5, Disk: 64 << 20, AnswerFiles: 1, ReproduceTries: 1},
			config: fromFile(func(c *repoconfig.Config) {}),
			want: func(c *repoconfig.Config) {
				c.MaxAttempts, c.Timeout, c.History, c.Memory, c.CPUs, c.Disk = 1, time.Minute, 0, 256<<20, 0.5, 64<<20
				c.ReproduceTries = 1
			},
			notes: []string{
				"max_attempts 5 (Capsule's default) capped to 1 by the operator",
				"timeout 5m0s (Capsule's default) capped to 1m0s by the operator",
				"history 1 (Capsule's default) capped to 0 by the operator",
				"memory 512 MiB (Capsule's default) capped to 256 MiB by the operator",
				"cpus 1 (Capsule's default) capped to 0.5 by the operator",
				"disk 1 GiB (Capsule's default) capped to 64 MiB by the operator",
				"reproduce_tries 3 (Capsule's default) capped to 1 by the operator",
			},
		},
		{
			name:   "fractional cores",
			max:    testMaxima,
			config: fromFile(func(c *repoconfig.Config) { c.CPUs = 2.5 }),
			want:   func(c *repoconfig.Config) { c.CPUs = 2 },
			notes:  []string{"cpus 2.5 in .github/capsule.yml capped to 2 by the operator"},
		},
		{
			name:   "configuration made in code",
			max:    testMaxima,
			config: func() repoconfig.Config { c := repoconfig.Default(); c.MaxAttempts = 99; return c }(),
			want:   func(c *repoconfig.Config) { c.MaxAttempts = 10 },
			notes:  []string{"max_attempts 99 in the configuration capped to 10 by the operator"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes := tt.max.Cap(tt.config)
			want := tt.config
			want.Memory, want.CPUs, want.Disk = cmp.Or(want.Memory, sandbox.DefaultMemory), cmp.Or(want.CPUs, sandbox.DefaultCPUs), cmp.Or(want.Disk, sandbox.DefaultDisk)
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Cap =\n%+v\nwant\n%+v", got, want)
			}
			if !reflect.DeepEqual(notes, tt.notes) {
				t.Errorf("notes =\n%q\nwant\n%q", notes, tt.notes)
			}
		})
	}
}

func TestMaximaValidate(t *testing.T) {
	if err := DefaultMaxima().Validate(); err != nil {
		t.Errorf("DefaultMaxima: %v", err)
	}
	for name, edit := range map[string]func(*Maxima){
		"negative attempts": func(m *Maxima) { m.Attempts = -1 },
		"no time":           func(m *Maxima) { m.Timeout = 0 },
		"negative history":  func(m *Maxima) { m.History = -1 },
		"tiny memory":       func(m *Maxima) { m.Memory = 1 << 20 },
		"no cores":          func(m *Maxima) { m.CPUs = 0 },
		"tiny disk":         func(m *Maxima) { m.Disk = 1 << 10 },
		"no files":          func(m *Maxima) { m.AnswerFiles = 0 },
	} {
		m := DefaultMaxima()
		edit(&m)
		if err := m.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, m)
		}
		if _, err := NewPlan(Task{Dir: t.TempDir(), Config: repoconfig.Default()}, NoOverrides(), m); err == nil {
			t.Errorf("%s: NewPlan accepted %+v", name, m)
		}
	}
}
