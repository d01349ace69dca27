package sandbox

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/capsulehq/capsule/internal/tarx"
	"github.com/capsulehq/capsule/sandbox/agent"
)

// writeSeed writes the tar archive copied into the container's /capsule
// volume before it starts: the agent binary, the pristine workspace in a
// directory only root may enter, the empty layer directory (root's too),
// the caller's helper files in a directory every run may read and none
// may write, the directory of the report channel's socket, and the mount
// point of the workspace's tmpfs.
func writeSeed(w io.Writer, agentPath string, spec Spec) error {
	tw := tar.NewWriter(w)
	if err := addFile(tw, agentPath, path.Base(agent.Binary), 0o500); err != nil {
		return fmt.Errorf("%w: copy %s: %w", ErrAgent, agentPath, err)
	}
	for _, dir := range []struct {
		path string
		mode int64
	}{{agent.Base, 0o700}, {agent.Layer, 0o700}, {agent.Workspace, 0o755}, {agent.PluginDir, 0o555}, {agent.ChannelDir, 0o755}} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: path.Base(dir.path) + "/", Mode: dir.mode}); err != nil {
			return err
		}
	}
	if err := addHelpers(tw, path.Base(agent.PluginDir), spec.Helpers); err != nil {
		return err
	}
	if spec.Workspace != "" {
		if err := addTree(tw, spec.Workspace, path.Base(agent.Base), spec.Exclude); err != nil {
			return err
		}
	}
	return tw.Close()
}

// addHelpers adds the helper files under prefix, root's and read-only:
// files 0444, the directories they need 0555.
func addHelpers(tw *tar.Writer, prefix string, files map[string][]byte) error {
	made := map[string]bool{".": true}
	var mkdirs func(dir string) error
	mkdirs = func(dir string) error {
		if made[dir] {
			return nil
		}
		if err := mkdirs(path.Dir(dir)); err != nil {
			return err
		}
		made[dir] = true
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: path.Join(prefix, dir) + "/", Mode: 0o555})
	}
	for _, name := range sortedKeys(files) {
		clean := path.Clean(name)
		if !filepath.IsLocal(filepath.FromSlash(clean)) || clean != name {
			return fmt.Errorf("helper file %q: not a clean relative path", name)
		}
		if err := mkdirs(path.Dir(clean)); err != nil {
			return err
		}
		data := files[name]
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: path.Join(prefix, clean), Mode: 0o444, Size: int64(len(data))}); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	return nil
}

// addFile adds one regular file, owned by root, under name.
func addFile(tw *tar.Writer, src, name string, mode int64) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: info.Size()}); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// addTree adds the tree below dir under prefix, owned by root and without
// write permission. Symbolic links are kept as links; other special files
// are left out.
func addTree(tw *tar.Writer, dir, prefix string, exclude []string) error {
	return addTreeSkipping(tw, dir, prefix, exclude, nil)
}

// addTreeSkipping is addTree without the files and symbolic links whose
// slash-separated path relative to dir skip reports (nil skips none).
func addTreeSkipping(tw *tar.Writer, dir, prefix string, exclude []string, skip func(rel string) bool) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrWorkspace, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrWorkspace, dir)
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%w: %w", ErrWorkspace, err)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		if skip != nil && !d.IsDir() && skip(filepath.ToSlash(rel)) {
			return nil
		}
		name := path.Join(prefix, filepath.ToSlash(rel))
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrWorkspace, err)
		}
		readOnly := int64(info.Mode().Perm() &^ 0o222)
		switch {
		case d.IsDir() && slices.Contains(exclude, d.Name()):
			return filepath.SkipDir
		case d.IsDir():
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: readOnly | 0o555})
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return fmt.Errorf("%w: %w", ErrWorkspace, err)
			}
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: link, Mode: 0o777})
		case d.Type().IsRegular():
			return addFile(tw, p, name, readOnly|0o444)
		default:
			return nil
		}
	})
}

// FilesArchive packs files (slash-separated relative paths to contents)
// into a tar archive for Run.Files.
func FilesArchive(files map[string][]byte) ([]byte, error) {
	var buf strings.Builder
	tw := tar.NewWriter(&buf)
	for _, name := range sortedKeys(files) {
		clean := path.Clean(name)
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return nil, fmt.Errorf("file %q is outside the workspace", name)
		}
		data := files[name]
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: clean, Mode: 0o644, Size: int64(len(data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return []byte(buf.String()), nil
}

// extractTo unpacks a workspace archive from the agent into dir under
// tarx's rules. What the code under test may have left in the workspace
// and tarx refuses (a link pointing out of it) is left out.
func extractTo(r io.Reader, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if _, err := tarx.Extract(r, root, tarx.Options{}); err != nil {
		return fmt.Errorf("workspace archive: %w", err)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
