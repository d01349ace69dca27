package repo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/capsulehq/capsule/pipeline/repocontext"
)

// TestReproPathSkipsDirectories: a directory where the reproducing test
// would go (issue 22) is passed over like a file, so the test is never
// written over a directory.
func TestReproPathSkipsDirectories(t *testing.T) {
	tests := []struct {
		name string
		make []string // paths to create; a trailing "/" makes a directory
		want string
	}{
		{"no tests directory", nil, "test_capsule_reproduction.py"},
		{"tests directory", []string{"tests/"}, "tests/test_capsule_reproduction.py"},
		{"a file there", []string{"tests/", "tests/test_capsule_reproduction.py"}, "tests/test_capsule_reproduction_2.py"},
		{"a directory there", []string{"tests/test_capsule_reproduction.py/", "tests/test_capsule_reproduction_2.py/"}, "tests/test_capsule_reproduction_3.py"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := t.TempDir()
			for _, p := range tt.make {
				full := filepath.Join(repo, filepath.FromSlash(p))
				if p[len(p)-1] == '/' {
					if err := os.MkdirAll(full, 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.WriteFile(full, []byte("x = 1\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := placeRepro(repo, nil, repocontext.Context{}).Path; got != tt.want {
				t.Errorf("placeRepro = %q, want %q", got, tt.want)
			}
		})
	}
}
