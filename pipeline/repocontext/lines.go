package repocontext

import (
	"bytes"
	"strings"
)

// maxLogicalLines bounds how many physical lines one logical line (an
// import list in parentheses, a signature over several lines) may span.
const maxLogicalLines = 64

// nextLine returns the line of src starting at off, without its line
// ending, and the offset of the next line.
func nextLine(src []byte, off int) (line []byte, next int) {
	end := bytes.IndexByte(src[off:], '\n')
	if end < 0 {
		return bytes.TrimSuffix(src[off:], []byte("\r")), len(src)
	}
	return bytes.TrimSuffix(src[off:off+end], []byte("\r")), off + end + 1
}

// trimIndent trims leading spaces and tabs.
func trimIndent(b []byte) []byte {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return b[i:]
}

// logicalLine joins the physical lines of src from off while parentheses
// are open or a line ends in a backslash, with "#" comments cut when
// comments is set. It returns the joined line and the offset after it.
func logicalLine(src []byte, off int, comments bool) (string, int) {
	var b strings.Builder
	depth := 0
	for n := 0; off < len(src) && n < maxLogicalLines; n++ {
		var line []byte
		line, off = nextLine(src, off)
		if comments {
			line = stripComment(line)
		}
		line = bytes.TrimRight(line, " \t")
		if n > 0 {
			line = trimIndent(line)
		}
		cont := bytes.HasSuffix(line, []byte(`\`))
		line = bytes.TrimSuffix(line, []byte(`\`))
		depth += bytes.Count(line, []byte("(")) - bytes.Count(line, []byte(")"))
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.Write(line)
		if depth <= 0 && !cont {
			break
		}
	}
	return b.String(), off
}
