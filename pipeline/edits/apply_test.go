package edits

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]file{
		"calc.py":    {content: "old\n"},
		"bin/run.sh": {content: "#!/bin/sh\n", mode: 0o755},
		"secret.env": {content: "A=1\n", mode: 0o600},
		"gone.py":    {content: "bye\n"},
	})
	edits := []Edit{
		{Path: "calc.py", Content: "first\n"},
		{Path: "./bin/run.sh", Content: "#!/bin/sh\nexit 0\n"},
		{Path: "secret.env", Content: "A=2\n"},
		{Path: "gone.py", Delete: true},
		{Path: "pkg/sub/new.py", Content: "new\n"},
		{Path: "pkg/__init__.py", Content: ""},
		{Path: "calc.py", Content: "second\n"},
		{Path: "never.py", Delete: true},
		{Path: "brief/x.py", Content: "written, then deleted\n"},
		{Path: "brief/x.py", Delete: true},
	}
	if err := Apply(dir, edits); err != nil {
		t.Fatal(err)
	}
	compareTrees(t, "Apply", readTree(t, dir), map[string]string{
		"calc.py":         "second\n",
		"bin/run.sh":      "#!/bin/sh\nexit 0\n",
		"secret.env":      "A=2\n",
		"pkg/sub/new.py":  "new\n",
		"pkg/__init__.py": "",
	})
	for p, want := range map[string]fs.FileMode{
		"calc.py":        0o644,
		"bin/run.sh":     0o755,
		"secret.env":     0o600,
		"pkg/sub/new.py": newFileMode,
	} {
		info, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
	}
	err := filepath.WalkDir(dir, func(name string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".capsule-") {
			t.Errorf("temporary file left behind: %s", name)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestApplyRefusesUncheckedEdits gives Apply edits that Check would refuse
// and makes sure it writes nothing, inside or outside the directory.
func TestApplyRefusesUncheckedEdits(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "repo")
	writeTree(t, base, map[string]file{
		"outside/secret.txt": {content: "secret\n"},
		"repo/calc.py":       {content: "old\n"},
		"repo/src/a.py":      {content: "a\n"},
		"repo/.git/config":   {content: "[core]\n"},
	})
	symlink(t, "..", filepath.Join(dir, "up"))
	symlink(t, "../outside", filepath.Join(dir, "escape"))
	symlink(t, filepath.Join(base, "outside"), filepath.Join(dir, "absescape"))
	symlink(t, "/etc", filepath.Join(dir, "etc"))
	symlink(t, "src", filepath.Join(dir, "lib"))
	symlink(t, "calc.py", filepath.Join(dir, "alias.py"))
	symlink(t, "../outside/secret.txt", filepath.Join(dir, "leak.txt"))

	tests := []struct{ path, err string }{
		{"../outside/evil.txt", "leaves the repository"},
		{"/tmp/evil.txt", "absolute path"},
		{`C:\evil.txt`, "absolute path"},
		{"up/outside/evil.txt", "up is a symbolic link"},
		{"escape/evil.txt", "escape is a symbolic link"},
		{"absescape/secret.txt", "absescape is a symbolic link"},
		{"etc/evil", "etc is a symbolic link"},
		{"lib/a.py", "lib is a symbolic link"},
		{"alias.py", "alias.py is a symbolic link"},
		{"leak.txt", "leak.txt is a symbolic link"},
		{".git/config", "inside .git"},
		{"calc.py/x.py", "calc.py is not a directory"},
		{"src", "src is not a regular file"},
	}
	before, beforeBase := readTree(t, dir), readTree(t, base)
	for _, tt := range tests {
		for _, bad := range []Edit{{Path: tt.path, Content: "evil\n"}, {Path: tt.path, Delete: true}} {
			// The good edit first: nothing may be written when any edit is bad.
			err := Apply(dir, []Edit{{Path: "calc.py", Content: "new\n"}, bad})
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Apply(%q) = %v, want an error containing %q", tt.path, err, tt.err)
			}
		}
	}
	compareTrees(t, "repository", readTree(t, dir), before)
	compareTrees(t, "temporary directory", readTree(t, base), beforeBase)
	if _, err := os.Lstat("/etc/evil"); err == nil {
		t.Error("/etc/evil exists")
	}
}

// TestApplyBreaksHardLinks makes sure replacing a file never writes through
// a hard link into another copy of the repository.
func TestApplyBreaksHardLinks(t *testing.T) {
	base := t.TempDir()
	writeTree(t, base, map[string]file{"original/calc.py": {content: "old\n"}})
	dir := filepath.Join(base, "copy")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(base, "original/calc.py"), filepath.Join(dir, "calc.py")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	if err := Apply(dir, []Edit{{Path: "calc.py", Content: "new\n"}}); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, base); got["original/calc.py"] != "old\n" || got["copy/calc.py"] != "new\n" {
		t.Errorf("after Apply: %q", got)
	}
}

func TestApplyMissingDirectory(t *testing.T) {
	if err := Apply(filepath.Join(t.TempDir(), "missing"), []Edit{{Path: "a.py", Content: "x\n"}}); err == nil {
		t.Error("Apply to a missing directory succeeded")
	}
}
