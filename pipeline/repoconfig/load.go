package repoconfig

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Load reads the configuration of the repository checked out at repoDir
// from Path or AltPath, and returns the defaults when neither exists. It
// reads through an os.Root, so a symbolic link cannot lead it out of the
// repository.
func Load(repoDir string) (Config, error) {
	root, err := os.OpenRoot(repoDir)
	if err != nil {
		return Config{}, fmt.Errorf("open repository: %w", err)
	}
	defer root.Close()

	var name string
	var data []byte
	for _, candidate := range []string{Path, AltPath} {
		b, err := readFile(root.FS(), candidate, MaxSize+1)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Config{}, fmt.Errorf("read %s: %w", candidate, err)
		}
		if name != "" {
			return Config{}, fmt.Errorf("both %s and %s exist: keep only one", name, candidate)
		}
		name, data = candidate, b
	}
	if name == "" {
		return Default(), nil
	}
	return Parse(name, data)
}

// errNotRegular is returned for a path that is not a regular file.
var errNotRegular = errors.New("not a regular file")

// readFile reads at most limit bytes of the regular file name. Refusing
// anything else keeps a named pipe from blocking the read.
func readFile(fsys fs.FS, name string, limit int64) ([]byte, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}
