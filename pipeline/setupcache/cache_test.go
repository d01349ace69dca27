package setupcache

import (
	"archive/tar"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/setupsecret"
)

// write makes files (path to contents) below dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInputs takes the lockfiles and manifests at any depth, the
// configuration's globs, and nothing below node_modules or .git.
func TestInputs(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"requirements-dev.txt": "x", "pyproject.toml": "x", "web/package-lock.json": "x", "web/node_modules/a/package.json": "x",
		".git/config": "x", "src/app.py": "x", "scripts/install.sh": "x", "notes.txt": "x", "go.sum": "x",
		".devcontainer/Dockerfile": "x",
	})
	inputs, err := Inputs(dir, []string{"scripts/*.sh"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range inputs {
		got = append(got, in.Path)
	}
	want := []string{".devcontainer/Dockerfile", "go.sum", "pyproject.toml", "requirements-dev.txt", "scripts/install.sh", "web/package-lock.json"}
	if !slices.Equal(got, want) {
		t.Errorf("inputs = %v, want %v", got, want)
	}
	before := Digest(inputs)
	write(t, dir, map[string]string{"src/app.py": "changed"})
	if again, _ := Inputs(dir, []string{"scripts/*.sh"}); Digest(again) != before {
		t.Error("a change to a file that is not an input changed the digest")
	}
	write(t, dir, map[string]string{"go.sum": "changed"})
	if again, _ := Inputs(dir, []string{"scripts/*.sh"}); Digest(again) == before {
		t.Error("a changed lockfile kept the digest")
	}
}

// TestKeyParts: every part of the key changes its ID.
func TestKeyParts(t *testing.T) {
	base := Key{Repository: "acme/app", Installation: 7, ImageID: "sha256:1", Setup: "pip install -r requirements.txt", Inputs: "abc"}
	changes := []func(*Key){
		func(k *Key) { k.Repository = "evil/app" },
		func(k *Key) { k.Installation = 8 },
		func(k *Key) { k.ImageID = "sha256:2" },
		func(k *Key) { k.Setup += " -q" },
		func(k *Key) { k.Network = true },
		func(k *Key) { k.Inputs = "abd" },
		func(k *Key) { k.Secrets = []string{"NPM_TOKEN"} },
		func(k *Key) { k.Env = []string{"MODE=ci"} },
	}
	for i, change := range changes {
		k := base
		change(&k)
		if k.ID() == base.ID() {
			t.Errorf("change %d kept the ID", i)
		}
	}
}

// put keeps an archive of n bytes under id.
func put(t *testing.T, c *Cache, id string, n int, meta Meta) []string {
	t.Helper()
	f, err := c.Temp()
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, n))
	f.Close()
	meta.Bytes = int64(n)
	evicted, err := c.Put(id, meta, f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return evicted
}

// TestEviction evicts by age of last use, then the least recently used
// past the size bound; a lookup counts as a use.
func TestEviction(t *testing.T) {
	now := time.Now()
	c := &Cache{Dir: t.TempDir(), MaxAge: time.Hour, MaxBytes: 2500, Now: func() time.Time { return now }}
	if _, err := c.Open(); err != nil {
		t.Fatal(err)
	}
	put(t, c, "a", 1000, Meta{})
	os.Chtimes(c.path("a", ".json"), now.Add(-3*time.Minute), now.Add(-3*time.Minute))
	put(t, c, "b", 1000, Meta{})
	os.Chtimes(c.path("b", ".json"), now.Add(-2*time.Minute), now.Add(-2*time.Minute))
	if _, ok, _, _ := c.Lookup("a", nil); !ok { // a is now the most recent
		t.Fatal("a is not kept")
	}
	if evicted := put(t, c, "c", 1000, Meta{}); !slices.Equal(evicted, []string{"b"}) {
		t.Errorf("evicted %v, want b, the least recently used", evicted)
	}
	now = now.Add(2 * time.Hour)
	os.Chtimes(c.path("c", ".json"), now, now)
	if evicted, _ := c.Evict(); !slices.Equal(evicted, []string{"a"}) {
		t.Errorf("evicted %v, want a, unused for two hours", evicted)
	}
	if _, ok, why, _ := c.Lookup("a", nil); ok || why != "no set-up of this key is kept" {
		t.Errorf("a: %v, %q", ok, why)
	}
}

// TestSourceBound: an entry that depends on the source serves only the
// tree it was built on.
func TestSourceBound(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	if _, err := c.Open(); err != nil {
		t.Fatal(err)
	}
	put(t, c, "s", 10, Meta{Source: "tree-1", SourceWhy: "installed the repository's source without -e (app)"})
	if _, ok, _, _ := c.Lookup("s", func() (string, error) { return "tree-1", nil }); !ok {
		t.Error("the same tree did not reuse it")
	}
	_, ok, why, _ := c.Lookup("s", func() (string, error) { return "tree-2", nil })
	if ok || !strings.Contains(why, "without -e (app), and the source differs") {
		t.Errorf("another tree: %v, %q", ok, why)
	}
}

// archive writes a set-up archive of files.
func archive(t *testing.T, files map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "a.tar")
	f, _ := os.Create(p)
	tw := tar.NewWriter(f)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	}) {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(files[name]))})
		tw.Write([]byte(files[name]))
	}
	tw.Close()
	f.Close()
	return p
}

// TestInspect finds a secret's value in a file (plain or encoded) and a
// non-editable install of the workspace, and not an editable one.
func TestInspect(t *testing.T) {
	secrets := setupsecret.Set{{Name: "NPM_TOKEN", Value: "npm_abcdefgh12345"}}
	tests := []struct {
		name   string
		files  map[string]string
		leak   string
		source []string
	}{
		{name: "clean", files: map[string]string{".local/lib/x.py": "print(1)"}},
		{name: "npmrc", files: map[string]string{".npmrc": "//registry.npmjs.org/:_authToken=npm_abcdefgh12345\n"}, leak: ".npmrc"},
		{name: "pip's direct_url.json with the token in the URL", files: map[string]string{
			".local/lib/python3.11/site-packages/priv-1.0.dist-info/direct_url.json": `{"url": "https://u:npm_abcdefgh12345@pkgs/priv.tar.gz", "archive_info": {}}`},
			leak: ".local/lib/python3.11/site-packages/priv-1.0.dist-info/direct_url.json"},
		{name: "non-editable install", files: map[string]string{
			".local/lib/python3.11/site-packages/app-1.0.dist-info/direct_url.json": `{"url": "file:///capsule/workspace", "dir_info": {}}`},
			source: []string{"app-1.0"}},
		{name: "editable install", files: map[string]string{
			".local/lib/python3.11/site-packages/app-1.0.dist-info/direct_url.json": `{"url": "file:///capsule/workspace", "dir_info": {"editable": true}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found, err := Inspect(archive(t, tt.files), secrets, "/capsule/workspace")
			if err != nil {
				t.Fatal(err)
			}
			leak := ""
			if found.Leak != nil {
				leak = found.Leak.File
				if strings.Contains(found.Leak.Error(), secrets[0].Value) {
					t.Errorf("the message shows the value: %v", found.Leak)
				}
			}
			if leak != tt.leak || !slices.Equal(found.SourceInstalled, tt.source) {
				t.Errorf("leak %q, source %v; want %q, %v", leak, found.SourceInstalled, tt.leak, tt.source)
			}
		})
	}
}
