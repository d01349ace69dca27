package job

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/internal/tarx"
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
	var logs bytes.Buffer
	err := untar(tarball(t,
		tar.Header{Name: "pax_global_header", Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": "abc"}},
		tar.Header{Name: "octo-calc-1234567/", Typeflag: tar.TypeDir, Mode: 0o755},
		file("octo-calc-1234567/calc/ops.py", 0o644),
		file("octo-calc-1234567/run.sh", 0o755),
		tar.Header{Name: "octo-calc-1234567/link", Typeflag: tar.TypeSymlink, Linkname: "calc/ops.py"},
	), dir, slog.New(slog.NewTextHandler(&logs, nil)))
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
	if logs.Len() != 0 {
		t.Errorf("untar logged %q for a clean archive", logs.String())
	}
}

// TestUntarLeavesOutHostileEntries checks the job's use of tarx (whose own
// tests cover its rules): an entry that could reach outside the tree is
// left out and logged, and the rest of the repository still unpacks.
func TestUntarLeavesOutHostileEntries(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "tree")
	os.Mkdir(dir, 0o755)
	var logs bytes.Buffer
	err := untar(tarball(t,
		file("top/../../evil.py", 0o644),
		tar.Header{Name: "top/out", Typeflag: tar.TypeSymlink, Linkname: "../../.."},
		tar.Header{Name: "top/dev", Typeflag: tar.TypeChar},
		file("top/ok.py", 0o644),
	), dir, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatalf("untar: %v", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("something was written outside the tree: %v", entries)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || entries[0].Name() != "ok.py" {
		t.Errorf("the tree holds %v, want ok.py alone", entries)
	}
	for _, name := range []string{"top/../../evil.py", "top/out", "top/dev"} {
		if !strings.Contains(logs.String(), "entry="+name) {
			t.Errorf("log %q does not name %s", logs.String(), name)
		}
	}
}

func TestUntarLimits(t *testing.T) {
	// A header that claims more than MaxArchiveBytes, without the bytes.
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: "top/huge", Typeflag: tar.TypeReg, Mode: 0o644, Size: MaxArchiveBytes + 1}); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	err := untar(&buf, t.TempDir(), slog.New(slog.DiscardHandler))
	if !errors.Is(err, tarx.ErrTooLarge) {
		t.Errorf("untar of a file of %d bytes: %v, want tarx.ErrTooLarge", MaxArchiveBytes+1, err)
	}
}

func TestUntarRejectsGarbage(t *testing.T) {
	if err := untar(strings.NewReader("not a tarball"), t.TempDir(), slog.New(slog.DiscardHandler)); err == nil {
		t.Error("untar accepted a body that is not gzip")
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
