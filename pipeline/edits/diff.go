package edits

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// Diff renders the edits as a unified diff in git's format against the files
// in repoDir: one section per changed file, in path order, each with three
// lines of context. Edits that change nothing are left out. The patch
// applies with "git apply" to an unchanged copy of repoDir.
//
// Diff expects edits accepted by Check; it refuses a path that Check would
// refuse on syntax, or that goes through a symbolic link, and binary files.
func Diff(repoDir string, edits []Edit) (string, error) {
	changes, err := load(repoDir, edits)
	if err != nil {
		return "", err
	}
	var w strings.Builder
	for _, c := range changes {
		c.write(&w)
	}
	return w.String(), nil
}

// Status values of a FileChange.
const (
	StatusAdded    = "added"
	StatusModified = "modified"
	StatusDeleted  = "deleted"
)

// change is one file that the edits change.
type change struct {
	path     string
	status   string
	old, new string
	mode     string // git's mode of the file: 100644 or 100755
	lines    []line
}

// load reads the files the edits change and diffs them, in path order.
// When several edits name one file, the last wins. Edits that fail are left
// out and reported together in the error.
func load(repoDir string, edits []Edit) ([]change, error) {
	root, err := os.OpenRoot(repoDir)
	if err != nil {
		return nil, fmt.Errorf("diff edits: %w", err)
	}
	defer root.Close()

	last := make(map[string]Edit, len(edits))
	var errs []error
	for _, e := range edits {
		p, err := cleanPath(e.Path)
		if err != nil {
			errs = append(errs, fmt.Errorf("diff %q: %w", e.Path, err))
			continue
		}
		e.Path = p
		last[p] = e
	}
	var changes []change
	for _, e := range last {
		c, ok, err := diffFile(root, e)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("diff %s: %w", e.Path, err))
		case ok:
			changes = append(changes, c)
		}
	}
	slices.SortFunc(changes, func(a, b change) int { return strings.Compare(a.path, b.path) })
	return changes, errors.Join(errs...)
}

// diffFile compares the edit with the file on disk. It reports false when
// the edit changes nothing.
func diffFile(root *os.Root, e Edit) (change, bool, error) {
	info, err := lstatStrict(root, e.Path)
	if err != nil {
		return change{}, false, err
	}
	if info == nil {
		if e.Delete {
			return change{}, false, nil
		}
		c, err := newChange(e.Path, StatusAdded, "", e.Content, "100644")
		return c, true, err
	}
	data, err := root.ReadFile(e.Path)
	if err != nil {
		return change{}, false, fmt.Errorf("read: %w", err)
	}
	mode := "100644"
	if info.Mode()&0o100 != 0 {
		mode = "100755"
	}
	if e.Delete {
		c, err := newChange(e.Path, StatusDeleted, string(data), "", mode)
		return c, true, err
	}
	if string(data) == e.Content {
		return change{}, false, nil
	}
	c, err := newChange(e.Path, StatusModified, string(data), e.Content, mode)
	return c, true, err
}

// newChange diffs the old and new content of a file.
func newChange(path, status, old, new, mode string) (change, error) {
	if isBinary(old) || isBinary(new) {
		return change{}, errors.New("binary content cannot be diffed as text")
	}
	a, b := splitLines(old), splitLines(new)
	del, ins := diffLines(a, b)
	return change{path: path, status: status, old: old, new: new, mode: mode, lines: script(a, b, del, ins)}, nil
}

// counts returns the number of added and removed lines.
func (c change) counts() (added, removed int) {
	for _, l := range c.lines {
		switch l.kind {
		case '+':
			added++
		case '-':
			removed++
		}
	}
	return added, removed
}

// write writes the change's section of the patch.
func (c change) write(w *strings.Builder) {
	from, to := quotePath("a/"+c.path), quotePath("b/"+c.path)
	fmt.Fprintf(w, "diff --git %s %s\n", from, to)
	switch c.status {
	case StatusAdded:
		fmt.Fprintf(w, "new file mode %s\nindex %s..%s\n", c.mode, zeroID, blobID(c.new))
		from = "/dev/null"
	case StatusDeleted:
		fmt.Fprintf(w, "deleted file mode %s\nindex %s..%s\n", c.mode, blobID(c.old), zeroID)
		to = "/dev/null"
	default:
		fmt.Fprintf(w, "index %s..%s %s\n", blobID(c.old), blobID(c.new), c.mode)
	}
	if len(c.lines) == 0 {
		return // an empty file added or deleted
	}
	fmt.Fprintf(w, "--- %s%s\n+++ %s%s\n", from, nameEnd(from), to, nameEnd(to))
	writeHunks(w, c.lines)
}

// nameEnd returns what follows a name on a ---/+++ line: a tab when the
// name holds a space, as git writes it for GNU patch.
func nameEnd(name string) string {
	if strings.Contains(name, " ") {
		return "\t"
	}
	return ""
}

// zeroID is the abbreviated object name git writes for a missing file.
const zeroID = "0000000"

// blobID returns the abbreviated name of the git blob that holds content.
func blobID(content string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write([]byte(content))
	return hex.EncodeToString(h.Sum(nil))[:len(zeroID)]
}

// lstatStrict returns the file at the clean path p below root, or nil when
// it does not exist. Unlike Check, it follows no symbolic link at all: the
// paths of checked edits have none. It refuses a path through a file and a
// final component that is not a regular file.
func lstatStrict(root *os.Root, p string) (fs.FileInfo, error) {
	parts := strings.Split(p, "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		info, err := root.Lstat(prefix)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("check path: %w", err)
		case info.Mode()&fs.ModeSymlink != 0:
			return nil, fmt.Errorf("%s is a symbolic link", prefix)
		case i < len(parts)-1 && !info.IsDir():
			return nil, fmt.Errorf("%s is not a directory", prefix)
		case i == len(parts)-1 && !info.Mode().IsRegular():
			return nil, fmt.Errorf("%s is not a regular file", prefix)
		case i == len(parts)-1:
			return info, nil
		}
	}
	panic("unreachable: the last component always returns")
}
