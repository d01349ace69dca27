package response

import "strings"

// tidyCode removes common indentation and surrounding blank lines and ends
// the code with one newline.
func tidyCode(code string) string {
	lines := strings.Split(code, "\n")
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = indent, false
			continue
		}
		for !strings.HasPrefix(indent, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, prefix)
	}
	code = strings.Join(lines, "\n")
	for {
		line, rest, ok := strings.Cut(code, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			break
		}
		code = rest
	}
	return tidyFile(code)
}

// tidyFile ends content with exactly one newline, dropping trailing blank
// lines; all-blank content becomes empty.
func tidyFile(content string) string {
	lines := strings.Split(content, "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
