package repoconfig

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeRepo creates a repository in a temporary directory holding files,
// a map from slash-separated path to content.
func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		source  string // the wanted Source; "" for the defaults
		test    string
		wantErr string
	}{
		{name: "no config", files: map[string]string{"README.md": "hi"}},
		{name: "no .github", files: nil},
		{name: "yml", files: map[string]string{Path: "test: make test\n"}, source: Path, test: "make test"},
		{name: "yaml", files: map[string]string{AltPath: "test: tox\n"}, source: AltPath, test: "tox"},
		{name: "empty file", files: map[string]string{Path: ""}, source: Path},
		{
			name:    "both",
			files:   map[string]string{Path: "test: a\n", AltPath: "test: b\n"},
			wantErr: "both .github/capsule.yml and .github/capsule.yaml exist: keep only one",
		},
		{
			name:    "invalid",
			files:   map[string]string{AltPath: "label: capsule\ntset: make\n"},
			wantErr: `.github/capsule.yaml:2: unknown key "tset" (did you mean "test"?)`,
		},
		{
			name:    "a directory",
			files:   map[string]string{Path + "/x": ""},
			wantErr: "read .github/capsule.yml: not a regular file",
		},
		{
			name:    "too large",
			files:   map[string]string{Path: strings.Repeat("#\n", MaxSize)},
			wantErr: ".github/capsule.yml: file is larger than the 64 KiB limit",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load(writeRepo(t, tt.files))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Load = %+v, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			want := Default()
			want.Source, want.Test = tt.source, tt.test
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Load =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// TestLoadSymlinkEscape checks that a configuration cannot be a link to a
// file outside the repository.
func TestLoadSymlinkEscape(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.yml")
	if err := os.WriteFile(outside, []byte("test: leak\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := writeRepo(t, map[string]string{".github/README": ""})
	if err := os.Symlink(outside, filepath.Join(repo, filepath.FromSlash(Path))); err != nil {
		t.Fatal(err)
	}
	c, err := Load(repo)
	if err == nil {
		t.Fatalf("Load followed a link out of the repository: %+v", c)
	}
	if !strings.HasPrefix(err.Error(), "read "+Path+": ") {
		t.Errorf("Load error = %v; want it to name %s", err, Path)
	}
}

func TestLoadSymlinkInside(t *testing.T) {
	repo := writeRepo(t, map[string]string{"config/capsule.yml": "history: 3\n"})
	if err := os.Mkdir(filepath.Join(repo, ".github"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../config/capsule.yml", filepath.Join(repo, filepath.FromSlash(Path))); err != nil {
		t.Fatal(err)
	}
	c, err := Load(repo)
	if err != nil || c.History != 3 {
		t.Errorf("Load = %+v, %v; want history 3", c, err)
	}
}

func TestLoadNoRepository(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing directory = %v; want an error wrapping os.ErrNotExist", err)
	}
}

func TestLoadUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their mode")
	}
	repo := writeRepo(t, map[string]string{Path: "test: make\n"})
	if err := os.Chmod(filepath.Join(repo, filepath.FromSlash(Path)), 0); err != nil {
		t.Fatal(err)
	}
	_, err := Load(repo)
	if !errors.Is(err, os.ErrPermission) {
		t.Errorf("Load = %v; want an error wrapping os.ErrPermission", err)
	}
}
