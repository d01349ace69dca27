package sandbox

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
)

func TestContainerConfig(t *testing.T) {
	labels := map[string]string{LabelManaged: "true"}
	tests := []struct {
		name  string
		tune  func(*Limits)
		check func(t *testing.T, cfg *container.Config, host *container.HostConfig)
	}{
		{
			name: "hardened defaults",
			check: func(t *testing.T, cfg *container.Config, host *container.HostConfig) {
				if host.NetworkMode != "none" || !cfg.NetworkDisabled {
					t.Errorf("network: mode %q, disabled %v", host.NetworkMode, cfg.NetworkDisabled)
				}
				if !host.ReadonlyRootfs {
					t.Error("root filesystem writable")
				}
				if !slices.Equal(host.CapDrop, []string{"ALL"}) || !slices.Equal(host.SecurityOpt, []string{"no-new-privileges"}) {
					t.Errorf("caps %v, security %v", host.CapDrop, host.SecurityOpt)
				}
				if cfg.User != SandboxUser {
					t.Errorf("user %q", cfg.User)
				}
				r := host.Resources
				if r.Memory != DefaultMemory || r.MemorySwap != DefaultMemory || r.CPUQuota != r.CPUPeriod || r.NanoCPUs != 0 || *r.PidsLimit != DefaultPids {
					t.Errorf("resources %+v", r)
				}
				if got := host.Tmpfs["/tmp"]; !strings.Contains(got, "size=67108864") || !strings.Contains(got, "nosuid") {
					t.Errorf("tmpfs %q", got)
				}
				if host.LogConfig.Type != "none" {
					t.Errorf("log driver %q: output would reach the engine's disk", host.LogConfig.Type)
				}
				if len(host.Mounts) != 1 || host.Mounts[0].Target != "/capsule" || host.Mounts[0].Source != "" {
					t.Errorf("mounts %+v, want one anonymous volume at /capsule", host.Mounts)
				}
				if !slices.Equal(cfg.Entrypoint, []string{"/capsule/agent", AgentSubcommand}) || !cfg.OpenStdin || cfg.Tty {
					t.Errorf("entrypoint %v, stdin %v, tty %v", cfg.Entrypoint, cfg.OpenStdin, cfg.Tty)
				}
				if cfg.Labels[LabelManaged] != "true" {
					t.Errorf("labels %v", cfg.Labels)
				}
			},
		},
		{
			name: "network for a setup phase",
			tune: func(l *Limits) { l.Network = true },
			check: func(t *testing.T, cfg *container.Config, host *container.HostConfig) {
				if host.NetworkMode != "bridge" || cfg.NetworkDisabled {
					t.Errorf("network: mode %q, disabled %v", host.NetworkMode, cfg.NetworkDisabled)
				}
			},
		},
		{
			name: "relaxed",
			tune: func(l *Limits) { l.Root, l.KeepCaps, l.WritableRoot, l.CPUs, l.Memory = true, true, true, 0.5, 1<<30 },
			check: func(t *testing.T, cfg *container.Config, host *container.HostConfig) {
				if cfg.User != "0:0" || host.CapDrop != nil || host.ReadonlyRootfs {
					t.Errorf("user %q, caps %v, read-only %v", cfg.User, host.CapDrop, host.ReadonlyRootfs)
				}
				if host.CPUQuota*2 != host.CPUPeriod || host.Memory != 1<<30 || host.MemorySwap != 1<<30 {
					t.Errorf("resources %+v", host.Resources)
				}
				if !slices.Equal(host.SecurityOpt, []string{"no-new-privileges"}) {
					t.Errorf("security %v", host.SecurityOpt)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := Spec{Image: "img", Env: []string{"A=1"}, Limits: DefaultLimits()}
			if tt.tune != nil {
				tt.tune(&spec.Limits)
			}
			cfg, host := containerConfig(spec, labels)
			if cfg.Image != "img" || !slices.Contains(cfg.Env, "A=1") || !slices.Contains(cfg.Env, "HOME=/tmp") {
				t.Errorf("image %q env %v", cfg.Image, cfg.Env)
			}
			tt.check(t, cfg, host)
		})
	}
}

func TestLimitsChanges(t *testing.T) {
	if got := DefaultLimits().Changes(); len(got) != 0 {
		t.Errorf("defaults report changes: %v", got)
	}
	l := DefaultLimits()
	l.Network, l.Memory, l.Timeout = true, 1<<30, time.Minute
	want := []string{"network enabled", "memory 1 GiB (default 512 MiB)", "timeout 1m0s (default 30s)"}
	if got := l.Changes(); !slices.Equal(got, want) {
		t.Errorf("Changes() = %q, want %q", got, want)
	}
}

func TestLimitsValidate(t *testing.T) {
	tests := []struct {
		name string
		tune func(*Limits)
		want string
	}{
		{"defaults", func(*Limits) {}, ""},
		{"tiny memory", func(l *Limits) { l.Memory = 1 << 20 }, "below Docker's minimum"},
		{"no cpu", func(l *Limits) { l.CPUs = 0 }, "cpu limit"},
		{"few pids", func(l *Limits) { l.Pids = 2 }, "pids limit"},
		{"no timeout", func(l *Limits) { l.Timeout = 0 }, "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := DefaultLimits()
			tt.tune(&l)
			err := l.Validate()
			if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"512m", 512 << 20, true}, {"1g", 1 << 30, true}, {"100k", 100 << 10, true},
		{"1024", 1024, true}, {"7b", 7, true}, {"", 0, false}, {"m", 0, false},
		{"1.5g", 0, false}, {"-1m", 0, false}, {"12x", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestOwner(t *testing.T) {
	self := currentOwner()
	if self.start == "" {
		t.Fatal("no start time for this process")
	}
	parsed, ok := parseOwner(self.String())
	if !ok || parsed != self {
		t.Fatalf("parseOwner(%q) = %+v, %v", self.String(), parsed, ok)
	}
	tests := []struct {
		name string
		o    owner
		gone bool
	}{
		{"this process", self, false},
		{"recycled pid", owner{host: self.host, pid: self.pid, start: "1"}, true},
		{"no such pid", owner{host: self.host, pid: 1 << 22, start: self.start}, true},
		{"other host", owner{host: "elsewhere", pid: 1 << 22, start: "1"}, false},
	}
	for _, tt := range tests {
		if got := tt.o.gone(self); got != tt.gone {
			t.Errorf("%s: gone = %v, want %v", tt.name, got, tt.gone)
		}
	}
	for _, bad := range []string{"", "a/b", "h/x/1", "h/1/2/3"} {
		if _, ok := parseOwner(bad); ok {
			t.Errorf("parseOwner(%q) accepted", bad)
		}
	}
}
