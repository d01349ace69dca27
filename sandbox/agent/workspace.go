//go:build linux

package agent

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// committed records that Layer holds the starting state.
var committed bool

// restore empties the workspace and /tmp, copies the starting state back
// (the pristine base, or the committed layer), lays the overlay archive
// over it and removes the files named in remove.
func restore(overlay []byte, remove []string) error {
	for _, dir := range []string{Workspace, TmpDir} {
		if err := removeContents(dir); err != nil {
			return err
		}
	}
	from := Base
	if committed {
		from = Layer
	}
	if err := copyTree(from, Workspace); err != nil {
		return fmt.Errorf("restore the workspace: %w", err)
	}
	if len(overlay) > 0 {
		if err := extract(bytes.NewReader(overlay), Workspace); err != nil {
			return fmt.Errorf("apply files: %w", err)
		}
	}
	for _, name := range remove {
		clean := filepath.Clean(name)
		if !filepath.IsLocal(clean) {
			return fmt.Errorf("delete %q: outside the workspace", name)
		}
		if err := os.Remove(filepath.Join(Workspace, clean)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", name, err)
		}
	}
	return nil
}

// commit makes the workspace the starting state of later runs. The layer
// is made read-only so that a run cannot change it by accident; the
// sandbox user owns it, so a run that means to could, which is why only
// set-up phases commit.
func commit() error {
	if err := removeContents(Layer); err != nil {
		return err
	}
	if err := copyTree(Workspace, Layer); err != nil {
		return fmt.Errorf("commit the workspace: %w", err)
	}
	committed = true
	return filepath.WalkDir(Layer, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == Layer || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chmod(path, info.Mode().Perm()&^0o222)
	})
}

// removeContents deletes everything inside dir, first making directories
// that a run may have locked (chmod 000) writable again.
func removeContents(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("clean %s: %w", dir, err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if os.RemoveAll(p) == nil {
			continue
		}
		unlock(p)
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("clean %s: %w", dir, err)
		}
	}
	return nil
}

// unlock gives the owner full access to every directory below p.
func unlock(p string) {
	_ = os.Chmod(p, 0o700)
	_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
}

// copyTree copies src into dst, which exists. Files become writable by
// their new owner; symbolic links are copied as links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == src {
			return fs.SkipAll // no base: an empty workspace
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil || rel == "." {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(target, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(path, target, info.Mode().Perm()|0o200)
		default:
			return nil // devices, sockets and pipes are not copied
		}
	})
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// extract unpacks a tar archive into dir, refusing entries that would land
// outside it.
func extract(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(hdr.Name)
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("entry %q leaves the workspace", hdr.Name)
		}
		target := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		mode := fs.FileMode(hdr.Mode).Perm() | 0o600
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, mode|0o700); err != nil {
				return err
			}
		case tar.TypeReg:
			_ = os.Remove(target)
			f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
			if err != nil {
				return err
			}
			if _, err := io.Copy(f, tr); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		case tar.TypeSymlink:
			_ = os.Remove(target)
			if err := os.Symlink(hdr.Linkname, target); err != nil {
				return err
			}
		}
	}
}

// archiveDir returns a tar archive of the tree below dir.
func archiveDir(dir string) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if d.Type()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(path); err != nil {
				return err
			}
		} else if !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		hdr, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if d.Type().IsRegular() {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(tw, f)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
