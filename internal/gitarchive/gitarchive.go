// Package gitarchive writes the tree of a commit of a local git directory
// into a directory, for the benchmarks and end-to-end sets that start from
// real repositories at a given commit.
package gitarchive

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/capsulehq/capsule/internal/tarx"
)

// Checkout writes the tree of commit in the git directory gitDir (a bare
// clone or a .git folder) into dir, creating it: git archive, unpacked by
// tarx under its rules.
func Checkout(gitDir, commit, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	archive := exec.Command("git", "--git-dir", gitDir, "archive", "--format=tar", commit)
	var stderr bytes.Buffer
	archive.Stderr = &stderr
	out, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	if err := archive.Start(); err != nil {
		return fmt.Errorf("git archive: %w", err)
	}
	_, extractErr := tarx.Extract(out, root, tarx.Options{})
	_, _ = io.Copy(io.Discard, out) // what tarx left unread, so that git ends
	if err := archive.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %w: %s", commit, err, bytes.TrimSpace(stderr.Bytes()))
	}
	if extractErr != nil {
		return fmt.Errorf("unpack %s: %w", commit, extractErr)
	}
	return nil
}
