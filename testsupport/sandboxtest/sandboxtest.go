// Package sandboxtest connects tests to the real Docker engine. Tests that
// need the engine skip when none answers on a developer's machine, and fail
// when the CI environment variable is set, so CI can never pass by skipping.
package sandboxtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
)

var (
	agentOnce sync.Once
	agentPath string
	agentErr  error
)

// AgentBinary returns a static build of Capsule for use as the sandbox
// agent: $CAPSULE_AGENT when set (make test sets it), else a build made
// once per test process.
func AgentBinary(t testing.TB) string {
	t.Helper()
	path, err := BuildAgent()
	if err != nil {
		t.Fatalf("build the sandbox agent: %v", err)
	}
	return path
}

// BuildAgent is AgentBinary for TestMain, where there is no testing.TB.
func BuildAgent() (string, error) {
	agentOnce.Do(func() {
		if p := os.Getenv(sandbox.AgentEnv); p != "" {
			agentPath = p
			return
		}
		root, err := moduleRoot()
		if err != nil {
			agentErr = err
			return
		}
		dir, err := os.MkdirTemp("", "capsule-agent-")
		if err != nil {
			agentErr = err
			return
		}
		agentPath = filepath.Join(dir, "capsule")
		cmd := exec.Command("go", "build", "-trimpath", "-o", agentPath, "./cmd/capsule")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			agentErr = &buildError{out: string(out), err: err}
		}
	})
	return agentPath, agentErr
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// moduleRoot finds the directory holding go.mod above the working directory.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

// Engine connects to the engine with the test agent, and closes it when the
// test ends. It also makes sure the default image is present.
func Engine(t testing.TB) *sandbox.Engine {
	t.Helper()
	return EngineWithAgent(t, AgentBinary(t))
}

// EngineWithAgent is Engine with another agent binary, such as a stand-in
// that breaks the protocol.
func EngineWithAgent(t testing.TB, agentPath string) *sandbox.Engine {
	t.Helper()
	return connect(t, sandbox.Options{AgentPath: agentPath})
}

// EngineOnHost is Engine for a process that names its host so in its
// containers' owner labels: a replica on another host sharing the engine.
func EngineOnHost(t testing.TB, host string) *sandbox.Engine {
	t.Helper()
	return connect(t, sandbox.Options{AgentPath: AgentBinary(t), Host: host})
}

// connect connects with opts, closes the engine when the test ends and
// makes sure the default image is present.
func connect(t testing.TB, opts sandbox.Options) *sandbox.Engine {
	t.Helper()
	eng, err := sandbox.Connect(context.Background(), opts)
	if err != nil {
		Unavailable(t, err)
	}
	t.Cleanup(func() { eng.Close() })
	ok, err := eng.ImagePresent(context.Background(), image.Default())
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		Unavailable(t, "the sandbox image "+image.Default()+" is missing: run `make test` or `capsule sandbox image`")
	}
	return eng
}

// Image makes sure Capsule's image of recipe r is present in eng, and
// returns its reference: a missing one fails the test under CI and skips
// it elsewhere, saying how to build it.
func Image(t testing.TB, eng *sandbox.Engine, r image.Recipe) string {
	t.Helper()
	ok, err := eng.ImagePresent(context.Background(), r.Ref())
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		Unavailable(t, "the sandbox image "+r.Ref()+" is missing: run `"+r.BuildCommand()+"`")
	}
	return r.Ref()
}

// Unavailable fails the test under CI and skips it elsewhere.
func Unavailable(t testing.TB, why any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("Docker is required under CI: %v", why)
	}
	t.Skipf("no Docker engine: %v", why)
}

// Spec returns a spec for the default image with the default limits.
func Spec(workspace string) sandbox.Spec {
	return SpecWith(workspace, nil)
}

// SpecWith is Spec with helper files every run may read, such as a test
// runner's plugin (testreport.HelperFiles, as repo mode has them): the
// caller brings them, so the sandbox's own tests link no test runner.
func SpecWith(workspace string, helpers map[string][]byte) sandbox.Spec {
	return sandbox.Spec{Image: image.Default(), Workspace: workspace, Limits: sandbox.DefaultLimits(), Helpers: helpers}
}

// Containers maps the job label (sandbox.LabelJob, "" for none) of each
// container whose owner is on host (see EngineOnHost) to its ID.
func Containers(t testing.TB, eng *sandbox.Engine, host string) map[string]string {
	t.Helper()
	list, err := eng.Client().ContainerList(context.Background(), container.ListOptions{
		All: true, Filters: filters.NewArgs(filters.Arg("label", sandbox.LabelManaged+"=true")),
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string)
	for _, c := range list {
		if strings.HasPrefix(c.Labels[sandbox.LabelOwner], host+"/") {
			out[c.Labels[sandbox.LabelJob]] = c.ID
		}
	}
	return out
}
