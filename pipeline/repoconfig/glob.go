package repoconfig

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/capsulehq/capsule/internal/pathglob"
)

// Protected reports the first of patterns that matches p, a
// slash-separated path relative to the repository root (cleaned first),
// as pathglob.MatchAny does. A malformed pattern matches nothing; Parse
// reports such patterns.
func Protected(p string, patterns []string) (pattern string, ok bool) {
	return pathglob.MatchAny(p, patterns)
}

// checkPattern reports what is wrong with a protected-path pattern.
func checkPattern(p string) error {
	switch {
	case p == "":
		return errors.New("empty pattern")
	case strings.HasPrefix(p, "/"):
		return errors.New("patterns are relative to the repository root and do not start with /")
	case strings.HasSuffix(p, "/"):
		return fmt.Errorf("ends with /; write %q to match everything below %s", p+"**", p)
	}
	for seg := range strings.SplitSeq(p, "/") {
		switch {
		case seg == "":
			return errors.New("empty path segment (//)")
		case seg == "." || seg == "..":
			return fmt.Errorf("%q segments are not allowed", seg)
		case seg != "**" && strings.Contains(seg, "**"):
			return errors.New(`"**" must be a whole path segment, as in "src/**" or "**/test_*.py"`)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf(`malformed segment %q (unclosed "[" or trailing "\")`, seg)
		}
	}
	return nil
}
