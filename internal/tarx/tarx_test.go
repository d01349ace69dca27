package tarx

import (
	"archive/tar"
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// entry is one member of a test archive: its header and, for a regular
// file, its content.
type entry struct {
	h    tar.Header
	body string
}

func file(name, body string) entry {
	return entry{tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644}, body}
}

func dir(name string) entry {
	return entry{h: tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755}}
}

func symlink(name, target string) entry {
	return entry{h: tar.Header{Name: name, Typeflag: tar.TypeSymlink, Linkname: target}}
}

func special(name string, typ byte, link string) entry {
	return entry{h: tar.Header{Name: name, Typeflag: typ, Linkname: link, Mode: 0o644}}
}

// archive writes entries as a tar stream. A header whose size is set and
// whose body is empty is written without its content, as a hostile
// archive that claims a huge file would be.
func archive(t *testing.T, entries ...entry) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.h
		if h.Typeflag == tar.TypeReg && h.Size == 0 {
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close() // fails after a header without its content; the stream is what the test needs
	return &buf
}

// tree lists what lies below dir: files as their content, links as
// "-> target", directories as "/".
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir():
			got[rel] = "/"
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			got[rel] = "-> " + target
			return err
		default:
			data, err := os.ReadFile(p)
			got[rel] = string(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name    string
		entries []entry
		opt     Options
		before  func(t *testing.T, dst, outside string) // prepares the destination
		want    map[string]string                       // the tree afterwards
		refused []string                                // the names refused, in order
		wantErr error
	}{
		{
			name:    "a plain tree",
			entries: []entry{dir("pkg/"), file("pkg/a.py", "a"), file("README", "r"), symlink("pkg/up", "../README"), symlink("here", ".")},
			want:    map[string]string{"pkg": "/", "pkg/a.py": "a", "README": "r", "pkg/up": "-> ../README", "here": "-> ."},
		},
		{
			name:    "parents made on the way",
			entries: []entry{file("a/b/c.py", "c")},
			want:    map[string]string{"a": "/", "a/b": "/", "a/b/c.py": "c"},
		},
		{
			name:    "absolute names",
			entries: []entry{file("/etc/evil", "x"), file("ok", "ok")},
			want:    map[string]string{"ok": "ok"},
			refused: []string{"/etc/evil"},
		},
		{
			name:    "dot-dot names",
			entries: []entry{file("../evil", "x"), file("a/../../evil", "x"), file("..", "x"), file("a/./b", "x"), file("ok", "ok")},
			want:    map[string]string{"ok": "ok"},
			refused: []string{"../evil", "a/../../evil", "..", "a/./b"},
		},
		{
			name: "symbolic links pointing out",
			entries: []entry{
				symlink("abs", "/etc"), symlink("up", ".."), symlink("a/upup", "../.."),
				symlink("a/b/ok", "../../x"), symlink("empty", ""),
			},
			want:    map[string]string{"a": "/", "a/b": "/", "a/b/ok": "-> ../../x"},
			refused: []string{"abs", "up", "a/upup", "empty"},
		},
		{
			name:    "a link that climbs after descending",
			entries: []entry{symlink("l1", "."), symlink("l2", "l1/.."), symlink("l3", "sub/../x")},
			want:    map[string]string{"l1": "-> ."},
			refused: []string{"l2", "l3"},
		},
		{
			name:    "a file written through a link that points out",
			entries: []entry{symlink("out", "../"), file("out/evil", "x")},
			want:    map[string]string{"out": "/", "out/evil": "x"}, // the link was refused, so out is a directory here
			refused: []string{"out"},
		},
		{
			name:    "a file written through a link that stays inside",
			entries: []entry{dir("sub/"), symlink("lnk", "sub"), file("lnk/f", "x"), dir("lnk/d/")},
			want:    map[string]string{"sub": "/", "lnk": "-> sub"},
			refused: []string{"lnk/f", "lnk/d/"},
		},
		{
			name:    "a file written through a link already there",
			entries: []entry{file("lib/x.py", "x")},
			before: func(t *testing.T, dst, outside string) {
				if err := os.Symlink(outside, filepath.Join(dst, "lib")); err != nil {
					t.Fatal(err)
				}
			},
			want:    map[string]string{"lib": "-> OUTSIDE"},
			refused: []string{"lib/x.py"},
		},
		{
			name: "hard links, devices and fifos",
			entries: []entry{
				special("hard-out", tar.TypeLink, "/etc/passwd"), file("f", "f"), special("hard-in", tar.TypeLink, "f"),
				special("tty", tar.TypeChar, ""), special("sda", tar.TypeBlock, ""), special("pipe", tar.TypeFifo, ""),
				special("old", tar.TypeCont, ""),
			},
			want:    map[string]string{"f": "f"},
			refused: []string{"hard-out", "hard-in", "tty", "sda", "pipe", "old"},
		},
		{
			name:    "later entries replace files and links, never directories",
			entries: []entry{file("f", "one"), file("f", "two"), symlink("l", "f"), file("l", "file now"), file("d/x", "x"), file("d", "no"), symlink("d", "f")},
			want:    map[string]string{"f": "two", "l": "file now", "d": "/", "d/x": "x"},
			refused: []string{"d", "d"},
		},
		{
			name:    "a file below a file",
			entries: []entry{file("f", "f"), file("f/g", "g")},
			want:    map[string]string{"f": "f"},
			refused: []string{"f/g"},
		},
		{
			name: "GitHub's tarball with the top directory stripped",
			entries: []entry{
				{h: tar.Header{Name: "pax_global_header", Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": "abc"}}},
				dir("octo-calc-1234567/"), file("octo-calc-1234567/calc/ops.py", "ops"), file("./octo-calc-1234567/b/c.py", "c"),
				file("no-top-dir", "x"), file("top//abs", "x"), file("top/../x", "x"), file("../top/x", "x"),
			},
			opt:     Options{StripTop: true},
			want:    map[string]string{"calc": "/", "calc/ops.py": "ops", "b": "/", "b/c.py": "c"},
			refused: []string{"no-top-dir", "top//abs", "top/../x", "../top/x"},
		},
		{
			name:    "a huge file past MaxBytes",
			entries: []entry{file("small", "12345"), {h: tar.Header{Name: "huge", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1 << 40}}},
			opt:     Options{MaxBytes: 10},
			want:    map[string]string{"small": "12345"},
			wantErr: ErrTooLarge,
		},
		{
			name:    "more entries than MaxFiles",
			entries: []entry{file("a", "a"), file("b", "b"), file("c", "c")},
			opt:     Options{MaxFiles: 2},
			want:    map[string]string{"a": "a", "b": "b"},
			wantErr: ErrTooLarge,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dst := filepath.Join(parent, "dst")
			outside := filepath.Join(parent, "outside")
			for _, d := range []string{dst, outside} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if tt.before != nil {
				tt.before(t, dst, outside)
			}
			root, err := os.OpenRoot(dst)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()

			refused, err := Extract(archive(t, tt.entries...), root, tt.opt)
			if !errors.Is(err, tt.wantErr) || (err != nil) != (tt.wantErr != nil) {
				t.Errorf("Extract() error = %v, want %v", err, tt.wantErr)
			}
			var names []string
			for _, r := range refused {
				names = append(names, r.Name)
				if r.Reason == "" {
					t.Errorf("%q refused without a reason", r.Name)
				}
			}
			if !slices.Equal(names, tt.refused) {
				t.Errorf("refused %q, want %q", refused, tt.refused)
			}
			got := tree(t, dst)
			want := maps.Clone(tt.want)
			for k, v := range want {
				want[filepath.FromSlash(k)] = strings.ReplaceAll(v, "OUTSIDE", outside)
			}
			if !maps.Equal(got, want) {
				t.Errorf("tree = %q, want %q", got, want)
			}
			if left := tree(t, parent); len(left) != 2+len(got) || len(tree(t, outside)) != 0 {
				t.Errorf("something was written outside the directory: %q", left)
			}
		})
	}
}

func TestExtractModes(t *testing.T) {
	dst := t.TempDir()
	root, err := os.OpenRoot(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	setuid := entry{tar.Header{Name: "setuid", Typeflag: tar.TypeReg, Mode: 0o4777}, "x"}
	odd := entry{tar.Header{Name: "odd", Typeflag: tar.TypeReg, Mode: 0o600}, "x"}
	run := entry{tar.Header{Name: "run.sh", Typeflag: tar.TypeReg, Mode: 0o744}, "x"}
	locked := entry{h: tar.Header{Name: "locked/", Typeflag: tar.TypeDir, Mode: 0o000}}
	if _, err := Extract(archive(t, setuid, odd, run, locked), root, Options{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]fs.FileMode{"setuid": 0o755, "odd": 0o644, "run.sh": 0o755, "locked": fs.ModeDir | 0o755} {
		info, err := os.Lstat(filepath.Join(dst, name))
		if err != nil || info.Mode() != want {
			t.Errorf("%s: mode %v, %v; want %v", name, info.Mode(), err, want)
		}
	}
}

func TestExtractOwner(t *testing.T) {
	// Chown to one's own ids works for every user; root gives the tree
	// away, as the sandbox agent does.
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		uid, gid = 10001, 10001
	}
	dst := t.TempDir()
	root, err := os.OpenRoot(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := Extract(archive(t, file("a/b/f", "f"), symlink("a/l", "b"), dir("d/")), root, Options{UID: uid, GID: gid}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "a/b", "a/b/f", "a/l", "d"} {
		info, err := os.Lstat(filepath.Join(dst, name))
		if err != nil {
			t.Fatal(err)
		}
		st := info.Sys().(*syscall.Stat_t)
		if int(st.Uid) != uid || int(st.Gid) != gid {
			t.Errorf("%s belongs to %d:%d, want %d:%d", name, st.Uid, st.Gid, uid, gid)
		}
	}
}

func TestExtractTruncated(t *testing.T) {
	data := archive(t, file("a", strings.Repeat("x", 2000))).Bytes()
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := Extract(bytes.NewReader(data[:1000]), root, Options{}); err == nil {
		t.Error("Extract accepted a truncated archive")
	}
	if _, err := Extract(strings.NewReader("not a tar archive, but long enough to be read as one block of header bytes"+strings.Repeat(".", 512)), root, Options{}); err == nil {
		t.Error("Extract accepted garbage")
	}
}
