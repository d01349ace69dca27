package edits

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// target is where an edit lands once symbolic links are resolved.
type target struct {
	path string      // clean, slash-separated, free of symbolic links
	info fs.FileInfo // nil when the file does not exist yet
}

// resolver follows paths through a repository on disk. It only reads.
type resolver struct {
	root     string // the repository as given
	realRoot string // the repository with its own symbolic links resolved
}

func newResolver(repoDir string) (resolver, error) {
	abs, err := filepath.Abs(repoDir)
	if err != nil {
		return resolver{}, fmt.Errorf("repository %s: %w", repoDir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return resolver{}, fmt.Errorf("repository %s: %w", repoDir, err)
	}
	return resolver{root: abs, realRoot: real}, nil
}

// resolve walks the clean path p one component at a time. It follows
// symbolic links to directories that stay inside the repository and refuses
// every other link, and it stops at the first component that does not exist
// yet: the rest will be created. The error text is written for the agent.
func (r resolver) resolve(p string) (target, error) {
	parts := strings.Split(p, "/")
	cur := "" // the resolved part of p
	for i, part := range parts {
		next := path.Join(cur, part)
		last := i == len(parts)-1
		info, err := os.Lstat(r.abs(next))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return target{path: path.Join(append([]string{next}, parts[i+1:]...)...)}, nil
		case err != nil:
			return target{}, fmt.Errorf("cannot check %s: %v", p, err)
		case info.Mode()&fs.ModeSymlink != 0:
			dest, err := r.follow(next)
			if err != nil {
				return target{}, fmt.Errorf("%s %v", p, err)
			}
			if last {
				return target{}, fmt.Errorf("%s is a symbolic link to %s; write that file instead", p, orDot(dest))
			}
			if fi, err := os.Stat(r.abs(dest)); err != nil || !fi.IsDir() {
				return target{}, fmt.Errorf("%s cannot be written: %s is a symbolic link to a file, not a directory", p, next)
			}
			cur = dest
		case !last && !info.IsDir():
			return target{}, fmt.Errorf("%s cannot be written: %s is a file, not a directory", p, next)
		case last && info.IsDir():
			return target{}, fmt.Errorf("%s is a directory, not a file", p)
		case last && !info.Mode().IsRegular():
			return target{}, fmt.Errorf("%s is not a regular file", p)
		case last:
			return target{path: next, info: info}, nil
		default:
			cur = next
		}
	}
	panic("unreachable: the last component always returns")
}

// follow resolves the symbolic link at the clean path p and returns its
// destination relative to the repository root. The error completes a
// sentence that starts with the path.
func (r resolver) follow(p string) (string, error) {
	dest, err := filepath.EvalSymlinks(r.abs(p))
	if err != nil {
		return "", errors.New("goes through a symbolic link that cannot be resolved")
	}
	rel, err := filepath.Rel(r.realRoot, dest)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errors.New("resolves outside the repository through a symbolic link")
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}

// orDot returns p, or "." for the repository root.
func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// abs returns the absolute file name of the clean path p.
func (r resolver) abs(p string) string {
	return filepath.Join(r.root, filepath.FromSlash(p))
}
