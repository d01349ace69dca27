// Package testdata locates the data files the tests read, all of which live
// in the repository: the benchmark datasets under datasets/ (see each
// folder's SOURCE.txt) and the test-only files in this folder, GitHub's
// OpenAPI description (openapi/) and its recorded webhook payload examples
// (webhooks/).
package testdata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Path returns the path of testsupport/testdata/<elem...>, failing the test if
// it does not exist.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	return file(t, append([]string{"testsupport", "testdata"}, elem...))
}

// Dataset returns the path of datasets/<elem...>, failing the test if it
// does not exist.
func Dataset(t testing.TB, elem ...string) string {
	t.Helper()
	return file(t, append([]string{"datasets"}, elem...))
}

func file(t testing.TB, elem []string) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatalf("testdata: %v", err)
	}
	p := filepath.Join(append([]string{root}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("testdata: %v", err)
	}
	return p
}

// moduleRoot is the nearest folder holding go.mod, going up from the
// working directory (a test runs in its package's folder).
var moduleRoot = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
})
