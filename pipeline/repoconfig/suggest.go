package repoconfig

import (
	"fmt"
	"strings"
)

// suggest returns " (did you mean "x"?)" when an unknown key is close to a
// known one x, and the list of known keys otherwise.
func suggest(key string) string {
	norm := normalize(key)
	best, bestDist := "", -1
	for _, f := range fields {
		d := distance(norm, normalize(f.key))
		if d <= max(1, len(f.key)/3) && (bestDist < 0 || d < bestDist) {
			best, bestDist = f.key, d
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = f.key
	}
	return " (known keys: " + strings.Join(keys, ", ") + ")"
}

// normalize folds the spellings of one key together: Max-Attempts,
// maxAttempts and max_attempts all become maxattempts.
func normalize(key string) string {
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(key))
}

// distance is the optimal string alignment distance between a and b: the
// edits (insertions, deletions, substitutions and transpositions of adjacent
// runes) that turn one into the other.
func distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
