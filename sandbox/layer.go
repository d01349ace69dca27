package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/capsulehq/capsule/sandbox/agent"
	"github.com/docker/docker/api/types/container"
)

// ImageID returns the engine's ID of image ref (its content hash), which
// changes when the image behind a name is rebuilt.
func (e *Engine) ImageID(ctx context.Context, ref string) (string, error) {
	info, err := e.cli.ImageInspect(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("inspect image %s: %w", ref, err)
	}
	return info.ID, nil
}

// LayerInfo says what a set-up left in the workspace compared with the
// pristine tree (see Session.ExportLayer).
type LayerInfo struct {
	// Changed are the tree's files the set-up changed, Deleted those it
	// removed, by slash-separated path.
	Changed, Deleted []string
	// Entries and Bytes count what the archive holds: every entry the
	// set-up added or changed, and the bytes of their contents.
	Entries int
	Bytes   int64
}

// ExportLayer writes to w what the committed set-up run added to the
// pristine tree, or changed in it, as a tar archive of slash-separated
// relative paths (directories, regular files, symbolic links), read
// from the agent's committed layer: the workspace lives in a tmpfs and
// the layer in a volume, neither of which `docker commit` captures.
// RestoreLayer lays such an archive over the tree of another session.
func (s *Session) ExportLayer(ctx context.Context, w io.Writer) (LayerInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live == nil || (s.setup == nil && s.layer == "") {
		return LayerInfo{}, errors.New("export the set-up: no committed run in a live container")
	}
	rc, _, err := s.engine.cli.CopyFromContainer(ctx, s.live.id, agent.Layer)
	if err != nil {
		return LayerInfo{}, fmt.Errorf("export the set-up: %w", err)
	}
	defer rc.Close()
	info, err := layerDelta(s.spec.Workspace, s.spec.Exclude, rc, w)
	if err != nil {
		return info, fmt.Errorf("export the set-up: %w", err)
	}
	return info, nil
}

// layerDelta reads the layer archive Docker sends (entries below
// "layer/") and writes to w the entries that differ from the tree below
// dir (whose directories named in exclude are left out, as in the seed).
func layerDelta(dir string, exclude []string, layer io.Reader, w io.Writer) (LayerInfo, error) {
	var info LayerInfo
	seen := map[string]bool{}
	tr, tw := tar.NewReader(layer), tar.NewWriter(w)
	prefix := path.Base(agent.Layer) + "/"
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return info, fmt.Errorf("read the layer: %w", err)
		}
		rel, ok := strings.CutPrefix(strings.TrimSuffix(hdr.Name, "/"), prefix)
		if !ok || rel == "" || !filepath.IsLocal(filepath.FromSlash(rel)) {
			continue
		}
		seen[rel] = true
		out := &tar.Header{Name: rel, Mode: hdr.Mode & 0o7777, ModTime: hdr.ModTime}
		tree := filepath.Join(dir, filepath.FromSlash(rel))
		st, statErr := os.Lstat(tree)
		inTree := dir != "" && statErr == nil
		switch hdr.Typeflag {
		case tar.TypeDir:
			if inTree && st.IsDir() {
				continue
			}
			out.Typeflag, out.Name = tar.TypeDir, rel+"/"
			err = tw.WriteHeader(out)
		case tar.TypeSymlink:
			if inTree && st.Mode()&fs.ModeSymlink != 0 {
				if link, _ := os.Readlink(tree); link == hdr.Linkname {
					continue
				}
			}
			out.Typeflag, out.Linkname = tar.TypeSymlink, hdr.Linkname
			err = tw.WriteHeader(out)
		case tar.TypeReg:
			var body io.Reader = tr
			if inTree && st.Mode().IsRegular() && st.Size() == hdr.Size {
				data, rerr := io.ReadAll(tr)
				if rerr != nil {
					return info, fmt.Errorf("read the layer: %w", rerr)
				}
				if same, _ := sameContent(tree, data); same {
					continue
				}
				body = bytes.NewReader(data)
			}
			if inTree {
				info.Changed = append(info.Changed, rel)
			}
			out.Typeflag, out.Size = tar.TypeReg, hdr.Size
			if err = tw.WriteHeader(out); err == nil {
				_, err = io.Copy(tw, body)
			}
			info.Bytes += hdr.Size
		default:
			continue // devices, pipes and hard links are never committed
		}
		if err != nil {
			return info, fmt.Errorf("write the set-up archive: %w", err)
		}
		info.Entries++
	}
	if err := tw.Close(); err != nil {
		return info, fmt.Errorf("write the set-up archive: %w", err)
	}
	if dir != "" {
		deleted, err := missing(dir, exclude, seen)
		if err != nil {
			return info, err
		}
		info.Deleted = deleted
	}
	return info, nil
}

// sameContent reports whether the file at p holds exactly data.
func sameContent(p string, data []byte) (bool, error) {
	got, err := os.ReadFile(p)
	return err == nil && bytes.Equal(got, data), err
}

// missing lists the tree's entries below dir that seen lacks.
func missing(dir string, exclude []string, seen map[string]bool) ([]string, error) {
	var gone []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		if d.IsDir() && slices.Contains(exclude, d.Name()) {
			return filepath.SkipDir
		}
		if !d.IsDir() && !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil // special files are never seeded
		}
		if rel := filepath.ToSlash(rel); !seen[rel] {
			gone = append(gone, rel)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("compare the layer with the tree: %w", err)
	}
	return gone, nil
}

// RestoreLayer makes the pristine tree with the set-up archive at
// archive laid over it (ExportLayer's, of another session on a tree of
// the same set-up inputs) the starting state of every later run, as if
// the set-up had run and been committed here: the tree and the archive
// are copied into the container's layer, which the agent copies into
// the workspace (a tmpfs, within the disk quota) before every run. A
// container that replaces this one gets the same copy. It returns how
// long the copy took.
func (s *Session) RestoreLayer(ctx context.Context, archive string) (time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	if s.live == nil {
		if err := s.start(ctx); err != nil {
			return 0, err
		}
	}
	if err := s.copyLayer(ctx, archive); err != nil {
		return 0, err
	}
	s.layer, s.setup = archive, nil
	return time.Since(start), nil
}

// copyLayer copies the tree and the set-up archive into the live
// container's layer and marks it committed (agent.LayerMark).
func (s *Session) copyLayer(ctx context.Context, archive string) error {
	f, err := os.Open(archive)
	if err != nil {
		return fmt.Errorf("restore the set-up: %w", err)
	}
	defer f.Close()
	names, err := archiveNames(f)
	if err != nil {
		return fmt.Errorf("restore the set-up: read %s: %w", archive, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("restore the set-up: %w", err)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeLayer(pw, s.spec, f, names)) }()
	err = s.engine.cli.CopyToContainer(ctx, s.live.id, agent.Root, pr, container.CopyToContainerOptions{})
	pr.CloseWithError(err)
	if err != nil {
		return fmt.Errorf("restore the set-up: copy into the sandbox: %w", err)
	}
	return nil
}

// archiveNames lists the names of a set-up archive's entries, without
// a directory's trailing slash.
func archiveNames(r io.Reader) (map[string]bool, error) {
	names := map[string]bool{}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names, nil
		}
		if err != nil {
			return nil, err
		}
		names[strings.TrimSuffix(hdr.Name, "/")] = true
	}
}

// writeLayer writes the archive copied into the container's /capsule to
// restore a set-up: the tree below "layer/" (but the files the set-up
// archive replaces), then the set-up archive's entries there, then the
// mark that tells the agent the layer is committed.
func writeLayer(w io.Writer, spec Spec, archive io.Reader, names map[string]bool) error {
	tw := tar.NewWriter(w)
	prefix := path.Base(agent.Layer)
	if spec.Workspace != "" {
		skip := func(rel string) bool { return names[rel] }
		if err := addTreeSkipping(tw, spec.Workspace, prefix, spec.Exclude, skip); err != nil {
			return err
		}
	}
	tr := tar.NewReader(archive)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read the set-up archive: %w", err)
		}
		clean := path.Clean(hdr.Name)
		if !filepath.IsLocal(filepath.FromSlash(clean)) {
			return fmt.Errorf("set-up archive: %q is outside the workspace", hdr.Name)
		}
		out := &tar.Header{Typeflag: hdr.Typeflag, Name: path.Join(prefix, clean), Mode: hdr.Mode & 0o7777, Size: hdr.Size, Linkname: hdr.Linkname, ModTime: hdr.ModTime}
		switch hdr.Typeflag {
		case tar.TypeDir:
			out.Name += "/"
		case tar.TypeReg, tar.TypeSymlink:
		default:
			continue
		}
		if err := tw.WriteHeader(out); err != nil {
			return err
		}
		if hdr.Typeflag == tar.TypeReg {
			if _, err := io.Copy(tw, tr); err != nil {
				return err
			}
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: path.Base(agent.LayerMark), Mode: 0o400}); err != nil {
		return err
	}
	return tw.Close()
}

// ImageID returns the ID of the session's image (Engine.ImageID).
func (s *Session) ImageID(ctx context.Context) (string, error) {
	return s.engine.ImageID(ctx, s.spec.Image)
}
