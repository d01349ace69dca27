package edits

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
)

// newFileMode is the permission of a file that an edit creates.
const newFileMode fs.FileMode = 0o644

// Apply writes the edits into dir, a copy of the repository: it creates
// parent directories as needed, keeps the permission bits of a file it
// replaces, gives new files mode 0644 and deletes the files of edits that delete. As
// in Diff, the last edit of a file wins and deleting a missing file does
// nothing.
//
// Apply expects edits accepted by Check but trusts none: it checks every
// path again before writing anything, and refuses a path that leaves dir,
// that goes through a symbolic link or that names something other than a
// regular file. Writes go through an os.Root, so a concurrent change to the
// tree cannot redirect them outside dir either. A file is replaced by
// renaming a new file over it, which never writes through a hard link.
func Apply(dir string, edits []Edit) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("apply edits: %w", err)
	}
	defer root.Close()

	type write struct {
		Edit
		info fs.FileInfo // nil for a new file
	}
	writes := make(map[string]write, len(edits)) // the last edit of each file
	for _, e := range edits {
		p, err := cleanPath(e.Path)
		if err != nil {
			return fmt.Errorf("apply edit to %q: %w", e.Path, err)
		}
		info, err := lstatStrict(root, p)
		if err != nil {
			return fmt.Errorf("apply edit to %s: %w", p, err)
		}
		writes[p] = write{Edit{Path: p, Content: e.Content, Delete: e.Delete}, info}
	}
	for _, p := range slices.Sorted(maps.Keys(writes)) {
		w := writes[p]
		var err error
		switch {
		case w.Delete && w.info == nil:
			continue // already gone, as Diff sees it too
		case w.Delete:
			err = root.Remove(p)
		case w.info != nil:
			err = writeFile(root, p, w.Content, w.info.Mode().Perm())
		default:
			err = writeFile(root, p, w.Content, newFileMode)
		}
		if err != nil {
			return fmt.Errorf("apply edit to %s: %w", p, err)
		}
	}
	return nil
}

// writeFile replaces or creates the file p below root with content and mode:
// it writes a temporary file in the same directory and renames it over p.
func writeFile(root *os.Root, p, content string, mode fs.FileMode) (err error) {
	dir := path.Dir(p)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory: %w", err)
	}
	tmp := path.Join(dir, ".capsule-"+rand.Text())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create file: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, ignoreNotExist(root.Remove(tmp)))
		}
	}()
	_, err = f.WriteString(content)
	if err == nil {
		err = f.Chmod(mode) // on the open file: not subject to the umask or a race
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write file: %w", err)
	}
	if err := root.Rename(tmp, p); err != nil {
		return fmt.Errorf("replace file: %w", err)
	}
	return nil
}

// ignoreNotExist returns err unless it says that a file does not exist.
func ignoreNotExist(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
