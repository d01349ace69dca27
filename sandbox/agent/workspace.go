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
	"syscall"

	"github.com/capsulehq/capsule/internal/tarx"
)

// restore empties every place a run may write and every System V IPC
// object, copies the starting state back into the workspace (the pristine
// base, or the committed layer), lays the overlay archive over it and
// removes the files named in remove. Whatever a run did to the modes of
// these places, the agent, as root with CAP_DAC_OVERRIDE and CAP_FOWNER,
// can undo it.
func (b *box) restore(overlay []byte, remove []string) error {
	for _, p := range b.scratch {
		if err := removeContents(p.dir); err != nil {
			return err
		}
		if err := resetDir(p.dir, p.mode, p.uid, p.gid); err != nil {
			return err
		}
	}
	if err := b.removeIPC(b.uid); err != nil {
		return fmt.Errorf("remove System V IPC objects: %w", err)
	}
	if err := removeContents(b.workspace); err != nil {
		return err
	}
	if err := resetDir(b.workspace, 0o755, b.uid, b.gid); err != nil {
		return err
	}
	ws, err := os.OpenRoot(b.workspace)
	if err != nil {
		return err
	}
	defer ws.Close()
	if !b.committed && b.layerMark != "" {
		_, err := os.Lstat(b.layerMark)
		b.committed = err == nil
	}
	from := b.base
	if b.committed {
		from = b.layer
	}
	if err := copyTree(from, ws, b.uid, b.gid); err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			return fmt.Errorf("the starting workspace does not fit the disk quota (bytes or files): %w", err)
		}
		return fmt.Errorf("restore the workspace: %w", err)
	}
	if len(overlay) > 0 {
		if err := overlayFiles(ws, overlay, b.uid, b.gid); err != nil {
			return fmt.Errorf("apply files: %w", err)
		}
	}
	for _, name := range remove {
		clean := filepath.Clean(name)
		if !filepath.IsLocal(clean) {
			return fmt.Errorf("delete %q: outside the workspace", name)
		}
		if err := ws.Remove(clean); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", name, err)
		}
	}
	return nil
}

// resetDir gives dir its mode and owner back, in case a run changed them.
// A place that does not exist (an image without /dev/mqueue) is skipped.
func resetDir(dir string, mode fs.FileMode, uid, gid int) error {
	err := os.Lchown(dir, uid, gid)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = os.Chmod(dir, mode)
	}
	if err != nil {
		return fmt.Errorf("reset %s: %w", dir, err)
	}
	return nil
}

// commit makes the workspace the starting state of later runs. The layer
// belongs to root and sits in a directory the sandbox user cannot enter,
// so no later run can change it.
func (b *box) commit() error {
	if err := removeContents(b.layer); err != nil {
		return err
	}
	layer, err := os.OpenRoot(b.layer)
	if err != nil {
		return fmt.Errorf("commit the workspace: %w", err)
	}
	defer layer.Close()
	if err := copyTree(b.workspace, layer, 0, 0); err != nil {
		return fmt.Errorf("commit the workspace: %w", err)
	}
	b.committed = true
	return nil
}

// removeContents deletes everything inside dir. The agent may remove what
// a run locked (chmod 000), since it has CAP_DAC_OVERRIDE.
func removeContents(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("clean %s: %w", dir, err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("clean %s: %w", dir, err)
		}
	}
	return nil
}

// copyTree copies the tree below src into dst, owned by uid and gid.
// Files become writable by their owner; symbolic links are copied as
// links; nothing is written outside dst, whatever links it holds.
func copyTree(src string, dst *os.Root, uid, gid int) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == src {
			return fs.SkipAll // no base: an empty workspace
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := dst.Mkdir(rel, info.Mode().Perm()|0o700); err != nil {
				return err
			}
			return lchown(dst, rel, uid, gid)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if err := dst.Symlink(link, rel); err != nil {
				return err
			}
			return lchown(dst, rel, uid, gid)
		case d.Type().IsRegular():
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			defer in.Close()
			return writeFile(dst, rel, in, info.Mode().Perm()|0o200, uid, gid)
		default:
			return nil // devices, sockets and pipes are not copied
		}
	})
}

// writeFile creates name in dst from r, owned by uid and gid.
func writeFile(dst *os.Root, name string, r io.Reader, mode fs.FileMode, uid, gid int) error {
	out, err := dst.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if err := chownFile(out, uid, gid); err != nil {
		out.Close()
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// lchown gives name in dst to uid and gid, unless they are root's, who
// created it.
func lchown(dst *os.Root, name string, uid, gid int) error {
	if uid == 0 && gid == 0 {
		return nil
	}
	return dst.Lchown(name, uid, gid)
}

func chownFile(f *os.File, uid, gid int) error {
	if uid == 0 && gid == 0 {
		return nil
	}
	return f.Chown(uid, gid)
}

// overlayFiles lays the overlay archive over the workspace, owned by uid
// and gid, the sandbox user. The host sends clean names only, so an entry
// tarx refuses (one that would be written through a symbolic link) fails
// the run.
func overlayFiles(ws *os.Root, overlay []byte, uid, gid int) error {
	refused, err := tarx.Extract(bytes.NewReader(overlay), ws, tarx.Options{UID: uid, GID: gid})
	for _, r := range refused {
		err = errors.Join(err, fmt.Errorf("%s is refused: %s", r.Name, r.Reason))
	}
	return err
}

// errCollectLimit is the error of a workspace too large to send.
var errCollectLimit = errors.New("the workspace archive is larger than the limit")

// limitedBuffer is a buffer that refuses to grow past max bytes.
type limitedBuffer struct {
	bytes.Buffer
	max int64
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if int64(b.Len()+len(p)) > b.max {
		return 0, fmt.Errorf("%w of %d bytes", errCollectLimit, b.max)
	}
	return b.Buffer.Write(p)
}

// archiveDir returns a tar archive of the tree below dir, of at most
// limit bytes.
func archiveDir(dir string, limit int64) ([]byte, error) {
	return archiveTree(dir, limit, nil)
}

// archiveTree returns a tar archive of the entries below dir that keep
// takes (all when keep is nil), of at most limit bytes. keep sees each
// entry's path relative to dir, slash-separated, and its information; it
// may return fs.SkipDir or fs.SkipAll as for filepath.WalkDir.
func archiveTree(dir string, limit int64, keep func(rel string, d fs.DirEntry, info fs.FileInfo) (bool, error)) ([]byte, error) {
	buf := &limitedBuffer{max: limit}
	tw := tar.NewWriter(buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if keep != nil {
			if ok, err := keep(filepath.ToSlash(rel), d, info); !ok || err != nil {
				return err
			}
		}
		link := ""
		if d.Type()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
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
			f, err := os.Open(p)
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

// quotaFree is how little free space of the workspace counts as full: a
// write that fails for want of space leaves less than a page.
const quotaFree = 64 << 10

// quotaReached reports whether dir's filesystem has no room left for
// bytes, or for files.
func quotaReached(dir string) (bytesFull, filesFull bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false, false
	}
	return st.Bavail*uint64(st.Bsize) < quotaFree, st.Files > 0 && st.Ffree == 0
}
