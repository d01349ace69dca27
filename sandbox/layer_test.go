package sandbox

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// entries lists an archive's entries as "name" (a regular file's with
// "=contents", a link's with "->target").
func entries(t *testing.T, data []byte) []string {
	t.Helper()
	var list []string
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return list
		}
		if err != nil {
			t.Fatal(err)
		}
		switch hdr.Typeflag {
		case tar.TypeReg:
			body, _ := io.ReadAll(tr)
			list = append(list, hdr.Name+"="+string(body))
		case tar.TypeSymlink:
			list = append(list, hdr.Name+"->"+hdr.Linkname)
		default:
			list = append(list, hdr.Name)
		}
	}
}

// layerArchive is what Docker sends of the agent's layer: entries below
// "layer/".
func layerArchive(t *testing.T, files map[string]string, links map[string]string, dirs ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "layer/", Mode: 0o700})
	for _, d := range dirs {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "layer/" + d + "/", Mode: 0o755})
	}
	for _, name := range slices.Sorted(mapKeys(files)) {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "layer/" + name, Mode: 0o644, Size: int64(len(files[name]))})
		tw.Write([]byte(files[name]))
	}
	for name, target := range links {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "layer/" + name, Linkname: target})
	}
	tw.Close()
	return buf.Bytes()
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestLayerDelta keeps what the set-up added or changed, says what it
// changed and deleted of the tree, and leaves out .git as the seed does.
func TestLayerDelta(t *testing.T) {
	tree := t.TempDir()
	for name, content := range map[string]string{"app.py": "x = 1\n", "requirements.txt": "a==1\n", "gone.txt": "bye", ".git/HEAD": "ref", "pkg/mod.py": "m"} {
		os.MkdirAll(filepath.Dir(filepath.Join(tree, name)), 0o755)
		os.WriteFile(filepath.Join(tree, name), []byte(content), 0o644)
	}
	os.Symlink("app.py", filepath.Join(tree, "link.py"))
	layer := layerArchive(t, map[string]string{
		"app.py": "x = 1\n", "requirements.txt": "a==2\n", "pkg/mod.py": "m",
		".local/lib/a/__init__.py": "A", "pkg/__pycache__/mod.pyc": "pyc",
	}, map[string]string{"link.py": "app.py", ".local/bin/a": "../lib/a"}, "pkg", ".local", ".local/lib", ".local/lib/a", "pkg/__pycache__")
	var out bytes.Buffer
	info, err := layerDelta(tree, []string{".git"}, bytes.NewReader(layer), &out)
	if err != nil {
		t.Fatal(err)
	}
	got := entries(t, out.Bytes())
	want := []string{".local/", ".local/lib/", ".local/lib/a/", "pkg/__pycache__/", ".local/lib/a/__init__.py=A", "pkg/__pycache__/mod.pyc=pyc", "requirements.txt=a==2\n", ".local/bin/a->../lib/a"}
	if !slices.Equal(got, want) {
		t.Errorf("delta = %q\nwant    %q", got, want)
	}
	if !slices.Equal(info.Changed, []string{"requirements.txt"}) || !slices.Equal(info.Deleted, []string{"gone.txt"}) || info.Entries != len(want) {
		t.Errorf("info = %+v", info)
	}

	// Restoring lays the delta over the tree in the layer, and marks it.
	var seed bytes.Buffer
	names, _ := archiveNames(bytes.NewReader(out.Bytes()))
	if err := writeLayer(&seed, Spec{Workspace: tree, Exclude: []string{".git"}}, bytes.NewReader(out.Bytes()), names); err != nil {
		t.Fatal(err)
	}
	restored := entries(t, seed.Bytes())
	for _, want := range []string{"layer/app.py=x = 1\n", "layer/requirements.txt=a==2\n", "layer/.local/lib/a/__init__.py=A", "layer/gone.txt=bye", "layer.committed="} {
		if !slices.Contains(restored, want) {
			t.Errorf("the restored layer lacks %q: %q", want, restored)
		}
	}
	if slices.Contains(restored, "layer/requirements.txt=a==1\n") || slices.ContainsFunc(restored, func(e string) bool { return strings.Contains(e, ".git") }) {
		t.Errorf("the restored layer holds the tree's old file or .git: %q", restored)
	}
}
