package edits

import (
	"fmt"
	"strings"
)

// quotePath quotes a name for a patch header the way git does when a name
// holds a double quote, a backslash or a control character. Other bytes,
// UTF-8 included, stay as they are, as with git's core.quotePath=false; git
// apply reads both forms.
func quotePath(name string) string {
	if !strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '"' || r == '\\' }) {
		return name
	}
	var w strings.Builder
	w.WriteByte('"')
	for i := range len(name) {
		switch c := name[i]; c {
		case '"', '\\':
			w.WriteByte('\\')
			w.WriteByte(c)
		case '\a':
			w.WriteString(`\a`)
		case '\b':
			w.WriteString(`\b`)
		case '\t':
			w.WriteString(`\t`)
		case '\n':
			w.WriteString(`\n`)
		case '\v':
			w.WriteString(`\v`)
		case '\f':
			w.WriteString(`\f`)
		case '\r':
			w.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&w, `\%03o`, c)
			} else {
				w.WriteByte(c)
			}
		}
	}
	w.WriteByte('"')
	return w.String()
}
