package sandbox

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestExtractToRefusesEscapes(t *testing.T) {
	tests := []struct {
		name    string
		entries []tar.Header
		wantErr bool
		absent  []string // paths (relative to the parent of dir) that must not exist
	}{
		{name: "parent path", entries: []tar.Header{{Name: "../evil", Typeflag: tar.TypeReg}}, wantErr: true, absent: []string{"evil"}},
		{name: "absolute path", entries: []tar.Header{{Name: "/abs", Typeflag: tar.TypeReg}}, wantErr: true},
		{name: "link out then write through it", entries: []tar.Header{
			{Name: "out", Typeflag: tar.TypeSymlink, Linkname: "../"},
			{Name: "out/evil", Typeflag: tar.TypeReg},
		}, absent: []string{"evil"}},
		{name: "absolute link", entries: []tar.Header{
			{Name: "abs", Typeflag: tar.TypeSymlink, Linkname: "/etc"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			for _, h := range tt.entries {
				h.Mode = 0o644
				tw.WriteHeader(&h)
			}
			tw.Close()
			parent := t.TempDir()
			dir := filepath.Join(parent, "ws")
			os.Mkdir(dir, 0o755)
			err := extractTo(&buf, dir)
			if (err != nil) != tt.wantErr {
				t.Errorf("extractTo() = %v, want error %v", err, tt.wantErr)
			}
			for _, p := range tt.absent {
				if _, err := os.Lstat(filepath.Join(parent, p)); err == nil {
					t.Errorf("%s was written outside the target", p)
				}
			}
			if _, err := os.Lstat(filepath.Join(dir, "abs")); err == nil {
				t.Errorf("a link to an absolute path was recreated")
			}
		})
	}
}

func TestFilesArchiveRefusesEscapes(t *testing.T) {
	for _, name := range []string{"../x", "/etc/passwd", "a/../../x"} {
		if _, err := FilesArchive(map[string][]byte{name: nil}); err == nil {
			t.Errorf("FilesArchive accepted %q", name)
		}
	}
	data, err := FilesArchive(map[string][]byte{"b/c.py": []byte("x"), "a.py": []byte("y")})
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(data))
	var names []string
	for h, err := tr.Next(); err == nil; h, err = tr.Next() {
		names = append(names, h.Name)
	}
	if len(names) != 2 || names[0] != "a.py" || names[1] != "b/c.py" {
		t.Errorf("entries %v, want sorted a.py, b/c.py", names)
	}
}
