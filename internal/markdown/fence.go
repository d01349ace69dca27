package markdown

import "strings"

// Opening is a line that opens a fenced code block.
type Opening struct {
	Char   byte   // '`' or '~'
	Size   int    // length of the run
	Indent int    // leading spaces
	Lang   string // the first word of the info string, lower-case
}

// OpenFence recognises a line that opens a fenced code block. Unlike
// CommonMark, the fence may be indented by any amount (answers and issues
// indent them in lists).
func OpenFence(line string) (Opening, bool) {
	rest := strings.TrimLeft(line, " \t")
	f := Opening{Indent: len(line) - len(rest)}
	if !strings.HasPrefix(rest, "```") && !strings.HasPrefix(rest, "~~~") {
		return Opening{}, false
	}
	f.Char = rest[0]
	for f.Size < len(rest) && rest[f.Size] == f.Char {
		f.Size++
	}
	info := strings.TrimSpace(rest[f.Size:])
	if f.Char == '`' && strings.Contains(info, "`") {
		return Opening{}, false // inline code such as ```x```
	}
	if fields := strings.Fields(info); len(fields) > 0 {
		f.Lang = strings.ToLower(fields[0])
	}
	return f, true
}

// ClosedBy reports whether line closes the fence: at most three spaces of
// indentation (or the fence's own), a run of the same character at least as
// long, and nothing else.
func (f Opening) ClosedBy(line string) bool {
	rest := strings.TrimLeft(line, " \t")
	if len(line)-len(rest) > max(3, f.Indent) {
		return false
	}
	n := 0
	for n < len(rest) && rest[n] == f.Char {
		n++
	}
	return n >= f.Size && strings.TrimSpace(rest[n:]) == ""
}

// Unindent removes up to the fence's indentation from a content line.
func (f Opening) Unindent(line string) string {
	n := 0
	for n < f.Indent && n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	return line[n:]
}
