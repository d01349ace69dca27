package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/sandbox/image"
	"github.com/capsulehq/capsule/testsupport/goldenfile"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// TestDoctorRepo runs capsule doctor --repo in the real sandbox on a
// checkout whose tests run (one already failing), one whose test command
// is not there and one whose set-up fails, and prints what a job would
// find; two take their environment from a devcontainer.json.
func TestDoctorRepo(t *testing.T) {
	sandboxtest.Engine(t)
	tests := []struct {
		name, config string
		tree         string // a tree in testdata instead of the example
		code         int
	}{
		{"runs", "", "", exitOK},
		{"not-found", "test: nosuchrunner -q\n", "", exitFailure},
		{"setup-fails", "test: python3 -m pytest -q\nsetup: echo no index here; exit 3\n", "", exitFailure},
		// networkx's devcontainer.json; pip's, whose set-up needs the
		// network (see the SOURCE.md files).
		{"devcontainer", "", filepath.Join("testdata", "devcontainer-networkx"), exitOK},
		{"devcontainer-pip", "", filepath.Join("testdata", "devcontainer-pip"), exitFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := exampleRepo(t, tt.config)
			if tt.tree != "" {
				repo = copyTree(t, tt.tree)
			}
			code, stdout, stderr := capsule(t, "doctor", "--repo", repo)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			text := strings.NewReplacer(repo, "REPO", image.Default(), "IMAGE").Replace(stdout)
			goldenfile.Check(t, filepath.Join("testdata", "doctor-repo-"+tt.name+".golden"), text, *update)
		})
	}
}

// TestDoctorRepoUsage refuses a directory that is not there and
// arguments besides --repo.
func TestDoctorRepoUsage(t *testing.T) {
	for _, args := range [][]string{{"doctor", "--repo", filepath.Join(t.TempDir(), "none")}, {"doctor", "extra"}} {
		if code, _, _ := capsule(t, args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}
