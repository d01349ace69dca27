package pynames_test

import (
	"context"
	"testing"

	"github.com/capsulehq/capsule/pipeline/pynames"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// TestProbeInTheImage runs the probe in the sandbox over a workspace that
// holds a json.py and a pytest/ package of its own: the probe lists the
// image's names and none of the workspace's.
func TestProbeInTheImage(t *testing.T) {
	dir := t.TempDir()
	eng := sandboxtest.Engine(t)
	box, err := eng.NewSession(context.Background(), sandboxtest.Spec(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer box.Close()
	res, err := box.Run(context.Background(), sandbox.Run{Cmd: pynames.Command, Env: []string{"PYTHONPATH=/workspace"},
		Files: map[string][]byte{"workspace_only_module.py": []byte("x = 1\n"), "json.py": []byte("raise SystemExit(3)\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("the probe exited %d: %s", res.ExitCode, res.Stderr)
	}
	set, version, err := pynames.Parse(res.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Python %s: %d names", version, len(set))
	for _, n := range []string{"json", "os", "pytest", "_pytest", "pluggy", "iniconfig", "py", "capsule_testreport"} {
		if !set.Has(n) {
			t.Errorf("%q is not listed", n)
		}
	}
	if set.Has("workspace_only_module") {
		t.Error("the probe listed a module of the workspace")
	}
}
