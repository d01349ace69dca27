package repocontext

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// skipDirs are the directory names never walked: version control,
// dependencies, virtual environments, caches and build output.
var skipDirs = map[string]bool{
	".git":         true,
	"node_modules": true,
	"vendor":       true,
	".venv":        true,
	"venv":         true,
	"__pycache__":  true,
	"dist":         true,
	"build":        true,
}

// irregular are the file modes that are never listed or read.
const irregular = fs.ModeNamedPipe | fs.ModeSocket | fs.ModeDevice | fs.ModeCharDevice | fs.ModeIrregular

// repo is a walked repository.
type repo struct {
	// dir is the repository's absolute path with symlinks resolved.
	dir string
	// root confines every read to dir, symlinks included.
	root *os.Root
	// files are the slash-separated paths of the files outside skipped
	// directories, in walk order (each directory's entries sorted by
	// name); symlinks included, named pipes, sockets and devices not.
	files []string
	// index maps a path to its position in files.
	index map[string]int
	// symlink marks the files that are symbolic links.
	symlink map[int]bool
	// byBase maps a base name to the files that have it.
	byBase map[string][]int
	// modules finds Python modules by dotted name.
	modules *moduleIndex
	// skip reports whether the walk skips a directory.
	skip func(rel, name string) bool
}

// openRepo walks the repository at dir, skipping skipDirs, hidden
// directories other than .github, and the directories exclude names.
func openRepo(dir string, exclude []string) (*repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("repocontext: %w", err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, fmt.Errorf("repocontext: resolve repository: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("repocontext: open repository: %w", err)
	}
	r := &repo{
		dir:     abs,
		root:    root,
		index:   make(map[string]int),
		symlink: make(map[int]bool),
		byBase:  make(map[string][]int),
		skip:    newDirFilter(exclude),
	}
	prefix := abs
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == abs {
				return err
			}
			return nil // an unreadable subdirectory: leave it out
		}
		if p == abs {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, prefix))
		switch t := d.Type(); {
		case t.IsDir():
			if r.skip(rel, d.Name()) {
				return fs.SkipDir
			}
		case t&irregular == 0:
			r.add(rel, t&fs.ModeSymlink != 0)
		}
		return nil
	})
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("repocontext: walk repository: %w", err)
	}
	r.modules = newModuleIndex(r.files)
	return r, nil
}

// add records one file.
func (r *repo) add(rel string, symlink bool) {
	i := len(r.files)
	r.files = append(r.files, rel)
	r.index[rel] = i
	if symlink {
		r.symlink[i] = true
	}
	base := path.Base(rel)
	r.byBase[base] = append(r.byBase[base], i)
}

// inSkipped reports whether slash path rel lies in a directory the walk
// skips.
func (r *repo) inSkipped(rel string) bool {
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		if r.skip(dir, path.Base(dir)) {
			return true
		}
	}
	return false
}

// close releases the repository's root.
func (r *repo) close() { r.root.Close() }

// newDirFilter returns whether to skip the directory at rel named name.
func newDirFilter(exclude []string) func(rel, name string) bool {
	names := make(map[string]bool)
	paths := make(map[string]bool)
	for _, e := range exclude {
		e = strings.Trim(filepath.ToSlash(e), "/")
		if strings.Contains(e, "/") {
			paths[e] = true
		} else if e != "" {
			names[e] = true
		}
	}
	return func(rel, name string) bool {
		if skipDirs[name] || names[name] || paths[rel] {
			return true
		}
		return strings.HasPrefix(name, ".") && name != ".github"
	}
}
