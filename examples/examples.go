// Package examples builds the example repository examples/calculator into
// the binary, for `capsule demo` and the tests that use it.
package examples

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

//go:embed all:calculator
var calculator embed.FS

// Calculator returns examples/calculator's files, a Python package with
// pytest tests whose statistics fail on an empty list, by slash-separated
// path, leaving out Python's caches.
func Calculator() map[string]string {
	files := map[string]string{}
	err := fs.WalkDir(calculator, "calculator", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "__pycache__":
			return fs.SkipDir
		case d.IsDir(), path.Ext(p) == ".pyc":
			return nil
		}
		data, err := calculator.ReadFile(p)
		if err != nil {
			return err
		}
		files[strings.TrimPrefix(p, "calculator/")] = string(data)
		return nil
	})
	if err != nil {
		panic("examples: " + err.Error()) // the embedded files are always readable
	}
	return files
}
