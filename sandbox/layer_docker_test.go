package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// TestLayerExportAndRestore exports what a committed set-up added to
// the tree and restores it in another session, on a tree whose source
// changed: that session's runs start from its own tree with the set-up's
// files, and so does the container that replaces its killed one.
func TestLayerExportAndRestore(t *testing.T) {
	ctx := context.Background()
	eng := sandboxtest.Engine(t)
	files := map[string]string{"app.py": "print('app')\n", "requirements.txt": "lib==1\n"}
	s := newSession(t, eng, files, nil)
	if res := run(t, s, sandbox.Run{Commit: true, Cmd: sh(`mkdir -p .deps && echo installed > .deps/lib.txt && ln -s lib.txt .deps/link`)}); !res.Passed() {
		t.Fatalf("set-up: %s %s", res.Stdout, res.Stderr)
	}
	archive := filepath.Join(t.TempDir(), "setup.tar")
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.ExportLayer(ctx, f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if info.Entries != 3 || len(info.Changed) != 0 || len(info.Deleted) != 0 || info.Bytes != int64(len("installed\n")) {
		t.Errorf("export: %+v, want .deps/, its file and its link", info)
	}
	s.Close()

	files["app.py"] = "print('new app')\n"
	other := newSession(t, eng, files, nil)
	took, err := other.RestoreLayer(ctx, archive)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("restored in %s", took)
	check := sh(`cat .deps/lib.txt; readlink .deps/link; python3 app.py; ls -A`)
	want := "installed\nlib.txt\nnew app\n.deps\napp.py\nrequirements.txt\n"
	if res := run(t, other, sandbox.Run{Cmd: check}); string(res.Stdout) != want {
		t.Errorf("after the restore: %q, want %q (stderr %s)", res.Stdout, want, res.Stderr)
	}
	ids, _ := eng.Owned(ctx)
	for _, id := range ids {
		eng.Client().ContainerKill(ctx, id, "KILL")
	}
	if _, err := other.Run(ctx, sandbox.Run{Cmd: check}); err == nil {
		t.Error("a run on a killed container reported no error")
	}
	if res := run(t, other, sandbox.Run{Cmd: check}); string(res.Stdout) != want {
		t.Errorf("after replacement: %q, want %q (stderr %s)", res.Stdout, want, res.Stderr)
	}
}

// TestRestoredLayerCountsAgainstTheQuota: a kept set-up of 2 MiB does
// not fit a 1 MiB workspace, as the set-up itself would not have.
func TestRestoredLayerCountsAgainstTheQuota(t *testing.T) {
	ctx := context.Background()
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, map[string]string{"app.py": "x = 1\n"}, nil)
	if res := run(t, s, sandbox.Run{Commit: true, Cmd: sh(`mkdir -p .venv && head -c 2097152 /dev/zero > .venv/big.bin`)}); !res.Passed() {
		t.Fatalf("set-up: %s", res.Stderr)
	}
	archive := filepath.Join(t.TempDir(), "setup.tar")
	f, _ := os.Create(archive)
	_, err := s.ExportLayer(ctx, f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	small := newSession(t, eng, map[string]string{"app.py": "x = 1\n"}, func(l *sandbox.Limits) { l.Disk = 1 << 20 })
	if _, err := small.RestoreLayer(ctx, archive); err != nil {
		t.Fatal(err)
	}
	res, err := small.Run(ctx, sandbox.Run{Cmd: []string{"true"}})
	if err != nil || res.Passed() || !strings.Contains(string(res.Stderr), "does not fit the disk quota") {
		t.Errorf("a 2 MiB set-up under a 1 MiB quota: %v, exit %d, stderr %q", err, res.ExitCode, res.Stderr)
	}
}
