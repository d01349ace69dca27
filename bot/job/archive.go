package job

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// Limits on a fetched tree, so that a huge or hostile archive fails
// plainly instead of filling the disk.
const (
	MaxArchiveBytes = 1 << 30 // uncompressed
	MaxArchiveFiles = 100_000
)

// fetch downloads the pinned commit's tarball and unpacks it into a new
// directory, which the caller removes.
func (s *session) fetch(ctx context.Context) (string, error) {
	archive, err := s.gh.Archive(ctx, s.base)
	if err != nil {
		return "", githubError("fetch the archive of "+s.base, err)
	}
	defer archive.Close()
	dir, err := os.MkdirTemp(s.runner.workDir(), "capsule-tree-")
	if err != nil {
		return "", fmt.Errorf("make a directory for the tree: %w", err)
	}
	if err := untar(archive, dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("unpack the archive: %w", err)
	}
	return dir, nil
}

// untar unpacks a gzipped tarball whose entries share one top directory
// (as GitHub's do) into dir, without that directory. Only regular files,
// directories and symbolic links are kept; nothing can land outside dir.
func untar(r io.Reader, dir string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(gz)
	var total int64
	for files := 0; ; files++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if files >= MaxArchiveFiles {
			return fmt.Errorf("more than %d entries", MaxArchiveFiles)
		}
		name := stripTop(h.Name)
		if name == "" {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = root.MkdirAll(name, 0o755)
		case tar.TypeReg:
			total += h.Size
			if total > MaxArchiveBytes {
				return fmt.Errorf("more than %d bytes", MaxArchiveBytes)
			}
			err = writeFile(root, name, h, tr)
		case tar.TypeSymlink:
			if parent := path.Dir(name); parent != "." {
				err = root.MkdirAll(parent, 0o755)
			}
			if err == nil {
				err = root.Symlink(h.Linkname, name)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
}

func writeFile(root *os.Root, name string, h *tar.Header, r io.Reader) error {
	if parent := path.Dir(name); parent != "." {
		if err := root.MkdirAll(parent, 0o755); err != nil {
			return err
		}
	}
	mode := os.FileMode(0o644)
	if h.Mode&0o111 != 0 {
		mode = 0o755
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, io.LimitReader(r, h.Size))
	return errors.Join(err, f.Close())
}

// stripTop drops an entry's first path element; "" for the top directory
// itself and for names that are not clean relative paths.
func stripTop(name string) string {
	_, rest, ok := strings.Cut(strings.TrimPrefix(name, "./"), "/")
	rest = strings.TrimSuffix(rest, "/")
	if !ok || rest == "" || path.Clean(rest) != rest || strings.HasPrefix(rest, "../") || path.IsAbs(rest) {
		return ""
	}
	return rest
}
