// Package tarx unpacks tar archives that come from outside (a repository's
// tarball, the workspace a sandbox sends back, the files sent into one)
// into a directory, confined by an os.Root.
//
// Every entry is checked before it is written, and an entry that breaks a
// rule is refused (left out and reported) while the rest of the archive is
// unpacked, so that one odd entry does not cost a whole repository:
//
//   - its name must be a clean relative path (no "..", not absolute);
//   - it is never written through a symbolic link, nor over a directory;
//   - only directories, regular files and symbolic links are kept: hard
//     links, devices, fifos and other types are refused;
//   - a symbolic link must be relative and may climb ("..") only at its
//     start, and no higher than its own directory, so that no link made
//     here leads out of the directory, whatever other links the archive
//     holds and in whatever order.
//
// Files are written with mode 0644, or 0755 when the entry has an execute
// bit; directories with 0755. The os.Root stays the last line of defence:
// even a rule missed here cannot write outside the directory.
package tarx

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Options say what an extraction keeps and how it writes it.
type Options struct {
	// StripTop drops the first element of every name, as GitHub's
	// tarballs hold everything under one top directory. The top
	// directory itself is skipped; an entry outside it is refused.
	StripTop bool
	// MaxBytes bounds the total size of the regular files and MaxFiles
	// the number of entries; zero means no bound. An archive past either
	// fails with ErrTooLarge.
	MaxBytes int64
	MaxFiles int
	// UID and GID own everything created, unless both are zero: then
	// it belongs to the process's own user.
	UID, GID int
}

// ErrTooLarge is the error of an archive past Options.MaxBytes or
// Options.MaxFiles.
var ErrTooLarge = errors.New("the archive is too large")

// Refused is an entry left out, and why.
type Refused struct {
	Name   string // as the archive names it
	Reason string
}

// String returns "name: reason".
func (r Refused) String() string { return r.Name + ": " + r.Reason }

// Extract unpacks the tar stream r into root and returns the entries it
// refused. An error means the archive could not be read or written (a
// truncated stream, a full disk, ErrTooLarge); what was unpacked before
// it stays.
func Extract(r io.Reader, root *os.Root, opt Options) ([]Refused, error) {
	x := extractor{root: root, opt: opt, dirs: map[string]bool{".": true}}
	tr := tar.NewReader(r)
	for n := 1; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return x.refused, nil
		}
		if err != nil {
			return x.refused, fmt.Errorf("read the archive: %w", err)
		}
		if opt.MaxFiles > 0 && n > opt.MaxFiles {
			return x.refused, fmt.Errorf("%w: more than %d entries", ErrTooLarge, opt.MaxFiles)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue // metadata (git archive's commit id), not a file
		}
		name, reason := entryName(h, opt.StripTop)
		if reason == "" && name != "" {
			reason, err = x.entry(h, name, tr)
		}
		if err != nil {
			return x.refused, fmt.Errorf("%s: %w", h.Name, err)
		}
		if reason != "" {
			x.refused = append(x.refused, Refused{Name: h.Name, Reason: reason})
		}
	}
}

// extractor is the state of one Extract.
type extractor struct {
	root    *os.Root
	opt     Options
	dirs    map[string]bool // directories known to be real, not links
	total   int64           // bytes of regular files so far
	refused []Refused
}

// entryName returns the clean relative name an entry is written under,
// "" for the top directory that StripTop drops, or the reason to refuse
// the entry.
func entryName(h *tar.Header, stripTop bool) (string, string) {
	name := strings.TrimSuffix(strings.TrimPrefix(h.Name, "./"), "/")
	switch {
	case name == "" || strings.ContainsRune(name, 0):
		return "", "not a valid name"
	case path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../"):
		return "", "the name leads outside the directory"
	case path.Clean(name) != name:
		return "", "not a clean relative path"
	case !stripTop:
		return name, ""
	}
	_, rest, ok := strings.Cut(name, "/")
	switch {
	case ok:
		return rest, ""
	case h.Typeflag == tar.TypeDir:
		return "", "" // the top directory itself
	}
	return "", "not under the top directory"
}

// entry writes one entry under its clean name. It returns the reason the
// entry is refused, or an error that ends the extraction.
func (x *extractor) entry(h *tar.Header, name string, r io.Reader) (string, error) {
	switch h.Typeflag {
	case tar.TypeDir, tar.TypeReg, tar.TypeSymlink:
	case tar.TypeLink:
		return "a hard link", nil
	case tar.TypeChar, tar.TypeBlock:
		return "a device file", nil
	case tar.TypeFifo:
		return "a fifo", nil
	default:
		return fmt.Sprintf("an entry of type %q", h.Typeflag), nil
	}
	if h.Typeflag == tar.TypeSymlink {
		if reason := linkReason(name, h.Linkname); reason != "" {
			return reason, nil
		}
	}
	if reason, err := x.mkdirs(path.Dir(name)); reason != "" || err != nil {
		return reason, err
	}
	if h.Typeflag == tar.TypeDir {
		return x.mkdirs(name)
	}
	if reason, err := x.clear(name); reason != "" || err != nil {
		return reason, err
	}
	if h.Typeflag == tar.TypeSymlink {
		if err := x.root.Symlink(h.Linkname, name); err != nil {
			return "", err
		}
		return "", x.chown(name)
	}
	x.total += h.Size
	if x.opt.MaxBytes > 0 && x.total > x.opt.MaxBytes {
		return "", fmt.Errorf("%w: more than %d bytes", ErrTooLarge, x.opt.MaxBytes)
	}
	return "", x.writeFile(name, h, r)
}

// linkReason returns why a symbolic link at name to target is refused, or
// "". The target may climb only at its start and no higher than name's
// directory; since no entry is written through a link, that directory is
// a real one, as deep as its name says.
func linkReason(name, target string) string {
	if target == "" || strings.ContainsRune(target, 0) || path.IsAbs(target) {
		return "a symbolic link to " + target + " outside the directory"
	}
	depth := strings.Count(name, "/")
	climbing := true
	for part := range strings.SplitSeq(target, "/") {
		switch {
		case part == "..":
			depth--
			if !climbing || depth < 0 {
				return "a symbolic link to " + target + " outside the directory"
			}
		case part != "" && part != ".":
			climbing = false
		}
	}
	return ""
}

// mkdirs makes dir and its missing parents, refusing to go through
// anything but a real directory.
func (x *extractor) mkdirs(dir string) (string, error) {
	if x.dirs[dir] {
		return "", nil
	}
	if parent := path.Dir(dir); !x.dirs[parent] {
		if reason, err := x.mkdirs(parent); reason != "" || err != nil {
			return reason, err
		}
	}
	info, err := x.root.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := x.root.Mkdir(dir, 0o755); err != nil {
			return "", err
		}
		if err := x.chown(dir); err != nil {
			return "", err
		}
	case err != nil:
		return "", err
	case info.Mode()&fs.ModeSymlink != 0:
		return "written through the symbolic link " + dir, nil
	case !info.IsDir():
		return dir + " is not a directory", nil
	}
	x.dirs[dir] = true
	return "", nil
}

// clear removes what name holds before a file or link is written there,
// refusing to replace a directory.
func (x *extractor) clear(name string) (string, error) {
	info, err := x.root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", err
	case info.IsDir():
		return "a directory of that name exists", nil
	}
	return "", x.root.Remove(name)
}

// writeFile creates the regular file name with the entry's content, r.
func (x *extractor) writeFile(name string, h *tar.Header, r io.Reader) error {
	mode := fs.FileMode(0o644)
	if h.Mode&0o111 != 0 {
		mode = 0o755
	}
	f, err := x.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if x.opt.UID != 0 || x.opt.GID != 0 {
		if err := f.Chown(x.opt.UID, x.opt.GID); err != nil {
			f.Close()
			return err
		}
	}
	_, err = io.Copy(f, r)
	return errors.Join(err, f.Close())
}

// chown gives name to Options.UID and GID, unless both are zero.
func (x *extractor) chown(name string) error {
	if x.opt.UID == 0 && x.opt.GID == 0 {
		return nil
	}
	return x.root.Lchown(name, x.opt.UID, x.opt.GID)
}
