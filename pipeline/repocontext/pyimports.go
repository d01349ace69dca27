package repocontext

import (
	"bytes"
	"strings"
)

// pyImport is one module an import statement names.
type pyImport struct {
	// level is the number of leading dots of a relative import; 0 for an
	// absolute one.
	level int
	// module is the dotted module name; empty in "from . import x".
	module string
	// names are the names a from-import imports ("*" left out); nil for a
	// plain import.
	names []string
}

// isImportStart reports whether a line, with its indentation trimmed,
// starts an import statement.
func isImportStart(t []byte) bool {
	return bytes.HasPrefix(t, []byte("import ")) || bytes.HasPrefix(t, []byte("from "))
}

// stripComment cuts a line at a "#" comment. Imports hold no strings, so a
// "#" always starts one.
func stripComment(line []byte) []byte {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		return line[:i]
	}
	return line
}

// parseImports parses an import statement into the modules it names; it
// returns nil for anything that is not a well-formed import.
func parseImports(stmt string) []pyImport {
	stmt, _, _ = strings.Cut(stmt, ";")
	fields := strings.Fields(stmt)
	if len(fields) < 2 {
		return nil
	}
	switch fields[0] {
	case "import":
		var out []pyImport
		for _, part := range strings.Split(strings.Join(fields[1:], " "), ",") {
			mod, _, _ := strings.Cut(strings.TrimSpace(part), " as ")
			mod = strings.TrimSpace(mod)
			if !isDottedName(mod) {
				return nil
			}
			out = append(out, pyImport{module: mod})
		}
		return out
	case "from":
		if len(fields) < 4 || fields[2] != "import" {
			return nil
		}
		imp, ok := parseFromModule(fields[1])
		if !ok {
			return nil
		}
		list := strings.Trim(strings.Join(fields[3:], " "), "() ")
		for _, part := range strings.Split(list, ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(part), " as ")
			name = strings.TrimSpace(name)
			switch {
			case name == "*" || name == "":
			case isIdent(name):
				imp.names = append(imp.names, name)
			default:
				return nil
			}
		}
		return []pyImport{imp}
	}
	return nil
}

// parseFromModule parses the module of a from-import: leading dots, then
// an optional dotted name.
func parseFromModule(s string) (pyImport, bool) {
	mod := strings.TrimLeft(s, ".")
	imp := pyImport{level: len(s) - len(mod), module: mod}
	if mod == "" {
		return imp, imp.level > 0
	}
	return imp, isDottedName(mod)
}
