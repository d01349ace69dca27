package repocontext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkPrefix marks a writeRepo entry as a symlink to the rest of the value.
const linkPrefix = "-> "

// writeRepo writes files, slash paths to contents, into a new temporary
// directory and returns it. A content starting with linkPrefix makes a
// symlink to the rest instead.
func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if target, ok := strings.CutPrefix(content, linkPrefix); ok {
			err = os.Symlink(filepath.FromSlash(target), full)
		} else {
			err = os.WriteFile(full, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// includedPaths lists the included files as "path (why)", read-only ones
// marked.
func includedPaths(ctx Context) []string {
	var out []string
	for _, in := range ctx.Included {
		s := in.Path + " (" + in.Why + ")"
		if in.ReadOnly {
			s = in.Path + " (read-only) (" + in.Why + ")"
		}
		out = append(out, s)
	}
	return out
}

// omittedPaths lists the omitted files as "path: why".
func omittedPaths(ctx Context) []string {
	var out []string
	for _, o := range ctx.Omitted {
		out = append(out, o.Path+": "+o.Why)
	}
	return out
}
