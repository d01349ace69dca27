// Package testdata locates the shared data beside the repository (datasets,
// GitHub's OpenAPI description, webhook payloads) for tests. A missing
// folder fails the test under CI and skips it elsewhere.
package testdata

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Shared returns the path of ../shared/data/<elem...> next to the module
// root.
func Shared(t testing.TB, elem ...string) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("find the module root: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	p := filepath.Join(append([]string{root, "..", "shared", "data"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("shared data missing under CI: %v", err)
		}
		t.Skipf("shared data missing: %v", err)
	}
	return p
}
