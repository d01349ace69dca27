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
				wantCaps := []string{"CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID"}
				if !slices.Equal(host.CapDrop, []string{"ALL"}) || !slices.Equal(host.CapAdd, wantCaps) || !slices.Equal(host.SecurityOpt, []string{"no-new-privileges"}) {
					t.Errorf("caps drop %v add %v, security %v", host.CapDrop, host.CapAdd, host.SecurityOpt)
				}
				if cfg.User != "0:0" || cfg.Entrypoint[len(cfg.Entrypoint)-1] != "10001:10001" {
					t.Errorf("user %q, entrypoint %v: want the agent as root running commands as 10001", cfg.User, cfg.Entrypoint)
				}
				r := host.Resources
				const mem = DefaultMemory + DefaultDisk + 2*DefaultTmpSize
				if r.Memory != mem || r.MemorySwap != mem || r.CPUQuota != r.CPUPeriod || r.NanoCPUs != 0 || *r.PidsLimit != DefaultPids {
					t.Errorf("resources %+v, want memory %d", r, int64(mem))
				}
				if got := host.Tmpfs["/tmp"]; !strings.Contains(got, "size=67108864") || !strings.Contains(got, "nosuid") {
					t.Errorf("tmpfs %q", got)
				}
				if got, want := host.Tmpfs["/capsule/workspace"], "rw,exec,nosuid,nodev,size=1073741824,nr_inodes=100000,mode=0755,uid=10001,gid=10001"; got != want {
					t.Errorf("workspace tmpfs %q, want %q", got, want)
				}
				if host.ShmSize != DefaultTmpSize {
					t.Errorf("/dev/shm size %d", host.ShmSize)
				}
				if host.LogConfig.Type != "none" {
					t.Errorf("log driver %q: output would reach the engine's disk", host.LogConfig.Type)
				}
				if len(host.Mounts) != 1 || host.Mounts[0].Target != "/capsule" || host.Mounts[0].Source != "" {
					t.Errorf("mounts %+v, want one anonymous volume at /capsule", host.Mounts)
				}
				if !slices.Equal(cfg.Entrypoint, []string{"/capsule/agent", AgentSubcommand, "10001:10001"}) || !cfg.OpenStdin || cfg.Tty {
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
			tune: func(l *Limits) {
				l.Root, l.KeepCaps, l.WritableRoot, l.CPUs, l.Memory, l.Disk, l.TmpSize = true, true, true, 0.5, 1<<30, 1<<29, 1<<20
			},
			check: func(t *testing.T, cfg *container.Config, host *container.HostConfig) {
				if cfg.Entrypoint[len(cfg.Entrypoint)-1] != "0:0" || host.CapDrop != nil || host.CapAdd != nil || host.ReadonlyRootfs {
					t.Errorf("entrypoint %v, caps %v %v, read-only %v", cfg.Entrypoint, host.CapDrop, host.CapAdd, host.ReadonlyRootfs)
				}
				const mem = 1<<30 + 1<<29 + 2<<20
				if host.CPUQuota*2 != host.CPUPeriod || host.Memory != mem || host.MemorySwap != mem {
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
	l.Network, l.Memory, l.Timeout, l.Disk, l.DiskFiles = true, 1<<30, time.Minute, 4<<30, 1000
	want := []string{"network enabled", "memory 1 GiB (default 512 MiB)", "timeout 1m0s (default 30s)",
		"disk 4 GiB (default 1 GiB)", "disk files 1000 (default 100000)"}
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
		{"tiny disk", func(l *Limits) { l.Disk = 1 << 10 }, "disk limit 1 KiB"},
		{"few files", func(l *Limits) { l.DiskFiles = 3 }, "disk file limit"},
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

func TestOwner(t *testing.T) {
	self := currentOwner("")
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
