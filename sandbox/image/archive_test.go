package image

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zipOf builds a zip of name → content; a name ending in / is a folder,
// content "x" marks an executable.
func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, content := range files {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(0o644)
		if content == "x" {
			h.SetMode(0o755)
		}
		if strings.HasSuffix(name, "/") {
			h.SetMode(0o755 | os.ModeDir)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// TestArchiveUnpack unpacks a zip under Dest without its top folder,
// keeping execute bits, and refuses a download whose hash differs or a
// name outside the top folder.
func TestArchiveUnpack(t *testing.T) {
	good := zipOf(t, map[string]string{"mod@v1/": "", "mod@v1/bin/go": "x", "mod@v1/src/a.go": "package a\n"})
	outside := zipOf(t, map[string]string{"mod@v1/bin/go": "x", "other/evil": "boom"})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good.zip":
			w.Write(good)
		case "/outside.zip":
			w.Write(outside)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	tests := []struct {
		name, path, sha, wantErr string
	}{
		{name: "unpacked", path: "/good.zip", sha: sum(good)},
		{name: "another hash", path: "/good.zip", sha: sum(outside), wantErr: "the recipe pins " + sum(outside)},
		{name: "outside the top folder", path: "/outside.zip", sha: sum(outside), wantErr: `"other/evil" is outside mod@v1/`},
		{name: "not found", path: "/missing.zip", sha: sum(good), wantErr: "404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			a := Archive{URL: srv.URL + tt.path, SHA256: tt.sha, Strip: "mod@v1", Dest: "/usr/local/go"}
			err := a.unpack(context.Background(), dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("unpack() = %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(filepath.Join(dir, "usr/local/go/bin/go"))
			if err != nil || info.Mode().Perm() != 0o755 {
				t.Fatalf("bin/go: %v, %v; want mode 0755", info, err)
			}
			if data, err := os.ReadFile(filepath.Join(dir, "usr/local/go/src/a.go")); err != nil || string(data) != "package a\n" {
				t.Fatalf("src/a.go = %q, %v", data, err)
			}
		})
	}
}

// TestArchivesInHash rebuilds an image whose pinned archive changes.
func TestArchivesInHash(t *testing.T) {
	r := Go
	r.Archives = []Archive{Go.Archives[0]}
	r.Archives[0].SHA256 = strings.Repeat("0", 64)
	if r.Hash() == Go.Hash() {
		t.Fatal("a new archive hash leaves the recipe's hash alone")
	}
}
