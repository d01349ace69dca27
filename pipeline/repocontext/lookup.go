package repocontext

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Bounds of a lookup's answer, besides its token budget.
const (
	// maxDefinitions is the most definitions of one name shown; the
	// others are listed.
	maxDefinitions = 5
	// maxSearchFiles and maxSearchLines bound the files and the matching
	// lines a search shows; the others are listed.
	maxSearchFiles = 10
	maxSearchLines = 40
	// maxListed caps the files a note lists.
	maxListed = 10
)

// Lookup answers the programmer agent's requests to see more of a
// repository than its context showed: a file, whole or some of its
// lines; the definitions of a name; the lines that hold a string. It
// reads the repository as Build does, with the same exclusions (skipped
// and hidden directories, files named as credentials, binary files,
// files over 1 MiB, symbolic links leading out or into a skipped
// directory), and renders what it shows as the context renders files,
// each line exact. It is not safe for concurrent use.
type Lookup struct {
	r         *repo
	protected func(string) bool
}

// OpenLookup walks the repository at dir for lookups. opts.Protected
// marks the files shown as read-only and opts.Exclude skips directories,
// as in Build; the other options are not used. Close releases it.
func OpenLookup(dir string, opts Options) (*Lookup, error) {
	r, err := openRepo(dir, opts.Exclude)
	if err != nil {
		return nil, err
	}
	return &Lookup{r: r, protected: opts.Protected}, nil
}

// Close releases the repository.
func (l *Lookup) Close() { l.r.close() }

// Found is what a lookup shows, or why it shows nothing.
type Found struct {
	// Text holds the files' sections as the context renders them; empty
	// when nothing is shown.
	Text string
	// Notes say what was left out of Text, and why.
	Notes []string
	// Refused says why nothing is shown: a path outside the repository,
	// a secret or binary file, no such file, nothing found.
	Refused string
}

// File shows the file at the slash-separated path p, relative to the
// repository: whole when from is 0, else lines from to to, within budget
// tokens. A whole file over budget is shown as its outline (Python) or
// its head and tail; a range over budget is cut at its end.
func (l *Lookup) File(p string, from, to, budget int) Found {
	i, why := l.resolve(p)
	if why != "" {
		return Found{Refused: why}
	}
	data, reason := l.r.read(i)
	if reason != "" {
		return Found{Refused: reason}
	}
	name, content := l.r.files[i], strings.ToValidUTF8(string(data), "\uFFFD")
	lines := splitLines(content)
	if from == 0 {
		return l.whole(name, content, lines, budget)
	}
	if from > len(lines) {
		return Found{Refused: fmt.Sprintf("the file has %d lines", len(lines))}
	}
	var notes []string
	if to > len(lines) {
		notes = append(notes, fmt.Sprintf("%s has %d lines: shown to its end", name, len(lines)))
		to = len(lines)
	}
	part := &partial{path: name, why: "you asked for them", readOnly: l.readOnly(name), lines: lines, intro: ": the lines you asked for."}
	render := func(end int) string {
		part.spans = []Span{{Start: from, End: end, Why: "you asked for them"}}
		return part.render()
	}
	// The number of ends, from `from` on, whose section fits.
	n := sort.Search(to-from+1, func(k int) bool { return EstimateTokens(render(from+k)) > budget })
	if n == 0 {
		return Found{Refused: fmt.Sprintf("not even line %d fits the %d tokens this request has left", from, budget)}
	}
	if end := from + n - 1; end < to {
		notes = append(notes, fmt.Sprintf("%s lines %s left out: over this request's budget", name, lineRange{end + 1, to}))
	}
	return Found{Text: render(from + n - 1), Notes: notes}
}

// whole shows a file whole if its section fits budget, else its outline
// (a Python file) or its head and tail, asking for the lines needed.
func (l *Lookup) whole(name, content string, lines []string, budget int) Found {
	section := fileSection(name, "the whole file, as you asked", l.readOnly(name), content)
	tokens := EstimateTokens(section)
	if tokens <= budget {
		return Found{Text: section}
	}
	over := fmt.Sprintf(", %d tokens whole, more than the %d this request has left", tokens, budget)
	part := &partial{path: name, why: "you asked for the whole file", readOnly: l.readOnly(name), lines: lines}
	if langOf(name) == langPython {
		part.outline = outlineText(parsePython([]byte(content)), nil, max(4*budget-400, 0))
		part.intro = over + ": its outline (definitions with their lines). Ask for the lines you need."
		if text := part.render(); part.outline != "" && EstimateTokens(text) <= budget {
			return Found{Text: text}
		}
		part.outline = ""
	}
	part.intro = over + ": its head and tail. Ask for the lines you need."
	for limit := 4 * budget; limit > 0; limit = limit * 3 / 4 {
		part.spans = nil
		for _, c := range headAndTail(lines, limit) {
			part.spans = append(part.spans, Span{Start: c.start, End: c.end, Why: c.why})
		}
		if text := part.render(); len(part.spans) > 0 && EstimateTokens(text) <= budget {
			return Found{Text: text}
		}
	}
	return Found{Refused: fmt.Sprintf("%d tokens whole, and not even a part fits the %d this request has left", tokens, budget)}
}

// Definition shows where the repository's Python, Go, JavaScript and
// TypeScript files define name, within budget tokens: a Python def or
// class whole (decorators included), other definitions to the end of
// their indented block. A dotted name (Stats.median, calc.stats.median)
// is matched against the enclosing classes and the file's module path.
func (l *Lookup) Definition(name string, budget int) Found {
	parts := strings.Split(name, ".")
	last, qual := parts[len(parts)-1], parts[:len(parts)-1]
	var hits []shownFile
	count := 0
	for i, f := range l.r.files {
		if l.r.symlink[i] || langOf(f) == langNone {
			continue
		}
		data, reason := l.r.read(i)
		if reason != "" || !bytes.Contains(data, []byte(last)) {
			continue
		}
		lines, defs := definitions(f, strings.ToValidUTF8(string(data), "\uFFFD"), last, qual)
		if len(defs) == 0 {
			continue
		}
		sf := shownFile{path: f, lines: lines, why: "defines " + name}
		for _, d := range defs {
			if count++; count > maxDefinitions {
				sf.more = append(sf.more, d)
				continue
			}
			sf.spans = append(sf.spans, Span{Start: d.start, End: d.end, Why: "defines " + name})
		}
		hits = append(hits, sf)
	}
	if len(hits) == 0 {
		return Found{Refused: fmt.Sprintf("no definition of %s in the repository's Python, Go, JavaScript or TypeScript files", name)}
	}
	return l.show(hits, ": the definition you asked for.", budget)
}

// Search shows the lines of the repository's text files that hold text
// exactly, each with the lines around it as the context shows spans,
// within budget tokens and the bounds on files and lines.
func (l *Lookup) Search(text string, budget int) Found {
	var hits []shownFile
	count := 0
	for i, f := range l.r.files {
		if l.r.symlink[i] {
			continue
		}
		data, reason := l.r.read(i)
		if reason != "" || !bytes.Contains(data, []byte(text)) {
			continue
		}
		sf := shownFile{path: f, lines: splitLines(strings.ToValidUTF8(string(data), "\uFFFD")), why: "holds the text you searched for"}
		for n, line := range sf.lines {
			if !strings.Contains(line, text) {
				continue
			}
			r := lineRange{n + 1, n + 1}
			if count++; count > maxSearchLines || len(hits) >= maxSearchFiles {
				sf.more = append(sf.more, r)
				continue
			}
			sf.spans = append(sf.spans, Span{Start: max(1, n+1-contextLines), End: min(len(sf.lines), n+1+contextLines), Why: fmt.Sprintf("line %d", n+1)})
		}
		if len(sf.spans)+len(sf.more) > 0 {
			hits = append(hits, sf)
		}
	}
	if len(hits) == 0 {
		return Found{Refused: fmt.Sprintf("no file the context may show holds %q", text)}
	}
	return l.show(hits, fmt.Sprintf(": the lines that hold the text, with %d lines around each.", contextLines), budget)
}

// shownFile is a file with the spans a definition or search shows of it,
// and the matches past the bounds, only listed.
type shownFile struct {
	path  string
	lines []string
	why   string
	spans []Span
	more  []lineRange
}

// show renders the spans of files in order while they fit budget, and
// notes the files and lines left out.
func (l *Lookup) show(files []shownFile, intro string, budget int) Found {
	var b strings.Builder
	var leftOut, over []string
	used := 0
	for _, f := range files {
		var lines []string
		for _, r := range f.more {
			lines = append(lines, r.String())
		}
		if len(f.spans) == 0 {
			leftOut = append(leftOut, fmt.Sprintf("%s (lines %s)", f.path, strings.Join(lines, ", ")))
			continue
		}
		if len(lines) > 0 {
			leftOut = append(leftOut, fmt.Sprintf("%s (lines %s)", f.path, strings.Join(lines, ", ")))
		}
		part := &partial{path: f.path, why: f.why, readOnly: l.readOnly(f.path), lines: f.lines, spans: merged(f.spans), intro: intro}
		section := part.render()
		if used+EstimateTokens(section) > budget {
			over = append(over, fmt.Sprintf("%s (lines %s)", f.path, spanList(part.spans)))
			continue
		}
		b.WriteString(section)
		used += EstimateTokens(section)
	}
	var notes []string
	if len(leftOut) > 0 {
		notes = append(notes, "more matches, left out past the bounds of one request: "+listed(leftOut))
	}
	if len(over) > 0 {
		notes = append(notes, "left out, over this request's budget: "+listed(over))
	}
	if b.Len() == 0 {
		return Found{Refused: fmt.Sprintf("nothing found fits the %d tokens this request has left", budget), Notes: notes}
	}
	return Found{Text: b.String(), Notes: notes}
}

// spanList lists spans' line ranges: "3-9, 40-52".
func spanList(spans []Span) string {
	var out []string
	for _, s := range spans {
		out = append(out, lineRange{s.Start, s.End}.String())
	}
	return strings.Join(out, ", ")
}

// listed joins items, at most maxListed of them, counting the others.
func listed(items []string) string {
	if len(items) > maxListed {
		return strings.Join(items[:maxListed], "; ") + fmt.Sprintf("; and %d more", len(items)-maxListed)
	}
	return strings.Join(items, "; ")
}

// definitions returns the lines of the file at p and the ranges where it
// defines name inside the scopes qual names (enclosing classes, then the
// module path, innermost last), as definedName reads definitions.
func definitions(p, content, name string, qual []string) ([]string, []lineRange) {
	var o *pyOutline
	var quoted []bool
	lines := splitLines(content)
	if langOf(p) == langPython {
		o = parsePython([]byte(content))
		lines, quoted = o.lines, inString(o.lines)
	}
	mod := moduleParts(p)
	var out []lineRange
	for n := 1; n <= len(lines); n++ {
		line := lines[n-1]
		if quoted != nil && quoted[n-1] || string(definedName([]byte(line))) != name {
			continue
		}
		if o == nil {
			if qualified(mod, qual) {
				out = append(out, lineRange{n, blockEnd(lines, n)})
			}
			continue
		}
		k := slices.IndexFunc(o.defs, func(d pyDef) bool { return d.name == name && d.start <= n && n < d.body })
		switch {
		case k >= 0 && qualified(append(slices.Clone(mod), o.scopes(k)...), qual):
			out = append(out, lineRange{o.defs[k].start, o.defs[k].end})
		case k < 0 && columns(line) == 0 && qualified(mod, qual):
			out = append(out, lineRange{n, blockEnd(lines, n)}) // a top-level assignment
		}
	}
	return lines, out
}

// inString marks the lines of Python source that start inside a string,
// as a docstring's do.
func inString(lines []string) []bool {
	var lex pyLexer
	out := make([]bool, len(lines))
	for i, line := range lines {
		out[i] = lex.quote != ""
		lex.scan(line)
	}
	return out
}

// scopes names the classes and defs around def k, outermost first.
func (o *pyOutline) scopes(k int) []string {
	var out []string
	for p := o.defs[k].parent; p >= 0; p = o.defs[p].parent {
		out = append(out, o.defs[p].name)
	}
	slices.Reverse(out)
	return out
}

// moduleParts splits the path of a file into the parts of its module:
// calc/stats.py is calc, stats; a package's __init__.py its directory.
func moduleParts(p string) []string {
	p = strings.TrimSuffix(p, path.Ext(p))
	parts := strings.Split(p, "/")
	if parts[len(parts)-1] == "__init__" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// qualified reports whether qual ends scopes.
func qualified(scopes, qual []string) bool {
	return len(qual) <= len(scopes) && slices.Equal(scopes[len(scopes)-len(qual):], qual)
}

// blockEnd is the last line of the definition on line n, read by
// indentation: the lines indented deeper, and a closing bracket at the
// definition's own indentation; at most maxSpanLines lines.
func blockEnd(lines []string, n int) int {
	indent, end := columns(lines[n-1]), n
	for m := n + 1; m <= len(lines) && m < n+maxSpanLines; m++ {
		t := strings.TrimSpace(lines[m-1])
		switch {
		case t == "":
			continue
		case columns(lines[m-1]) > indent:
			end = m
			continue
		case strings.ContainsRune("})]", rune(t[0])):
			return m
		}
		return end
	}
	return end
}

// readOnly reports whether the model may not change the file at p.
func (l *Lookup) readOnly(p string) bool { return l.protected != nil && l.protected(p) }

// resolve finds the file at the slash-separated path p, or says why
// there is none to show: p leaves the repository, goes through a
// symbolic link to a directory or into a directory the walk skips, is a
// directory, or names nothing.
func (l *Lookup) resolve(p string) (int, string) {
	const outside = "outside the repository: give a path relative to its root, without .."
	switch {
	case p == "":
		return -1, "no path"
	case path.IsAbs(p) || filepath.IsAbs(p) || strings.HasPrefix(p, "~") || strings.Contains(p, "\\"),
		slices.Contains(strings.Split(p, "/"), ".."):
		return -1, outside
	}
	clean := path.Clean(p)
	if clean == "." || !filepath.IsLocal(filepath.FromSlash(clean)) {
		return -1, outside
	}
	if i, ok := l.r.index[clean]; ok {
		return i, ""
	}
	abs := func(rel string) string { return filepath.Join(l.r.dir, filepath.FromSlash(rel)) }
	for dir := path.Dir(clean); dir != "."; dir = path.Dir(dir) {
		if fi, err := os.Lstat(abs(dir)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return -1, fmt.Sprintf("it lies under %s, a symbolic link to a directory, which the context does not follow", dir)
		}
	}
	fi, err := os.Lstat(abs(clean))
	switch {
	case l.r.inSkipped(clean) || err == nil && fi.IsDir() && l.r.skip(clean, path.Base(clean)):
		return -1, "in a directory the context never shows (version control, dependencies, virtual environments, caches, build output, hidden directories)"
	case err == nil && fi.IsDir():
		return -1, "a directory; ask for one of its files: " + l.filesUnder(clean)
	case err == nil:
		return -1, reasonIrreg
	}
	if same := l.r.byBase[path.Base(clean)]; len(same) > 0 {
		var names []string
		for _, i := range same {
			names = append(names, l.r.files[i])
		}
		return -1, "no such file; files of that name: " + listed(names)
	}
	return -1, "no such file"
}

// filesUnder lists the files the walk found in directory dir.
func (l *Lookup) filesUnder(dir string) string {
	var names []string
	for _, f := range l.r.files {
		if strings.HasPrefix(f, dir+"/") {
			names = append(names, f)
		}
	}
	if len(names) == 0 {
		return "none the context may show"
	}
	return listed(names)
}
