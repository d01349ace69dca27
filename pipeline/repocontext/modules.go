package repocontext

import (
	"path"
	"strings"
)

// maxModuleMatches is how many equally good files a module name may match
// before it counts as ambiguous and matches none.
const maxModuleMatches = 3

// moduleIndex finds the Python files that provide a dotted module name,
// wherever the package root is: the repository itself, src/, or any other
// directory.
type moduleIndex struct {
	// bySuffix maps every dot-separated tail of a module's name to the
	// modules so named: src/calc/ops.py is found as "ops", "calc.ops" and
	// "src.calc.ops".
	bySuffix map[string][]pyModule
}

// pyModule is a Python file seen as a module.
type pyModule struct {
	file int
	// depth is how many directories its name has beyond the key it was
	// found by: the depth of the package root that key implies (1 for
	// src/calc/ops.py found as calc.ops).
	depth int
	// root is that package root: "src" for src/calc/ops.py as calc.ops.
	root string
}

// newModuleIndex indexes the .py files among files.
func newModuleIndex(files []string) *moduleIndex {
	m := &moduleIndex{bySuffix: make(map[string][]pyModule)}
	for i, f := range files {
		name, ok := strings.CutSuffix(f, ".py")
		if !ok {
			continue
		}
		if pkg, ok := strings.CutSuffix(name, "/__init__"); ok {
			name = pkg
		} else if name == "__init__" {
			continue
		}
		dotted := strings.ReplaceAll(name, "/", ".")
		for depth, start := 0, 0; ; depth++ {
			key := dotted[start:]
			m.bySuffix[key] = append(m.bySuffix[key], pyModule{file: i, depth: depth, root: strings.TrimSuffix(name[:start], "/")})
			next := strings.IndexByte(key, '.')
			if next < 0 {
				break
			}
			start += next + 1
		}
	}
	return m
}

// resolve returns the files that provide module for code in directory
// from ("" for the repository root or the issue). The package root a match
// implies should hold from, and the deepest such root wins, as Python puts
// a script's own directory first on its path; failing that, the shallowest
// root wins. Roots deeper than maxDepth are not considered; nil means no
// match or too many.
func (m *moduleIndex) resolve(module, from string, maxDepth int) []int {
	var best []int
	var bestRank int
	for _, c := range m.bySuffix[module] {
		if c.depth > maxDepth {
			continue
		}
		// Lower ranks are better: holding roots by decreasing depth, then
		// the others by increasing depth.
		rank := maxDepthAny + c.depth
		if isWithin(from, c.root) {
			rank = -c.depth
		}
		switch {
		case best == nil || rank < bestRank:
			best, bestRank = []int{c.file}, rank
		case rank == bestRank:
			best = append(best, c.file)
		}
	}
	if len(best) > maxModuleMatches {
		return nil
	}
	return best
}

// isWithin reports whether path p is dir or inside it.
func isWithin(p, dir string) bool {
	return dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

// resolveImport returns the repository files an import in file from
// refers to: the module, or for a from-import each imported submodule and,
// when some imported name is not a submodule, the module it comes from.
func (r *repo) resolveImport(from int, imp pyImport) []int {
	dir := path.Dir(r.files[from])
	if dir == "." {
		dir = ""
	}
	if imp.level > 0 {
		return r.resolveRelative(dir, imp)
	}
	var out []int
	pkg := len(imp.names) == 0
	for _, name := range imp.names {
		sub := r.modules.resolve(imp.module+"."+name, dir, maxDepthAny)
		out = append(out, sub...)
		pkg = pkg || len(sub) == 0
	}
	if pkg {
		out = append(out, r.modules.resolve(imp.module, dir, maxDepthAny)...)
	}
	return out
}

// maxDepthAny lets a module's root be at any depth.
const maxDepthAny = 1 << 30

// resolveRelative resolves "from ..mod import x", counting the dots up from
// the directory of the importing file.
func (r *repo) resolveRelative(dir string, imp pyImport) []int {
	for range imp.level - 1 {
		if dir == "" {
			return nil // above the repository
		}
		dir = path.Dir(dir)
		if dir == "." {
			dir = ""
		}
	}
	base := path.Join(dir, strings.ReplaceAll(imp.module, ".", "/"))
	var out []int
	pkg := len(imp.names) == 0
	for _, name := range imp.names {
		i, ok := r.pyFile(path.Join(base, name))
		if ok {
			out = append(out, i)
		}
		pkg = pkg || !ok
	}
	if i, ok := r.pyFile(base); ok && pkg {
		out = append(out, i)
	}
	return out
}

// pyFile finds the module file at slash path p, without extension: p.py
// or p/__init__.py.
func (r *repo) pyFile(p string) (int, bool) {
	if i, ok := r.index[p+".py"]; ok {
		return i, true
	}
	i, ok := r.index[path.Join(p, "__init__.py")]
	return i, ok
}
