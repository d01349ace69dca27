package image

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestHostMirror(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		want    Source
		wantErr string
	}{
		{
			name: "deb822 with security suite first",
			files: map[string]string{
				"sources.list.d/debian.sources": "Types: deb\nURIs: http://security.example/debian-security\nSuites: bookworm-security\nComponents: main\n\n" +
					"Types: deb deb-src\n# a comment\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/k.gpg\n",
			},
			want: Source{URI: "http://mirror.example/debian", Suite: "bookworm"},
		},
		{
			name: "one-line format with options",
			files: map[string]string{
				"sources.list": "# deb http://old.example/debian bookworm main\ndeb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main\n",
			},
			want: Source{URI: "http://mirror.example/debian", Suite: "bookworm"},
		},
		{
			name:    "disabled stanza only",
			files:   map[string]string{"sources.list.d/x.sources": "Enabled: no\nTypes: deb\nURIs: http://m.example/\nSuites: bookworm\n"},
			wantErr: `no apt source for "bookworm"`,
		},
		{
			name:    "other release",
			files:   map[string]string{"sources.list": "deb http://m.example/debian trixie main\n"},
			wantErr: `no apt source for "bookworm"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, "sources.list.d"), 0o755)
			for name, body := range tt.files {
				os.WriteFile(filepath.Join(root, name), []byte(body), 0o644)
			}
			os.WriteFile(filepath.Join(root, "os-release"), []byte("NAME=\"Debian GNU/Linux\"\nVERSION_CODENAME=bookworm\n"), 0o644)
			setPaths(t, root)
			got, err := HostMirror()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("HostMirror() = %v, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("HostMirror() = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestHostSources gives the chroot the host's release with its updates
// and security archives, and nothing of other releases or other vendors.
func TestHostSources(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "sources.list.d"), 0o755)
	os.WriteFile(filepath.Join(root, "sources.list.d/debian.sources"), []byte(
		"Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /k.gpg\n\n"+
			"Types: deb\nURIs: http://security.example/debian-security\nSuites: bookworm-security\nComponents: main contrib\n"), 0o644)
	os.WriteFile(filepath.Join(root, "sources.list.d/vendor.list"), []byte(
		"deb [signed-by=/v.gpg] https://vendor.example/apt cloud-sdk-bookworm main\ndeb http://mirror.example/debian trixie main\n"), 0o644)
	os.WriteFile(filepath.Join(root, "sources.list.d/node.sources.disabled"), []byte(
		"Types: deb\nURIs: https://node.example/\nSuites: bookworm\n"), 0o644)
	os.WriteFile(filepath.Join(root, "os-release"), []byte("VERSION_CODENAME=bookworm\n"), 0o644)
	setPaths(t, root)
	got, err := HostSources()
	want := []string{
		"deb http://mirror.example/debian bookworm main",
		"deb http://mirror.example/debian bookworm-updates main",
		"deb http://security.example/debian-security bookworm-security main contrib",
	}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("HostSources() = %q, %v; want %q", got, err, want)
	}
}

func TestHostMirrorNeedsDebian(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "os-release"), []byte("NAME=Fedora\n"), 0o644)
	setPaths(t, root)
	if _, err := HostMirror(); err == nil || !strings.Contains(err.Error(), "needs a Debian host") {
		t.Fatalf("HostMirror() = %v, want a clear error", err)
	}
}

func setPaths(t *testing.T, root string) {
	oldList, oldDir, oldRelease := aptSourcesList, aptSourcesDir, osRelease
	aptSourcesList = filepath.Join(root, "sources.list")
	aptSourcesDir = filepath.Join(root, "sources.list.d")
	osRelease = filepath.Join(root, "os-release")
	t.Cleanup(func() { aptSourcesList, aptSourcesDir, osRelease = oldList, oldDir, oldRelease })
}

// TestDockerfileGolden keeps each recipe's Dockerfile as reviewed; the
// default one must not change, or every installed image is rebuilt.
func TestDockerfileGolden(t *testing.T) {
	for _, r := range Recipes() {
		t.Run(r.Key, func(t *testing.T) {
			path := "testdata/Dockerfile.golden"
			if r.Key != Python.Key {
				path = "testdata/Dockerfile." + r.Key + ".golden"
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Dockerfile(); got != string(want) {
				t.Errorf("%s changed; got:\n%s", path, got)
			}
			if len(r.Hash()) != 16 {
				t.Errorf("Hash() = %q", r.Hash())
			}
			if got, ok := Lookup(r.Key); !ok || got.Name != r.Name {
				t.Errorf("Lookup(%q) = %v, %v", r.Key, got.Name, ok)
			}
		})
	}
}
