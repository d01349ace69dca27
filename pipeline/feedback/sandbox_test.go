package feedback

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/pipeline/harness/harnesstest"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// sandboxRunner runs fixture commands in one warm sandbox session: the
// fixture's files are laid over an empty workspace for each run.
type sandboxRunner struct {
	box *sandbox.Session
}

func (r sandboxRunner) Run(ctx context.Context, dir string, argv []string) (harnesstest.Output, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		return harnesstest.Output{}, err
	}
	res, err := r.box.Run(ctx, sandbox.Run{Cmd: argv, Env: harness.Program{}.Env(), Files: files})
	if err != nil {
		return harnesstest.Output{}, err
	}
	return harnesstest.Output{ExitCode: res.ExitCode, Stdout: string(res.Stdout), Stderr: string(res.Stderr)}, nil
}

// The session outlives single tests: TestMain closes it.
var (
	sessionOnce sync.Once
	engine      *sandbox.Engine
	session     *sandbox.Session
	sessionErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if session != nil {
		session.Close()
		engine.Close()
	}
	os.Exit(code)
}

// sandboxFixtureRunner returns the runner that makes fixtures: the real
// sandbox, so that the captured tracebacks are those Capsule sees.
func sandboxFixtureRunner(t *testing.T) harnesstest.Runner {
	t.Helper()
	agentPath := sandboxtest.AgentBinary(t)
	sessionOnce.Do(func() {
		ctx := context.Background()
		if engine, sessionErr = sandbox.Connect(ctx, sandbox.Options{AgentPath: agentPath}); sessionErr != nil {
			return
		}
		if session, sessionErr = engine.NewSession(ctx, sandboxtest.Spec("")); sessionErr != nil {
			engine.Close()
		}
	})
	if sessionErr != nil {
		sandboxtest.Unavailable(t, sessionErr)
	}
	return sandboxRunner{box: session}
}

// TestFixturesInSandbox runs every fixture again in the sandbox and checks
// that the refined message is still the golden one, so the error handler
// is held to the tracebacks the sandbox's Python prints today.
func TestFixturesInSandbox(t *testing.T) {
	if *update {
		t.Skip("the fixtures are being rewritten by TestFixtures")
	}
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			out := capture(t, f)
			fb := Refine(f.input(out))
			got := fmt.Sprintf("kind: %s\n\n%s\n", fb.Kind, fb.Message)
			want, err := os.ReadFile(filepath.Join(f.dir(), "feedback.golden"))
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("in the sandbox the message differs from feedback.golden:\n--- got\n%s--- want\n%s\n--- output\n%s%s", got, want, out.Stdout, out.Stderr)
			}
		})
	}
}
