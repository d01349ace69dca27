// Package pystrip removes example calls from the top level of Python
// modules that the programmer agent changed in repository mode. It is
// deliberately conservative, because a module's top level may do real work
// (app = Flask(__name__), register(handler)): it removes only what runs an
// example or waits for input: `if __name__ == "__main__":` blocks,
// top-level print(...) and input(...) statements, and assignments from
// input() (x = input(), n = int(input())), which fail at import without a
// terminal. Removed lines become
// blank, so line numbers in tracebacks stay those of the model's file.
// (Function-level tasks use the case-testing harness, which removes every
// top-level statement but definitions with Python's own parser.)
package pystrip

import (
	"regexp"
	"slices"
	"strings"
)

var (
	mainGuard   = regexp.MustCompile(`^if\s+(__name__\s*==\s*["']__main__["']|["']__main__["']\s*==\s*__name__)\s*:`)
	exampleCall = regexp.MustCompile(`^(print|input)\s*\(|^[A-Za-z_][\w\s,]*=\s*(\w+\(\s*)?input\s*\(`)
)

// Strip returns src without its top-level example calls, and the 1-based
// inclusive line ranges it blanked. Source it cannot follow (an
// unterminated string or bracket) is returned unchanged.
func Strip(src string) (string, [][2]int) {
	return StripAdded(src, nil)
}

// StripAdded is Strip limited to the example calls that an edit added:
// added marks the lines of src the edit added (nil marks all), and a call
// is removed only when every non-blank line of it is marked, so that an
// edit never removes the module's own entry point.
func StripAdded(src string, added []bool) (string, [][2]int) {
	lines := strings.Split(src, "\n")
	starts, ok := logicalStarts(lines)
	if !ok {
		return src, nil
	}
	var removed [][2]int
	for i := 0; i < len(lines); i++ {
		if !starts[i] {
			continue
		}
		line := lines[i]
		switch {
		case mainGuard.MatchString(line):
			end := i
			for j := i + 1; j < len(lines); j++ {
				if starts[j] && lines[j] != "" && !isIndented(lines[j]) && !strings.HasPrefix(lines[j], "#") {
					break
				}
				end = j
			}
			for end > i && strings.TrimSpace(lines[end]) == "" {
				end--
			}
			removed = append(removed, [2]int{i + 1, end + 1})
			i = end
		case exampleCall.MatchString(line):
			end := i
			for end+1 < len(lines) && !starts[end+1] {
				end++
			}
			removed = append(removed, [2]int{i + 1, end + 1})
			i = end
		}
	}
	removed = slices.DeleteFunc(removed, func(r [2]int) bool { return !allAdded(lines, added, r) })
	for _, r := range removed {
		for n := r[0] - 1; n < r[1]; n++ {
			lines[n] = ""
		}
	}
	return strings.Join(lines, "\n"), removed
}

// allAdded reports whether every non-blank line of the 1-based inclusive
// range r is marked in added (nil marks all).
func allAdded(lines []string, added []bool, r [2]int) bool {
	if added == nil {
		return true
	}
	for n := r[0] - 1; n < r[1]; n++ {
		if strings.TrimSpace(lines[n]) != "" && (n >= len(added) || !added[n]) {
			return false
		}
	}
	return true
}

func isIndented(line string) bool {
	return strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
}

// logicalStarts marks the lines that begin a logical line: outside any
// string, bracket or backslash continuation. It reports false when the
// source ends inside one of them.
func logicalStarts(lines []string) ([]bool, bool) {
	starts := make([]bool, len(lines))
	depth := 0
	var quote string // the open string's delimiter: ', ", ''' or """
	continued := false
	for i, line := range lines {
		starts[i] = depth == 0 && quote == "" && !continued
		continued = false
		for j := 0; j < len(line); j++ {
			c := line[j]
			if quote != "" {
				switch {
				case c == '\\':
					j++
				case strings.HasPrefix(line[j:], quote):
					j += len(quote) - 1
					quote = ""
				}
				continue
			}
			switch c {
			case '#':
				j = len(line)
			case '\'', '"':
				quote = string(c)
				if strings.HasPrefix(line[j:], strings.Repeat(quote, 3)) {
					quote = strings.Repeat(quote, 3)
					j += 2
				}
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth = max(depth-1, 0)
			case '\\':
				if j == len(line)-1 {
					continued = true
				}
			}
		}
		if len(quote) == 1 && !continued {
			return nil, false // a one-quote string cannot span lines
		}
	}
	return starts, depth == 0 && quote == "" && !continued
}
