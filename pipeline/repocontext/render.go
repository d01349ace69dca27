package repocontext

import (
	"path"
	"strings"
)

// Headings of the rendered text.
const (
	treeHeading  = "## Repository files\n\n"
	filesHeading = "\n## Files\n"
)

// langTags maps file extensions to the language tag of their fenced
// blocks.
var langTags = map[string]string{
	".py": "python", ".pyi": "python", ".go": "go",
	".js": "javascript", ".jsx": "jsx", ".mjs": "javascript", ".cjs": "javascript",
	".ts": "typescript", ".tsx": "tsx", ".mts": "typescript", ".cts": "typescript",
	".md": "markdown", ".rst": "rst", ".txt": "text",
	".toml": "toml", ".cfg": "ini", ".ini": "ini", ".json": "json",
	".yaml": "yaml", ".yml": "yaml", ".xml": "xml", ".html": "html", ".css": "css",
	".sh": "bash", ".bash": "bash", ".sql": "sql", ".rs": "rust", ".java": "java",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".rb": "ruby",
	".mod": "go.mod",
}

// langTag returns the fence language tag for file p; "" when unknown.
func langTag(p string) string {
	switch path.Base(p) {
	case "Dockerfile":
		return "dockerfile"
	case "Makefile":
		return "makefile"
	}
	return langTags[strings.ToLower(path.Ext(p))]
}

// fileSection renders one included file: a heading with its path, the
// read-only mark and why it was picked, then its content in a fenced
// block.
func fileSection(p, why string, readOnly bool, content string) string {
	var b strings.Builder
	b.WriteString("\n### ")
	b.WriteString(p)
	if readOnly {
		b.WriteString(" (read-only)")
	}
	b.WriteString(" (")
	b.WriteString(why)
	b.WriteString(")\n")
	fence := strings.Repeat("`", max(3, longestRun(content, '`')+1))
	b.WriteString(fence)
	b.WriteString(langTag(p))
	b.WriteByte('\n')
	b.WriteString(content)
	if content != "" && !strings.HasSuffix(content, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(fence)
	b.WriteByte('\n')
	return b.String()
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
