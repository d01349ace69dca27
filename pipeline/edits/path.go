package edits

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// cleanPath checks the syntax of a path the agent wrote and returns it in
// canonical form: slash-separated, relative to the repository root, without
// "." or empty components. The error text is written for the agent.
func cleanPath(p string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("the file path is empty")
	case !utf8.ValidString(p):
		return "", fmt.Errorf("path %q is not valid UTF-8", p)
	case strings.ContainsFunc(p, unicode.IsControl):
		return "", fmt.Errorf("path %q contains a control character", p)
	case isAbsolute(p):
		return "", fmt.Errorf("absolute path %s is not allowed", p)
	case strings.Contains(p, `\`):
		return "", fmt.Errorf(`path %s contains a backslash; separate directories with "/"`, p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			if c := path.Clean(p); c == ".." || strings.HasPrefix(c, "../") {
				return "", fmt.Errorf("path %s leaves the repository", p)
			}
			return "", fmt.Errorf(`path %s contains ".."; name the file by its path from the repository root`, p)
		}
		if part != strings.TrimSpace(part) {
			return "", fmt.Errorf("path %q has a name that starts or ends with white space", p)
		}
	}
	c := path.Clean(p)
	if c == "." {
		return "", fmt.Errorf("path %s names the repository root, not a file", p)
	}
	if err := checkGitDir(c); err != nil {
		return "", err
	}
	return c, nil
}

// isAbsolute reports whether p is absolute on Unix or Windows, or starts at
// a home directory.
func isAbsolute(p string) bool {
	if p[0] == '/' || p[0] == '\\' || p[0] == '~' {
		return true
	}
	// A drive letter: C:\x, C:/x, or the drive-relative C:x.
	return len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// checkGitDir refuses a clean path that is, or is inside, a .git directory.
// Like git, it ignores case: on a case-insensitive file system .GIT is .git.
func checkGitDir(p string) error {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if !strings.EqualFold(part, ".git") {
			continue
		}
		if i == len(parts)-1 {
			return fmt.Errorf("%s is git's own data, not a file of the repository", p)
		}
		return fmt.Errorf("%s is inside .git", p)
	}
	return nil
}

// checkSettingsDir refuses a clean path below .github/ (case ignored, as
// for .git), new files included: a workflow added there would run with the
// repository's secrets.
func checkSettingsDir(p string) error {
	first, _, _ := strings.Cut(p, "/")
	if strings.EqualFold(first, ".github") {
		return fmt.Errorf("%s is under .github/, whose workflows and settings are off limits", p)
	}
	return nil
}
