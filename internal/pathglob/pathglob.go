// Package pathglob matches slash-separated paths against patterns in
// which a "**" segment stands for any number of path segments: the
// protected paths and report files of a repository's configuration, and
// the report files the sandbox's agent collects.
package pathglob

import (
	"path"
	"strings"
)

// MatchAny reports the first of patterns that matches p, a slash-separated
// relative path (cleaned first).
//
// In a pattern, a "**" segment matches any number of path segments, zero
// included, so "**/test_*.py" matches "test_x.py" and "a/b/test_x.py", and
// "tests/**" matches everything below tests/. Within a segment, "*", "?"
// and "[...]" work as in path.Match and never match a "/". A malformed
// pattern matches nothing.
func MatchAny(p string, patterns []string) (pattern string, ok bool) {
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
