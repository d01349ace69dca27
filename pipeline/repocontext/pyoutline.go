package repocontext

import (
	"bytes"
	"strings"
)

// pyDef is a def or class of a Python file.
type pyDef struct {
	// name is the defined name; header the first line of the signature,
	// trimmed, with a multi-line parameter list joined onto it.
	name, header string
	class        bool
	// start is the first line, its first decorator's if it has one; end
	// its last non-blank line; body the line after the signature. Lines
	// are numbered from 1.
	start, body, end int
	// indent is the signature's indentation, in columns.
	indent int
	// parent is the index of the enclosing def or class, or -1.
	parent int
}

// pyOutline is the structure of a Python file read line by line.
type pyOutline struct {
	// lines are the file's lines without their line endings.
	lines []string
	defs  []pyDef
	// imports are the line ranges of the top-level import statements.
	imports []lineRange
	// owner maps each line to its innermost def; built on first use.
	owner []int32
}

// lineRange is an inclusive range of line numbers, from 1.
type lineRange struct{ start, end int }

// pyLexer tracks what the scanned text is inside: a string (and which
// quote closes it) and brackets.
type pyLexer struct {
	quote string // "", or the quote that closes the open string
	depth int    // open brackets
}

// scan reads one physical line and reports whether the logical line goes
// on after it: inside brackets or a triple-quoted string, or after a
// backslash.
func (l *pyLexer) scan(line string) bool {
	for i := 0; i < len(line); i++ {
		c := line[i]
		if l.quote != "" {
			switch {
			case c == '\\':
				i++
			case strings.HasPrefix(line[i:], l.quote):
				i += len(l.quote) - 1
				l.quote = ""
			}
			continue
		}
		switch c {
		case '#':
			return l.depth > 0
		case '"', '\'':
			q := line[i : i+1]
			if strings.HasPrefix(line[i:], q+q+q) {
				q += q + q
			}
			l.quote = q
			i += len(q) - 1
		case '(', '[', '{':
			l.depth++
		case ')', ']', '}':
			l.depth = max(l.depth-1, 0)
		case '\\':
			if i == len(line)-1 {
				return true
			}
		}
	}
	if len(l.quote) == 1 {
		l.quote = "" // an unterminated one-line string ends with its line
	}
	return l.quote != "" || l.depth > 0
}

// parsePython outlines Python source by its lines and indentation: the
// defs and classes (decorated, async, nested, with signatures over several
// lines) and the top-level imports. Text inside strings, docstrings and
// comments never starts a definition.
func parsePython(src []byte) *pyOutline {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	o := &pyOutline{}
	if text != "" {
		o.lines = strings.Split(text, "\n")
	}
	var lex pyLexer
	var open []int // indexes of the defs still open, innermost last
	decorator := 0 // the first line of pending decorators, or 0
	for n := 0; n < len(o.lines); {
		first := n
		for cont := true; cont && n < len(o.lines); n++ {
			cont = lex.scan(o.lines[n])
		}
		t := strings.TrimLeft(o.lines[first], " \t")
		if t == "" || t[0] == '#' {
			continue
		}
		indent := columns(o.lines[first])
		for len(open) > 0 && o.defs[open[len(open)-1]].indent >= indent {
			open = open[:len(open)-1]
		}
		for _, k := range open {
			o.defs[k].end = n
		}
		switch name, class, ok := defHeader(t); {
		case strings.HasPrefix(t, "@"):
			if decorator == 0 {
				decorator = first + 1
			}
		case ok:
			start := first + 1
			if decorator > 0 {
				start = decorator
			}
			parent := -1
			if len(open) > 0 {
				parent = open[len(open)-1]
			}
			o.defs = append(o.defs, pyDef{
				name: name, class: class, header: joinHeader(o.lines[first:n]),
				start: start, body: n + 1, end: n, indent: indent, parent: parent,
			})
			open = append(open, len(o.defs)-1)
			decorator = 0
		default:
			decorator = 0
			if indent == 0 && isImportStart([]byte(t)) {
				o.addImport(first+1, n)
			}
		}
	}
	return o
}

// defHeader reads the name a trimmed logical line defines with def, async
// def or class.
func defHeader(t string) (name string, class, ok bool) {
	t = strings.TrimPrefix(t, "async ")
	switch {
	case strings.HasPrefix(t, "def "):
		t = t[len("def "):]
	case strings.HasPrefix(t, "class "):
		t, class = t[len("class "):], true
	default:
		return "", false, false
	}
	id := identAt([]byte(strings.TrimLeft(t, " \t")))
	return string(id), class, id != nil
}

// joinHeader joins the lines of a signature into one, blanks collapsed,
// and cuts it at the ":" that ends it.
func joinHeader(lines []string) string {
	h := strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	h = strings.ReplaceAll(strings.ReplaceAll(h, "( ", "("), " )", ")")
	if i := strings.LastIndex(h, ":"); i > 0 && strings.TrimSpace(h[i+1:]) == "" {
		h = h[:i]
	} else if i := headerEnd(h); i > 0 {
		h = h[:i] // a one-line body after the colon
	}
	return h
}

// headerEnd finds the ":" after the balanced parameter list of a one-line
// def or class; 0 when there is none.
func headerEnd(h string) int {
	depth := 0
	for i := 0; i < len(h); i++ {
		switch h[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ':':
			if depth == 0 {
				return i
			}
		}
	}
	return 0
}

// addImport records the import statement on lines first to last, merged
// with the previous one when only blank lines or comments lie between.
func (o *pyOutline) addImport(first, last int) {
	if k := len(o.imports) - 1; k >= 0 && o.onlyBlank(o.imports[k].end+1, first-1) {
		o.imports[k].end = last
		return
	}
	o.imports = append(o.imports, lineRange{first, last})
}

// onlyBlank reports whether lines from to to are blank or comments.
func (o *pyOutline) onlyBlank(from, to int) bool {
	for n := from; n <= to; n++ {
		if t := strings.TrimSpace(o.lines[n-1]); t != "" && t[0] != '#' {
			return false
		}
	}
	return true
}

// columns is the width of a line's indentation, a tab to the next
// multiple of 8 as Python counts it.
func columns(line string) int {
	col := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			col++
		case '\t':
			col = col/8*8 + 8
		default:
			return col
		}
	}
	return col
}

// innermost returns the index of the innermost def holding line n, or -1.
func (o *pyOutline) innermost(n int) int {
	if o.owner == nil {
		// Defs come in order of their first line, so a nested def
		// overwrites its parent's lines.
		o.owner = make([]int32, len(o.lines)+1)
		for i := range o.owner {
			o.owner[i] = -1
		}
		for k, d := range o.defs {
			for i := d.start; i <= d.end; i++ {
				o.owner[i] = int32(k)
			}
		}
	}
	if n < 1 || n >= len(o.owner) {
		return -1
	}
	return int(o.owner[n])
}

// calls returns the names called on lines from to to, "name(" or
// "x.name(", in order of first call.
func (o *pyOutline) calls(from, to int) []string {
	var out []string
	seen := make(map[string]bool)
	for n := from; n <= to; n++ {
		line := []byte(o.lines[n-1])
		for off := 0; ; {
			i := bytes.IndexByte(line[off:], '(')
			if i < 0 {
				break
			}
			end := off + i
			start := end
			for start > 0 && isIdentByte(line[start-1]) {
				start--
			}
			if name := string(line[start:end]); isIdent(name) && !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
			off = end + 1
		}
	}
	return out
}
