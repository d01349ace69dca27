package job

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tarball builds a gzipped tarball of entries.
func tarball(t *testing.T, entries ...tar.Header) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, h := range entries {
		body := h.Linkname
		if h.Typeflag == tar.TypeReg {
			body = "content of " + h.Name
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(body))
		}
	}
	tw.Close()
	gz.Close()
	return &buf
}

func file(name string, mode int64) tar.Header {
	return tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: mode}
}

func TestUntar(t *testing.T) {
	dir := t.TempDir()
	err := untar(tarball(t,
		tar.Header{Name: "pax_global_header", Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": "abc"}},
		tar.Header{Name: "octo-calc-1234567/", Typeflag: tar.TypeDir, Mode: 0o755},
		file("octo-calc-1234567/calc/ops.py", 0o644),
		file("octo-calc-1234567/run.sh", 0o755),
		tar.Header{Name: "octo-calc-1234567/link", Typeflag: tar.TypeSymlink, Linkname: "calc/ops.py"},
	), dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "calc", "ops.py"))
	if err != nil || string(data) != "content of octo-calc-1234567/calc/ops.py" {
		t.Errorf("calc/ops.py = %q, %v", data, err)
	}
	if info, err := os.Stat(filepath.Join(dir, "run.sh")); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("run.sh lost its executable bit: %v %v", info.Mode(), err)
	}
	if target, err := os.Readlink(filepath.Join(dir, "link")); err != nil || target != "calc/ops.py" {
		t.Errorf("link = %q, %v", target, err)
	}
	if got := fileMode(dir, "run.sh"); got != "100755" {
		t.Errorf("fileMode(run.sh) = %s", got)
	}
	if got := fileMode(dir, "calc/ops.py"); got != "100644" {
		t.Errorf("fileMode(calc/ops.py) = %s", got)
	}
}

func TestUntarStaysInside(t *testing.T) {
	tests := []struct {
		name    string
		entries []tar.Header
		wantErr string
	}{
		{"dot-dot is dropped", []tar.Header{file("top/../../evil.py", 0o644)}, ""},
		{"absolute is dropped", []tar.Header{file("top//etc/evil", 0o644)}, ""},
		{"write through an escaping link", []tar.Header{
			{Name: "top/out", Typeflag: tar.TypeSymlink, Linkname: "../../.."},
			file("top/out/evil.py", 0o644),
		}, "evil.py"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "tree")
			os.Mkdir(dir, 0o755)
			err := untar(tarball(t, tt.entries...), dir)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("untar: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("untar error = %v, want one naming %q", err, tt.wantErr)
			}
			entries, _ := os.ReadDir(parent)
			if len(entries) != 1 {
				t.Errorf("something was written outside the tree: %v", entries)
			}
		})
	}
}

func TestUntarRejectsGarbage(t *testing.T) {
	if err := untar(strings.NewReader("not a tarball"), t.TempDir()); err == nil {
		t.Error("untar accepted a body that is not gzip")
	}
}

func TestStripTop(t *testing.T) {
	for name, want := range map[string]string{
		"top/":          "",
		"top/a.py":      "a.py",
		"top/dir/":      "dir",
		"./top/b/c.py":  "b/c.py",
		"top/../x":      "",
		"top//abs":      "",
		"no-top-dir":    "",
		"top/a/../b.py": "",
	} {
		if got := stripTop(name); got != want {
			t.Errorf("stripTop(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestRank(t *testing.T) {
	tests := []struct {
		have, need string
		ok         bool
	}{
		{"admin", "write", true},
		{"maintain", "write", true},
		{"write", "write", true},
		{"triage", "write", false},
		{"read", "write", false},
		{"none", "read", false},
		{"", "read", false},
		{"triage", "triage", true},
		{"WRITE", "write", true},
	}
	for _, tt := range tests {
		if got := rank(tt.have) >= rank(tt.need); got != tt.ok {
			t.Errorf("%s enough for %s: %v, want %v", tt.have, tt.need, got, tt.ok)
		}
	}
	if ValidPermission("owner") || !ValidPermission("maintain") || ValidPermission("none") {
		t.Error("ValidPermission misjudges")
	}
}
