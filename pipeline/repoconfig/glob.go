package repoconfig

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Protected reports the first of patterns that matches p, a
// slash-separated path relative to the repository root (cleaned first).
//
// In a pattern, a "**" segment matches any number of path segments, zero
// included, so "**/test_*.py" matches "test_x.py" and "a/b/test_x.py", and
// "tests/**" matches everything below tests/. Within a segment, "*", "?" and
// "[...]" work as in path.Match and never match a "/". A malformed pattern
// matches nothing; Parse reports such patterns.
func Protected(p string, patterns []string) (pattern string, ok bool) {
	segs := strings.Split(path.Clean(p), "/")
	for _, pat := range patterns {
		if match(strings.Split(pat, "/"), segs) {
			return pat, true
		}
	}
	return "", false
}

// match reports whether the pattern segments pat match the path segments
// segs. It is the classic wildcard match with backtracking to the last "**",
// linear in len(pat)*len(segs) however many "**" the pattern holds.
func match(pat, segs []string) bool {
	pi, si := 0, 0
	star, next := -1, 0 // the last "**" seen, and where its match would end next
	for si < len(segs) {
		switch {
		case pi < len(pat) && pat[pi] == "**":
			star, next = pi, si
			pi++
		case pi < len(pat) && matchSegment(pat[pi], segs[si]):
			pi++
			si++
		case star >= 0:
			// Let the last "**" take one more segment and try again.
			next++
			pi, si = star+1, next
		default:
			return false
		}
	}
	for pi < len(pat) && pat[pi] == "**" {
		pi++
	}
	return pi == len(pat)
}

func matchSegment(pat, seg string) bool {
	ok, err := path.Match(pat, seg)
	return ok && err == nil
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
