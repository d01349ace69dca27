//go:build linux

package agent

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// entry is a file of a test tree or archive: content for a regular
// file, link for a symbolic link, dir for a directory; typ overrides the
// archive entry's type.
type entry struct {
	name, content, link string
	dir                 bool
	mode                fs.FileMode
	typ                 byte
}

// makeTree writes entries below dir.
func makeTree(t *testing.T, dir string, entries ...entry) {
	t.Helper()
	for _, e := range entries {
		p := filepath.Join(dir, e.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case e.dir:
			err = os.Mkdir(p, 0o755)
		case e.link != "":
			err = os.Symlink(e.link, p)
		default:
			err = os.WriteFile(p, []byte(e.content), 0o644)
		}
		if err == nil && e.mode != 0 && e.link == "" {
			err = os.Chmod(p, e.mode)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// makeTar is an archive of entries, as the host sends it.
func makeTar(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(e.content))}
		switch {
		case e.dir:
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		case e.link != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		case e.typ != 0:
			h.Typeflag, h.Linkname, h.Size = e.typ, "a.txt", 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			if _, err := tw.Write([]byte(e.content)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tree describes what is below dir: "name" for a directory, "name=content"
// for a file, "name->target" for a link.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir():
			got = append(got, rel+"/")
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			got = append(got, rel+"->"+target)
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			got = append(got, rel+"="+string(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestRestore(t *testing.T) {
	base := []entry{
		{name: "a.txt", content: "base a", mode: 0o444},
		{name: "sub/b.txt", content: "base b"},
		{name: "link", link: "a.txt"},
		{name: "out", link: "../outside"},
	}
	tests := []struct {
		name      string
		base      []entry
		layer     []entry
		committed bool
		overlay   []entry
		delete    []string
		want      []string
		err       string // a part of restore's error, "" for none
	}{
		{
			name: "the base", base: base,
			want: []string{"a.txt=base a", "link->a.txt", "out->../outside", "sub/", "sub/b.txt=base b"},
		},
		{name: "no base: an empty workspace", want: nil},
		{
			name: "the committed layer", base: base, layer: []entry{{name: "c.txt", content: "layer"}}, committed: true,
			want: []string{"c.txt=layer"},
		},
		{
			name: "a layer not committed", base: base[:1], layer: []entry{{name: "c.txt", content: "layer"}},
			want: []string{"a.txt=base a"},
		},
		{
			name: "the overlay over the base", base: base,
			overlay: []entry{{name: "a.txt", content: "new a"}, {name: "new/c.txt", content: "c"}},
			want:    []string{"a.txt=new a", "link->a.txt", "new/", "new/c.txt=c", "out->../outside", "sub/", "sub/b.txt=base b"},
		},
		{
			name: "files deleted after the overlay", base: base,
			overlay: []entry{{name: "new.txt", content: "n"}},
			delete:  []string{"a.txt", "new.txt", "./sub/b.txt", "missing", "link"},
			want:    []string{"out->../outside", "sub/"},
		},
		{name: "deleting a parent", base: base, delete: []string{".."}, err: "outside the workspace"},
		{name: "deleting through a parent", base: base, delete: []string{"sub/../../x"}, err: "outside the workspace"},
		{name: "deleting an absolute path", base: base, delete: []string{"/etc/passwd"}, err: "outside the workspace"},
		{name: "deleting the workspace", base: base, delete: []string{"."}, err: "delete ."},
		{name: "deleting through a link", base: base, delete: []string{"out/victim"}, err: "delete out/victim"},
		{name: "deleting a directory that is not empty", base: base, delete: []string{"sub"}, err: "delete sub"},
		{name: "an overlay entry above the workspace", base: base, overlay: []entry{{name: "../x", content: "x"}}, err: "outside the directory"},
		{name: "an absolute overlay entry", base: base, overlay: []entry{{name: "/x", content: "x"}}, err: "outside the directory"},
		{name: "an overlay entry through a link", base: base, overlay: []entry{{name: "out/x", content: "x"}}, err: "apply files"},
		{name: "an overlay link out", base: base, overlay: []entry{{name: "l", link: "../../x"}}, err: "outside the directory"},
		{name: "an overlay link to an absolute path", base: base, overlay: []entry{{name: "l", link: "/etc"}}, err: "outside the directory"},
		{name: "an overlay hard link", base: base, overlay: []entry{{name: "h", typ: tar.TypeLink}}, err: "a hard link"},
		{name: "an overlay device", base: base, overlay: []entry{{name: "d", typ: tar.TypeChar}}, err: "a device file"},
		{name: "a cut overlay", base: base, overlay: []entry{{name: "a.txt", content: strings.Repeat("x", 1000)}}, err: "apply files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTestBox(t)
			if len(tt.base) == 0 {
				if err := os.Remove(b.base); err != nil {
					t.Fatal(err)
				}
			}
			outside := filepath.Join(b.dir, "outside")
			makeTree(t, outside, entry{name: "victim", content: "v"})
			makeTree(t, b.base, tt.base...)
			makeTree(t, b.layer, tt.layer...)
			b.committed = tt.committed
			// What the previous run left: files everywhere, one locked.
			makeTree(t, b.workspace, entry{name: "old.txt", content: "old", mode: 0o000}, entry{name: "old/dir/f", content: "old"})
			makeTree(t, b.scratch[0].dir, entry{name: "t", content: "tmp"})
			makeTree(t, b.scratch[1].dir, entry{name: "s/s", content: "shm"})
			for _, d := range []string{b.workspace, b.scratch[0].dir, b.scratch[1].dir} {
				if err := os.Chmod(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			var overlay []byte
			if len(tt.overlay) > 0 {
				overlay = makeTar(t, tt.overlay...)
			}
			if tt.name == "a cut overlay" {
				overlay = overlay[:800]
			}
			err := b.restore(overlay, tt.delete)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("restore = %v, want error %q", err, tt.err)
			}
			for _, p := range b.scratch[:2] {
				if got := tree(t, p.dir); len(got) > 0 {
					t.Errorf("%s holds %q after the reset", p.dir, got)
				}
				fi, err := os.Stat(p.dir)
				if err != nil || fi.Mode()&(fs.ModePerm|fs.ModeSticky) != p.mode {
					t.Errorf("%s: mode %v, %v; want %v", p.dir, fi.Mode(), err, p.mode)
				}
			}
			if _, err := os.Lstat(b.scratch[2].dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("an absent scratch place was made: %v", err)
			}
			if !slices.Equal(b.ipc, []int{b.uid}) {
				t.Errorf("removeIPC called as %v, want once as %d", b.ipc, b.uid)
			}
			if got := tree(t, outside); !slices.Equal(got, []string{"victim=v"}) {
				t.Errorf("outside the workspace: %q", got)
			}
			if _, err := os.Lstat(filepath.Join(b.dir, "x")); err == nil {
				t.Error("a file was written above the workspace")
			}
			if tt.err != "" {
				return
			}
			if got := tree(t, b.workspace); !slices.Equal(got, tt.want) {
				t.Errorf("workspace %q, want %q", got, tt.want)
			}
			checkOwned(t, b.workspace, b.uid, b.gid)
		})
	}
}

// checkOwned checks that everything below dir, dir included, belongs to
// uid and gid, and that its owner may write every file and directory.
func checkOwned(t *testing.T, dir string, uid, gid int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		if int(st.Uid) != uid || int(st.Gid) != gid {
			t.Errorf("%s belongs to %d:%d, want %d:%d", p, st.Uid, st.Gid, uid, gid)
		}
		if fi.Mode()&fs.ModeSymlink == 0 && fi.Mode()&0o200 == 0 {
			t.Errorf("%s: mode %v, not writable by its owner", p, fi.Mode())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A base link pointing out of the workspace is copied as a link: the
// copy never writes through it.
func TestRestoreCopiesLinksAsLinks(t *testing.T) {
	b := newTestBox(t)
	outside := filepath.Join(b.dir, "outside")
	makeTree(t, outside, entry{name: "keep", content: "outside"})
	makeTree(t, b.base, entry{name: "dir", link: outside}, entry{name: "file", link: filepath.Join(outside, "keep")})
	if err := syscall.Mkfifo(filepath.Join(b.base, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.restore(nil, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"dir->" + outside, "file->" + filepath.Join(outside, "keep")}
	if got := tree(t, b.workspace); !slices.Equal(got, want) {
		t.Errorf("workspace %q, want %q (no fifo)", got, want)
	}
	if got := tree(t, outside); !slices.Equal(got, []string{"keep=outside"}) {
		t.Errorf("outside %q", got)
	}
}

func TestRestoreFailures(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, b *testBox)
		err   string
	}{
		{"IPC objects left", func(t *testing.T, b *testBox) {
			b.removeIPC = func(int) error { return errors.New("1 objects left") }
		}, "remove System V IPC objects: 1 objects left"},
		{"no workspace", func(t *testing.T, b *testBox) {
			if err := os.Remove(b.workspace); err != nil {
				t.Fatal(err)
			}
		}, "workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newTestBox(t)
			tt.setup(t, b)
			if err := b.restore(nil, nil); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("restore = %v, want %q", err, tt.err)
			}
		})
	}
}

// A commit makes the workspace the starting state: later runs start from
// it, whatever they did to the workspace, and the layer is root's copy.
func TestCommit(t *testing.T) {
	b := newTestBox(t)
	makeTree(t, b.base, entry{name: "a.txt", content: "base"})
	makeTree(t, b.layer, entry{name: "stale", content: "from an earlier commit"})
	if err := b.restore(makeTar(t, entry{name: "installed/lib.py", content: "lib"}), nil); err != nil {
		t.Fatal(err)
	}
	if err := b.commit(); err != nil {
		t.Fatal(err)
	}
	want := []string{"a.txt=base", "installed/", "installed/lib.py=lib"}
	if got := tree(t, b.layer); !slices.Equal(got, want) || !b.committed {
		t.Fatalf("layer %q, committed %v; want %q", got, b.committed, want)
	}
	makeTree(t, b.workspace, entry{name: "a.txt-later", content: "a later run's"})
	if err := b.restore(nil, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, b.workspace); !slices.Equal(got, want[1:]) {
		t.Errorf("workspace after the commit %q, want %q", got, want[1:])
	}
}

func TestArchiveDir(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, entry{name: "a.txt", content: "aaaa"}, entry{name: "sub/b.txt", content: "b"}, entry{name: "link", link: "/etc/passwd"})
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	full, err := archiveDir(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		limit int64
		err   error
	}{
		{"within the limit", int64(len(full)), nil},
		{"over the limit", int64(len(full)) - 1, errCollectLimit},
		{"no room", 0, errCollectLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := archiveDir(dir, tt.limit)
			if !errors.Is(err, tt.err) || tt.err != nil && got != nil {
				t.Fatalf("archiveDir = %d bytes, %v; want %v", len(got), err, tt.err)
			}
			if tt.err != nil {
				return
			}
			files := map[string]string{}
			tr := tar.NewReader(bytes.NewReader(got))
			for {
				h, err := tr.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(tr)
				files[h.Name] = string(b) + h.Linkname
			}
			want := map[string]string{"a.txt": "aaaa", "link": "/etc/passwd", "sub": "", "sub/b.txt": "b"}
			if !maps.Equal(files, want) {
				t.Errorf("archive %q, want %q (no fifo)", files, want)
			}
		})
	}
	if _, err := archiveDir(filepath.Join(dir, "missing"), 1<<20); err == nil {
		t.Error("archiveDir of a missing directory succeeded")
	}
}

// TestLayerMark: a layer the host seeded (a kept set-up) is the starting
// state once its mark is there, as after a committed run.
func TestLayerMark(t *testing.T) {
	b := newTestBox(t)
	b.layerMark = filepath.Join(b.dir, "layer.committed")
	makeTree(t, b.base, entry{name: "a.txt", content: "base"})
	makeTree(t, b.layer, entry{name: "a.txt", content: "base"}, entry{name: ".local/lib.py", content: "kept"})
	if err := b.restore(nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, b.workspace); !slices.Equal(got, []string{"a.txt=base"}) {
		t.Fatalf("without the mark: %q", got)
	}
	if err := os.WriteFile(b.layerMark, nil, 0o400); err != nil {
		t.Fatal(err)
	}
	if err := b.restore(nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, b.workspace); !slices.Equal(got, []string{".local/", ".local/lib.py=kept", "a.txt=base"}) || !b.committed {
		t.Errorf("with the mark: %q, committed %v", got, b.committed)
	}
}
