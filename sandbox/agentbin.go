package sandbox

import (
	"debug/elf"
	"fmt"
	"os"
	"runtime"
)

// AgentEnv names the environment variable that points at a static Linux
// build of Capsule to use as the in-container agent, for hosts where the
// running binary cannot serve (a cgo build, or macOS talking to a Linux VM).
const AgentEnv = "CAPSULE_AGENT"

// AgentBinary returns the path of the binary copied into containers as
// their agent: path if set, else $CAPSULE_AGENT, else this executable. The
// binary must be a statically linked Linux executable, because it runs in
// images Capsule knows nothing about.
func AgentBinary(path string) (string, error) {
	source := "the agent path"
	if path == "" {
		path, source = os.Getenv(AgentEnv), "$"+AgentEnv
	}
	if path == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("%w: locate this executable: %w", ErrAgent, err)
		}
		path, source = exe, "this executable"
		if runtime.GOOS != "linux" {
			return "", fmt.Errorf("%w: Capsule runs on %s; set %s to a Linux build of Capsule (GOOS=linux CGO_ENABLED=0)", ErrAgent, runtime.GOOS, AgentEnv)
		}
	}
	if err := checkStatic(path); err != nil {
		return "", fmt.Errorf("%w: %s (%s): %w; build Capsule with CGO_ENABLED=0 or set %s", ErrAgent, source, path, err, AgentEnv)
	}
	return path, nil
}

// checkStatic verifies that path is a Linux ELF executable without a
// dynamic loader.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("not a Linux executable: %w", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("dynamically linked")
		}
	}
	return nil
}
