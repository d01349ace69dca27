// Package goldenfile compares test output with golden files, or rewrites
// them when a test package's -update flag is set.
package goldenfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Check compares got with the file at path; with update it writes got
// there instead, creating the directory.
func Check(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run the test with -update if the change is right):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
