// Package setupcache keeps the result of a repository's set-up (what
// it added to the workspace: installed packages, a virtualenv,
// node_modules) under a key of what determines it, in a directory of the
// operator's, so that the next job or round of the same key restores it
// instead of running the set-up again. The key holds the repository's
// identity, the image's ID, the set-up command, the network setting, the
// names of the secrets it was given and the hash of the files it reads
// (Inputs). Entries are evicted by age and total size.
package setupcache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/capsulehq/capsule/pipeline/repoconfig"
)

// manifests are the base names of the lockfiles and manifests a set-up
// reads, at any depth of the tree: Inputs takes them by default.
var manifests = []string{
	"pyproject.toml", "setup.py", "setup.cfg", "poetry.lock", "Pipfile", "Pipfile.lock", "uv.lock", "pdm.lock",
	"package.json", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", "yarn.lock", ".npmrc", ".yarnrc.yml",
	"Cargo.toml", "Cargo.lock", "go.mod", "go.sum",
	"pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "gradle.properties",
}

// DefaultInput reports whether a file's base name is one of the
// lockfiles and manifests taken by default: the manifests above, and
// requirements*.txt and constraints*.txt.
func DefaultInput(base string) bool {
	if slices.Contains(manifests, base) {
		return true
	}
	for _, prefix := range []string{"requirements", "constraints"} {
		if strings.HasPrefix(base, prefix) && strings.HasSuffix(base, ".txt") {
			return true
		}
	}
	return false
}

// defaultGlobs are inputs by default too: the dev container
// configuration, whose commands, Dockerfile and environment may make the
// set-up.
var defaultGlobs = []string{".devcontainer/**", ".devcontainer.json"}

// skipped are directories never searched for inputs: version control and
// what installs write.
var skipped = []string{".git", "node_modules", ".venv", "venv", "__pycache__", ".tox"}

// Input is one file the set-up reads and the SHA-256 of its contents.
type Input struct {
	Path string // slash-separated, relative to the tree
	Sum  string
}

// Inputs lists the set-up's input files in the tree below dir, sorted:
// the default lockfiles and manifests and the files that match extra
// (`setup_inputs:` globs, as in `protected:`).
func Inputs(dir string, extra []string) ([]Input, error) {
	var inputs []Input
	err := walkFiles(dir, skipped, func(rel string) error {
		if _, ok := repoconfig.Protected(rel, append(defaultGlobs, extra...)); !ok && !DefaultInput(path.Base(rel)) {
			return nil
		}
		sum, err := fileSum(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		inputs = append(inputs, Input{rel, sum})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("set-up inputs: %w", err)
	}
	return inputs, nil
}

// Digest is the hash of a list of inputs (or of a whole tree's files).
func Digest(inputs []Input) string {
	h := sha256.New()
	for _, in := range inputs {
		fmt.Fprintf(h, "%q %s\n", in.Path, in.Sum)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TreeDigest is the hash of every file of the tree below dir but .git:
// the key of a set-up that copied the repository's source (a
// non-editable `pip install .`).
func TreeDigest(dir string) (string, error) {
	var files []Input
	err := walkFiles(dir, []string{".git"}, func(rel string) error {
		sum, err := fileSum(filepath.Join(dir, filepath.FromSlash(rel)))
		files = append(files, Input{rel, sum})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("hash the tree: %w", err)
	}
	return Digest(files), nil
}

// walkFiles calls fn with the slash-separated path of every regular file
// and symbolic link below dir, in lexical order, skipping directories
// named in skip.
func walkFiles(dir string, skip []string, fn func(rel string) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && slices.Contains(skip, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		return fn(filepath.ToSlash(rel))
	})
}

// fileSum is the SHA-256 of a file's contents, or of a symbolic link's
// target.
func fileSum(p string) (string, error) {
	h := sha256.New()
	if link, err := os.Readlink(p); err == nil {
		io.WriteString(h, "link:"+link)
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
