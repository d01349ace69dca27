package repocontext

import (
	"fmt"
	"slices"
	"strings"
)

// How many entries an expanded directory lists before the rest are
// summed up in a "... and N more files" line. A directory on the way to a
// ranked file lists up to treeFocusEntries, or fewer when that does not
// fit, down to none but the entries on the way.
const (
	treeEntries      = 12
	treeFocusEntries = 60
)

// focusLimits are the entry counts tried, in order, for a directory on the
// way to a ranked file.
var focusLimits = []int{treeFocusEntries, treeEntries, 0}

// Expansion phases: directories on the way to ranked files first, then
// those holding source code, then all others.
const (
	phaseFocus = iota
	phaseSource
	phaseOther
)

// treeDir is a directory of the file tree.
type treeDir struct {
	name, path string
	level      int // 0 for the root, whose entries are not indented
	dirs       []*treeDir
	files      []string
	// total counts the files in the subtree, sources the source files.
	total, sources int
	// focus marks a directory holding a ranked file somewhere below.
	focus bool
	// expanded marks a directory listed entry by entry; the others show
	// as one line with their file count.
	expanded bool
	// limit is how many entries an expanded directory lists besides those
	// on the way to ranked files.
	limit int
}

// renderTree lists files in at most limit bytes. It expands directories
// breadth first, those on the way to the focus files, then those holding
// source code, then the others, until the next expansion does not fit.
// Directories are listed before files. It returns "" when not even the
// file count fits.
func renderTree(files []string, focus map[string]bool, limit int) string {
	root := newTree(files, focus)
	t := &tree{focus: focus, limit: limit}
	if !t.expand(root) {
		if s := fmt.Sprintf("(%s)\n", plural(root.total, "file")); len(s) <= limit {
			return s
		}
		return ""
	}
	for phase := range phaseOther + 1 {
		if !t.expandAll(root, phase) && phase != phaseFocus {
			break
		}
	}
	var b strings.Builder
	t.write(&b, root)
	return b.String()
}

// tree tracks the expansion of a tree within its byte limit.
type tree struct {
	focus map[string]bool
	limit int
	// used is the size of the listing as expanded so far.
	used int
}

// expandAll expands, level by level, the directories shown but collapsed
// that belong to phase. It reports whether all fitted; the focus phase
// goes on past one that does not, the others stop there.
func (t *tree) expandAll(root *treeDir, phase int) bool {
	all := true
	level := []*treeDir{root}
	for len(level) > 0 {
		var next []*treeDir
		for _, d := range level {
			showDir, _, _ := t.choose(d, d.limit)
			for k, c := range d.dirs {
				if !showDir[k] || !inPhase(c, phase) {
					continue
				}
				if !c.expanded && !t.expand(c) {
					if phase != phaseFocus {
						return false
					}
					all = false
					continue
				}
				next = append(next, c)
			}
		}
		level = next
	}
	return all
}

// inPhase reports whether phase expands d.
func inPhase(d *treeDir, phase int) bool {
	switch phase {
	case phaseFocus:
		return d.focus
	case phaseSource:
		return d.sources > 0
	}
	return true
}

// expand expands d if its entries fit, and reports whether they did.
func (t *tree) expand(d *treeDir) bool {
	limits := []int{treeEntries}
	if d.focus {
		limits = focusLimits
	}
	for _, limit := range limits {
		if cost := t.cost(d, limit); t.used+cost <= t.limit {
			t.used += cost
			d.expanded, d.limit = true, limit
			return true
		}
	}
	return false
}

// cost is how many bytes expanding d adds to the listing.
func (t *tree) cost(d *treeDir, limit int) int {
	cost := 0
	if d.level > 0 {
		cost -= len(collapsedSuffix(d)) // its own line loses the count
	}
	indent := 2 * d.level
	showDir, showFile, hidden := t.choose(d, limit)
	for k, c := range d.dirs {
		if showDir[k] {
			cost += indent + len(c.name) + len("/") + len(collapsedSuffix(c)) + 1
		}
	}
	for k, f := range d.files {
		if showFile[k] {
			cost += indent + len(f) + 1
		}
	}
	if hidden > 0 {
		cost += indent + len(moreLine(hidden)) + 1
	}
	return cost
}

// choose decides which entries of d to list: entries on the way to focus
// files, then the first ones up to limit, directories before files. It
// returns how many files the entries left out hold.
func (t *tree) choose(d *treeDir, limit int) (showDir, showFile []bool, hidden int) {
	showDir, showFile = make([]bool, len(d.dirs)), make([]bool, len(d.files))
	shown := 0
	for k, c := range d.dirs {
		if c.focus || shown < limit {
			showDir[k] = true
			shown++
		} else {
			hidden += c.total
		}
	}
	hiddenFiles := 0
	for k, f := range d.files {
		if t.focus[joinPath(d.path, f)] || shown < limit {
			showFile[k] = true
			shown++
		} else {
			hiddenFiles++
		}
	}
	if hiddenFiles == 1 && hidden == 0 {
		// One left-out file takes a line either way: list it.
		showFile[slices.Index(showFile, false)] = true
		hiddenFiles = 0
	}
	return showDir, showFile, hidden + hiddenFiles
}

// write writes the listed entries of the expanded directory d.
func (t *tree) write(b *strings.Builder, d *treeDir) {
	indent := strings.Repeat("  ", d.level)
	showDir, showFile, hidden := t.choose(d, d.limit)
	for k, c := range d.dirs {
		if !showDir[k] {
			continue
		}
		b.WriteString(indent + c.name + "/")
		if !c.expanded {
			b.WriteString(collapsedSuffix(c) + "\n")
			continue
		}
		b.WriteString("\n")
		t.write(b, c)
	}
	for k, f := range d.files {
		if showFile[k] {
			b.WriteString(indent + f + "\n")
		}
	}
	if hidden > 0 {
		b.WriteString(indent + moreLine(hidden) + "\n")
	}
}

// collapsedSuffix follows the name of a collapsed directory.
func collapsedSuffix(d *treeDir) string {
	return " (" + plural(d.total, "file") + ")"
}

// moreLine sums up the entries an expanded directory leaves out.
func moreLine(hidden int) string {
	return "... and " + plural(hidden, "more file")
}

// newTree builds the directory tree of files; focus marks the directories
// on the way to the given files.
func newTree(files []string, focus map[string]bool) *treeDir {
	root := &treeDir{}
	index := map[string]*treeDir{"": root}
	for _, f := range files {
		dir, base := "", f
		if i := strings.LastIndexByte(f, '/'); i >= 0 {
			dir, base = f[:i], f[i+1:]
		}
		d := treeDirAt(index, dir)
		d.files = append(d.files, base)
		source := langOf(f) != langNone
		for p := d; ; p = index[parentDir(p.path)] {
			p.total++
			p.focus = p.focus || focus[f]
			if source {
				p.sources++
			}
			if p == root {
				break
			}
		}
	}
	for _, d := range index {
		slices.SortFunc(d.dirs, func(a, b *treeDir) int { return strings.Compare(a.name, b.name) })
		slices.Sort(d.files)
	}
	return root
}

// treeDirAt returns the directory at slash path p, creating it and its
// parents in index.
func treeDirAt(index map[string]*treeDir, p string) *treeDir {
	if d := index[p]; d != nil {
		return d
	}
	parent := treeDirAt(index, parentDir(p))
	d := &treeDir{name: p[strings.LastIndexByte(p, '/')+1:], path: p, level: parent.level + 1}
	parent.dirs = append(parent.dirs, d)
	index[p] = d
	return d
}

// parentDir is the parent of a slash path; "" for the root.
func parentDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// joinPath joins a directory and a name as a slash path.
func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// plural writes n and a noun, with an "s" unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
