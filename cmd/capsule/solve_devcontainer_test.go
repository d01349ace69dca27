package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/sandbox/image"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// copyTree copies the directory src into a new temporary directory, under
// src's name.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// mappedQueue is the module TestSolveDevcontainer breaks, and the break:
// pop no longer restores the heap.
const (
	mappedQueue    = "networkx/utils/mapped_queue.py"
	siftAfterPop   = "        # Restore invariant by sifting up\n        self._siftup(0)\n        # Return smallest element\n"
	noSiftAfterPop = "        # Return smallest element\n"
)

// TestSolveDevcontainer solves an issue with capsule solve in the real
// sandbox, on networkx's unmodified devcontainer.json and one of its
// modules (testdata/devcontainer-networkx, see SOURCE.md there) with a
// bug put in: the environment comes from the devcontainer.json, whose
// universal image Capsule's python image stands for, as stderr, the
// attempt log and its JSON say.
func TestSolveDevcontainer(t *testing.T) {
	sandboxtest.Engine(t)
	repo := copyTree(t, filepath.Join("testdata", "devcontainer-networkx"))
	path := filepath.Join(repo, filepath.FromSlash(mappedQueue))
	fixed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(fixed), siftAfterPop, noSiftAfterPop, 1)
	if broken == string(fixed) {
		t.Fatal("the break does not apply to mapped_queue.py")
	}
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	issue := filepath.Join(t.TempDir(), "issue.md")
	if err := os.WriteFile(issue, []byte("# MappedQueue.pop returns elements out of order\n\nAfter the first pop, `MappedQueue.pop()` no longer returns the smallest element: `test_pop` in `networkx/utils/tests/test_mapped_queue.py` fails.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	answer := "pop must sift the new root down again.\n\n" + programmer.FormatFiles([]edits.FileEdit{{Path: mappedQueue, Blocks: edits.BlocksFor(broken, string(fixed))}}) + "\n"
	srv := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Reply(answer)))
	out := t.TempDir()
	code, _, stderr := capsule(t, "solve", "--repo", repo, "--issue", issue, "--base-url", srv.URL(), "--model", "fake", "--out", out)
	if code != exitOK || len(srv.Requests()) != 1 {
		t.Fatalf("exit %d after %d model calls, want %d after 1\n%s", code, len(srv.Requests()), exitOK, stderr)
	}
	stands := "the environment comes from .devcontainer/devcontainer.json: image " + image.Default() + " stands for mcr.microsoft.com/devcontainers/universal:2"
	if !strings.Contains(stderr, "capsule solve: devcontainer: "+stands) {
		t.Errorf("stderr does not say where the environment came from:\n%s", stderr)
	}
	if md := readOut(t, out, attemptsMDFile); !strings.Contains(md, "The environment comes from `.devcontainer/devcontainer.json`") || !strings.Contains(md, stands) || !strings.Contains(md, "**Solved**") {
		t.Errorf("attempts.md lacks the devcontainer or the verdict:\n%s", md)
	}
	var log attemptlog.Log
	if err := json.Unmarshal([]byte(readOut(t, out, attemptsJSONFile)), &log); err != nil {
		t.Fatal(err)
	}
	if d := log.Devcontainer; d == nil || !d.Used || d.File != ".devcontainer/devcontainer.json" || d.Sandbox != image.Default() || len(d.Notes) == 0 {
		t.Errorf("attempts.json's devcontainer: %+v", d)
	}
}

// devcontainerSetup is a devcontainer.json written for
// TestSolveDevcontainerSetup (not a repository's): its create-time
// commands install a vendored package offline, its containerEnv sets a
// variable the tests read, and it asks for what Capsule does not do.
const devcontainerSetup = `{
  // A Python dev container whose set-up installs a vendored package.
  "image": "mcr.microsoft.com/devcontainers/python:1-3.12-bookworm",
  "features": {"ghcr.io/devcontainers/features/github-cli:1": {}},
  "onCreateCommand": ["pip", "install", "--user", "--no-index", "--no-build-isolation", "./vendor/greet"],
  "postCreateCommand": {"check": "python3 -c 'import greet'"},
  "postStartCommand": "echo never",
  "containerEnv": {"GREETING": "hello from containerEnv", "PATH": "/nope"},
}
`

// TestSolveDevcontainerSetup: a devcontainer.json's onCreateCommand and
// postCreateCommand are the set-up, which installs for every test run,
// its containerEnv reaches the tests, and what is not done is named in
// the attempt log.
func TestSolveDevcontainerSetup(t *testing.T) {
	sandboxtest.Engine(t)
	repo := exampleRepo(t, "") // its capsule.yml sets neither image: nor setup:
	files := greetPackage("    assert os.environ[\"GREETING\"] == \"hello from containerEnv\"\n")
	files[".devcontainer/devcontainer.json"] = devcontainerSetup
	writeFiles(t, repo, files)
	r := solveWith(t, repo, []string{calculatortest.Answer("calc/stats.py", calculatortest.RightStats)})
	if r.code != exitOK {
		t.Fatalf("exit %d, want %d\n%s", r.code, exitOK, r.stderr)
	}
	md := readOut(t, r.out, attemptsMDFile)
	for _, want := range []string{
		"Set-up: `sh -c 'pip install --user --no-index --no-build-isolation ./vendor/greet && sh -c '",
		"features not installed (Capsule installs no Dev Container Features; what they add is missing unless the image has it): ghcr.io/devcontainers/features/github-cli:1",
		"postStartCommand not run",
		"containerEnv.PATH not set",
		"environment variables: GREETING",
		"the set-up runs without the network",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("attempts.md lacks %q:\n%s", want, md)
		}
	}
}

// greetPackage is a package to install offline, vendor/greet, and a test
// that imports it, ending with more.
func greetPackage(more string) map[string]string {
	return map[string]string{
		"vendor/greet/pyproject.toml":    "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"greet\"\nversion = \"1.0\"\n",
		"vendor/greet/greet/__init__.py": "def hello():\n    return \"hi\"\n",
		"tests/test_greet.py":            "import os\n\nimport greet\n\n\ndef test_hello():\n    assert greet.hello() == \"hi\"\n" + more,
	}
}

// writeFiles writes files, by slash-separated path, into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
