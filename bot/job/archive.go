package job

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/capsulehq/capsule/internal/tarx"
)

// Limits on a fetched tree, so that a huge or hostile archive fails
// plainly instead of filling the disk.
const (
	MaxArchiveBytes = 1 << 30 // uncompressed
	MaxArchiveFiles = 100_000
)

// fetch downloads the tarball of the commit the job works on (parent)
// and unpacks it into a new directory, which the caller removes.
func (s *session) fetch(ctx context.Context) (string, error) {
	archive, err := s.gh.Archive(ctx, s.parent)
	if err != nil {
		return "", githubError("fetch the archive of "+s.parent, err)
	}
	defer archive.Close()
	dir, err := os.MkdirTemp(s.runner.workDir(), "capsule-tree-")
	if err != nil {
		return "", fmt.Errorf("make a directory for the tree: %w", err)
	}
	if err := untar(archive, dir, s.log); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("unpack the archive: %w", err)
	}
	return dir, nil
}

// untar unpacks a gzipped tarball whose entries share one top directory
// (as GitHub's do) into dir, without that directory, under tarx's rules:
// an entry that could reach outside dir (or a device, a hard link) is left
// out and logged, and the rest of the tree still unpacks.
func untar(r io.Reader, dir string, log *slog.Logger) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	refused, err := tarx.Extract(gz, root, tarx.Options{StripTop: true, MaxBytes: MaxArchiveBytes, MaxFiles: MaxArchiveFiles})
	for _, e := range refused {
		log.Warn("archive entry left out", "entry", e.Name, "reason", e.Reason)
	}
	return err
}
