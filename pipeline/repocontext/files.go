package repocontext

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

const (
	// maxFileSize is the size above which a file is never read.
	maxFileSize = 1 << 20
	// sniffSize is how much of a file is searched for a NUL byte to tell
	// a binary file.
	sniffSize = 8 << 10
	// scanSize caps the bytes of a file scanned for definitions, imports
	// and mentions.
	scanSize = 256 << 10
)

// Reasons a file is not shown, besides the budget.
const (
	reasonBinary  = "binary"
	reasonEscapes = "symlink outside the repository"
	reasonSkipped = "symlink into a skipped directory"
	reasonBroken  = "broken symlink"
	reasonIrreg   = "not a regular file"
)

// open opens file i for reading. The walk never enters a symlinked
// directory, so the path of a regular file stays inside the repository. A
// symlink is read only when it leads to a regular file the walk would
// list (never into .git, say), and is opened through the root, which
// refuses to leave the repository. A file named like a file of credentials,
// or a link to one, is never opened (isSecret). A non-empty reason says why
// the file cannot be shown.
func (r *repo) open(i int) (*os.File, string) {
	p := r.files[i]
	if isSecret(p) {
		return nil, reasonSecret
	}
	if r.symlink[i] {
		if reason := r.symlinkReason(p); reason != "" {
			return nil, reason
		}
	}
	var f *os.File
	var err error
	if r.symlink[i] {
		f, err = r.root.Open(p)
	} else {
		f, err = os.Open(filepath.Join(r.dir, filepath.FromSlash(p)))
	}
	if err != nil {
		return nil, fmt.Sprintf("unreadable: %v", err)
	}
	return f, ""
}

// statReason says why the open file f cannot be shown, judging by its
// mode and size; "" when it can.
func statReason(f *os.File) string {
	fi, err := f.Stat()
	switch {
	case err != nil:
		return fmt.Sprintf("unreadable: %v", err)
	case !fi.Mode().IsRegular():
		return reasonIrreg
	case fi.Size() > maxFileSize:
		return fmt.Sprintf("too large: %.1f MiB, over the 1 MiB limit", float64(fi.Size())/(1<<20))
	}
	return ""
}

// symlinkReason says why the symlink at p cannot be read; "" when it
// can.
func (r *repo) symlinkReason(p string) string {
	target, err := filepath.EvalSymlinks(filepath.Join(r.dir, filepath.FromSlash(p)))
	if err != nil {
		return reasonBroken
	}
	rel, err := filepath.Rel(r.dir, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return reasonEscapes
	}
	if r.inSkipped(filepath.ToSlash(rel)) {
		return reasonSkipped
	}
	if isSecret(rel) {
		return reasonSecret
	}
	// Stat before opening: opening a named pipe would block.
	if fi, err := os.Stat(target); err != nil || !fi.Mode().IsRegular() {
		return reasonIrreg
	}
	return ""
}

// read returns the whole content of file i, or the reason it cannot be
// shown.
func (r *repo) read(i int) ([]byte, string) {
	f, reason := r.open(i)
	if reason != "" {
		return nil, reason
	}
	defer f.Close()
	if reason := statReason(f); reason != "" {
		return nil, reason
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	switch {
	case err != nil:
		return nil, fmt.Sprintf("unreadable: %v", err)
	case len(data) > maxFileSize:
		return nil, "too large: over the 1 MiB limit"
	case isBinary(data):
		return nil, reasonBinary
	}
	return data, ""
}

// readHead reads the head of file i into buf for scanning, with a single
// read: a short read from a regular file is its end, and a file that
// fills buf is checked for its size. It returns nil for a file that
// cannot be shown.
func (r *repo) readHead(i int, buf []byte) []byte {
	f, reason := r.open(i)
	if reason != "" {
		return nil
	}
	defer f.Close()
	n, err := f.Read(buf)
	switch {
	case err != nil && err != io.EOF:
		return nil
	case n == len(buf) && statReason(f) != "":
		return nil // over the size limit
	case isBinary(buf[:n]):
		return nil
	}
	return buf[:n]
}

// isBinary reports a NUL byte in the first sniffSize bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), sniffSize)], 0) >= 0
}
