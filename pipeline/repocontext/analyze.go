package repocontext

import (
	"cmp"
	"path"
	"slices"
	"strings"
)

const (
	// maxNames caps the symbols looked up in the repository; names not
	// written as code on purpose stop at maxWeakNames, so that a long code
	// block cannot crowd out the names that matter.
	maxNames     = 48
	maxWeakNames = 32
	// maxPathMatches is how many equally shallow files a base name such
	// as "ops.py" may match before it counts as ambiguous and matches none.
	maxPathMatches = 3
	// minNameLen is the shortest name the issue may name: one or two
	// letters (x, df, _) are everywhere.
	minNameLen = 3
	// minSuffixParts is the fewest trailing path parts a traceback's path
	// outside the repository (an installed package's) must share with a
	// repository file: "_pytest/python.py" for
	// ".../site-packages/_pytest/python.py" and "src/_pytest/python.py".
	minSuffixParts = 2
)

// symbol is a name the issue mentions.
type symbol struct {
	name string
	// spelled is how the issue states it: a signature, a qualified name,
	// or the name.
	spelled string
	// sig marks a spelling taken from a signature.
	sig bool
	// strong marks a name written as code on purpose.
	strong bool
	// listed marks a name to report in Context.Symbols, not only to rank
	// by (the class part of Calculator.divide is not).
	listed bool
}

// pick is a ranked file, why it was picked, and its tier.
type pick struct {
	file int
	why  string
	tier int
}

// Tiers of picks, best first.
const (
	// tierSeed: named in the issue, defining a named symbol, or (when
	// there are none) named like a word of the issue.
	tierSeed = iota + 1
	// tierRetrieved: using the most words of the issue (see retrieve).
	tierRetrieved
	// tierNeighbour: imported by a seed or importing one.
	tierNeighbour
	// tierTest: a test mentioning a named symbol or importing a seed.
	tierTest
	// tierProject: the README and setup files.
	tierProject
)

// analysis is what the issue names, resolved against the repository.
type analysis struct {
	// named are the files the issue names, in the order it names them.
	named []pick
	// packages are the top-level packages' __init__.py files the issue
	// names by the package's name alone (pytest.skip, `import pytest`):
	// mostly the project's own name, re-exporting its API, they rank
	// after the files the issue's words and functions find.
	packages []pick
	// symbols are the names it mentions, in order of first mention.
	symbols []*symbol
	byName  map[string]*symbol
	words   []string
	// lines are the line numbers traceback frames give, by file.
	lines map[int][]int
	// quoted are the lines of code the issue quotes, by file, and quoters
	// the files holding them, most quotes first.
	quoted  map[int][]int
	quoters []int
}

// quotedIn finds the files holding lines the issue quotes, from the scans:
// a quote found in more than maxDefiners files is too common to tell.
func (a *analysis) quotedIn(scans []fileScan) {
	files := make(map[int32]int)
	for _, s := range scans {
		seen := make(map[int32]bool)
		for _, h := range s.quoted {
			if !seen[h.quote] {
				seen[h.quote] = true
				files[h.quote]++
			}
		}
	}
	a.quoted = make(map[int][]int)
	count := make(map[int]int)
	for f, s := range scans {
		seen := make(map[int32]bool)
		for _, h := range s.quoted {
			if files[h.quote] > maxDefiners {
				continue
			}
			a.quoted[f] = append(a.quoted[f], int(h.line))
			if !seen[h.quote] {
				seen[h.quote] = true
				count[f]++
			}
		}
		if count[f] > 0 {
			a.quoters = append(a.quoters, f)
		}
	}
	slices.SortStableFunc(a.quoters, func(x, y int) int { return cmp.Compare(count[y], count[x]) })
}

// analyze resolves the mentions of an issue against the repository.
func (r *repo) analyze(iss issueText) *analysis {
	a := &analysis{byName: make(map[string]*symbol), words: iss.words, lines: make(map[int][]int)}
	for _, m := range iss.mentions {
		r.resolveMention(a, m)
	}
	a.innermostFirst()
	return a
}

// innermostFirst reverses the order of the files traceback frames name,
// among their places in a.named: a traceback lists the outermost frame
// first, and the innermost, where the error was raised, is likeliest to
// hold the bug.
func (a *analysis) innermostFirst() {
	var at []int
	for k, p := range a.named {
		if len(a.lines[p.file]) > 0 {
			at = append(at, k)
		}
	}
	for i, j := 0, len(at)-1; i < j; i, j = i+1, j-1 {
		a.named[at[i]], a.named[at[j]] = a.named[at[j]], a.named[at[i]]
	}
}

// resolveMention resolves one mention to named files or symbols.
func (r *repo) resolveMention(a *analysis, m mention) {
	if m.name != "" {
		a.addSymbol(m.name, m.text, true, true, true)
		return
	}
	if strings.ContainsAny(m.text, "./") {
		if files := r.matchPath(m.text); files != nil {
			for _, f := range files {
				a.addNamed(f, "named in the issue")
				if m.line > 0 {
					a.lines[f] = append(a.lines[f], m.line)
				}
			}
			return
		}
	}
	t := m.text
	for _, recv := range []string{"self.", "cls.", "this."} {
		t = strings.TrimPrefix(t, recv)
	}
	switch {
	case !isDottedName(t) || langTags[path.Ext(t)] != "":
		// Not a name; a file name such as power.py that is not (yet) in
		// the repository.
	case strings.Contains(t, "."):
		parts := strings.Split(t, ".")
		if files, n := r.matchModule(parts); files != nil {
			mod := strings.Join(parts[:n], ".")
			for _, f := range files {
				r.addModule(a, f, mod)
			}
			a.addQualified(parts, n, true)
		} else if m.code || m.call || m.strong {
			a.addQualified(parts, len(parts)-1, m.strong)
			if isUpperFirst(parts[0]) {
				a.addSymbol(parts[0], parts[0], false, m.strong, false)
			}
		}
	default:
		if f := r.pyModuleAtRoot(t); m.code && f >= 0 {
			r.addModule(a, f, t)
			return
		}
		a.addSymbol(t, t, false, m.strong, true)
	}
}

// addQualified adds the names of a dotted name after its first n parts:
// the last is listed as the whole dotted name, the others (a class) are
// ranked by only.
func (a *analysis) addQualified(parts []string, n int, strong bool) {
	for k := n; k < len(parts); k++ {
		last := k == len(parts)-1
		a.addSymbol(parts[k], strings.Join(parts[:k+1], "."), false, strong, last)
	}
}

// addSymbol records a mention of name, keeping the best spelling: a
// signature, else the first strong one, else the first.
func (a *analysis) addSymbol(name, spelled string, sig, strong, listed bool) {
	if stopNames[name] || len(name) < minNameLen {
		return
	}
	s := a.byName[name]
	if s == nil {
		if len(a.symbols) >= maxNames || !strong && len(a.symbols) >= maxWeakNames {
			return
		}
		s = &symbol{name: name, spelled: spelled, sig: sig}
		a.byName[name] = s
		a.symbols = append(a.symbols, s)
	} else if sig && !s.sig || strong && !s.strong && !s.sig {
		s.spelled, s.sig = spelled, sig
	}
	s.strong = s.strong || strong
	s.listed = s.listed || listed
}

// addModule records the file of a module the issue names: a top-level
// package's __init__.py among a.packages, any other among a.named.
func (r *repo) addModule(a *analysis, f int, mod string) {
	why := "module " + mod + " named in the issue"
	if !strings.Contains(mod, ".") && path.Base(r.files[f]) == "__init__.py" {
		a.packages = append(a.packages, pick{file: f, why: why, tier: tierNeighbour})
		return
	}
	a.addNamed(f, why)
}

// addNamed records a file the issue names, once.
func (a *analysis) addNamed(file int, why string) {
	for _, p := range a.named {
		if p.file == file {
			return
		}
	}
	a.named = append(a.named, pick{file: file, why: why, tier: tierSeed})
}

// matchPath finds the files a path-like token names: the file at that
// path; else the deepest file the token ends with (an absolute path in a
// traceback, a URL); else the shallowest files that end with the token
// ("ops.py", "calc/ops.py" for src/calc/ops.py).
func (r *repo) matchPath(tok string) []int {
	tok = strings.TrimPrefix(strings.ReplaceAll(tok, `\`, "/"), "./")
	cands := r.byBase[path.Base(tok)]
	if len(cands) == 0 {
		return nil
	}
	if i, ok := r.index[tok]; ok {
		return []int{i}
	}
	best := -1
	for _, c := range cands {
		if strings.HasSuffix(tok, "/"+r.files[c]) && (best < 0 || len(r.files[c]) > len(r.files[best])) {
			best = c
		}
	}
	if best >= 0 {
		return []int{best}
	}
	if strings.Contains(tok, "/") {
		if f := r.sharedSuffix(tok, cands); f >= 0 {
			return []int{f}
		}
	}
	var out []int
	minDepth := -1
	bare := !strings.Contains(tok, "/")
	for _, c := range cands {
		f := r.files[c]
		if !strings.HasSuffix(f, "/"+tok) {
			continue
		}
		if bare && isTestFile(f) && !isTestFile(tok) {
			continue // a configfile: pytest.ini of a pasted log, not the test fixtures'
		}
		switch depth := strings.Count(f, "/"); {
		case minDepth < 0 || depth < minDepth:
			out, minDepth = []int{c}, depth
		case depth == minDepth:
			out = append(out, c)
		}
	}
	if len(out) > maxPathMatches {
		return nil
	}
	return out
}

// sharedSuffix returns the one file of cands whose trailing path parts
// match the most of tok's, at least minSuffixParts: the repository's
// src/_pytest/python.py for an installed .../site-packages/_pytest/python.py.
// It returns -1 when none matches enough or two match equally.
func (r *repo) sharedSuffix(tok string, cands []int) int {
	parts := strings.Split(tok, "/")
	best, bestN, tie := -1, 0, false
	for _, c := range cands {
		fp := strings.Split(r.files[c], "/")
		n := 0
		for n < len(fp) && n < len(parts) && fp[len(fp)-1-n] == parts[len(parts)-1-n] {
			n++
		}
		switch {
		case n > bestN:
			best, bestN, tie = c, n, false
		case n == bestN:
			tie = true
		}
	}
	if bestN < minSuffixParts || tie {
		return -1
	}
	return best
}

// moduleRoots are where a single-part module name is looked for: an issue
// saying json.loads names a repository module only if json.py is at the
// top or in a conventional source directory.
var moduleRoots = []string{"", "src/", "lib/"}

// matchModule finds the longest prefix of a dotted name that names Python
// modules of the repository; it returns their files and the prefix length.
func (r *repo) matchModule(parts []string) ([]int, int) {
	for n := len(parts); n >= 2; n-- {
		if files := r.modules.resolve(strings.Join(parts[:n], "."), "", maxDepthAny); files != nil {
			return files, n
		}
	}
	if f := r.pyModuleAtRoot(parts[0]); f >= 0 {
		return []int{f}, 1
	}
	return nil, 0
}

// pyModuleAtRoot returns the file of the top-level module name in one of
// the moduleRoots, or -1.
func (r *repo) pyModuleAtRoot(name string) int {
	for _, root := range moduleRoots {
		if f, ok := r.pyFile(root + name); ok {
			return f
		}
	}
	return -1
}
