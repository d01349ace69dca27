// Package gitarchive writes the tree of a commit of a local git directory
// into a directory, for the benchmarks and end-to-end sets that start from
// real repositories at a given commit.
package gitarchive

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Checkout writes the tree of commit in the git directory gitDir (a bare
// clone or a .git folder) into dir, creating it: git archive, piped into
// tar.
func Checkout(gitDir, commit, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	archive := exec.Command("git", "--git-dir", gitDir, "archive", "--format=tar", commit)
	extract := exec.Command("tar", "-x", "-C", dir)
	var errs strings.Builder
	archive.Stderr, extract.Stderr = &errs, &errs
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	extract.Stdin = pipe
	if err := extract.Start(); err != nil {
		return err
	}
	if err := archive.Run(); err != nil {
		extract.Wait()
		return fmt.Errorf("git archive: %w: %s", err, errs.String())
	}
	if err := extract.Wait(); err != nil {
		return fmt.Errorf("tar: %w: %s", err, errs.String())
	}
	return nil
}
