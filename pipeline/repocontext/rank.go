package repocontext

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
)

const (
	// maxDefiners is how many files may define a name before it counts as
	// too common to rank by (__init__, run, ...).
	maxDefiners = 4
	// maxImporters caps the files picked for importing one seed.
	maxImporters = 3
	// maxImported caps the files picked for being imported by one seed.
	maxImported = 6
	// maxTests caps the tests picked.
	maxTests = 8
	// maxStemPicks caps the files picked by file name alone.
	maxStemPicks = 3
)

// projectFiles are the root files shown last, while budget remains, in
// this order; READMEs of any extension come first.
var projectFiles = []string{
	"pyproject.toml", "setup.cfg", "setup.py", "requirements.txt",
	"requirements-dev.txt", "tox.ini", "pytest.ini", "package.json", "go.mod",
}

// ranking orders the files of a repository for an issue.
type ranking struct {
	r     *repo
	a     *analysis
	scans []fileScan
	picks []pick
	seen  map[int]bool
	// testDefiners are the tests that define a named symbol (see
	// definers); they rank first among the tests.
	testDefiners []pick
}

// rank returns the files to show, best first, in the tiers the package
// documentation describes.
func rank(r *repo, a *analysis, scans []fileScan, ret retrieval, iss issueText, best map[int][]repoDef) []pick {
	k := &ranking{r: r, a: a, scans: scans, seen: make(map[int]bool)}
	for _, p := range a.named {
		k.add(p.file, tierSeed, p.why)
	}
	for _, f := range a.quoters {
		k.add(f, tierSeed, "holds lines the issue quotes")
	}
	lits := slices.Concat(iss.literals, iss.codeNames)
	held, defined := k.literalHolders(len(lits)), k.definedOutsideTests()
	n := len(iss.literals)
	k.literals(lits[:n], held[:n], defined)
	k.definers()
	k.literals(lits[n:], held[n:], defined)
	if len(k.picks) == 0 {
		k.stems(tierSeed)
	}
	seeds := slices.Clone(k.picks)
	if len(seeds) == 0 {
		k.retrieved(ret, tierSeed)
		seeds = slices.Clone(k.picks)
	} else {
		k.stems(tierRetrieved)
		k.retrieved(ret, tierRetrieved)
	}
	for _, p := range a.packages {
		k.add(p.file, p.tier, p.why)
	}
	k.neighbours(seeds, ret)
	k.bestDefs(best)
	k.moreRetrieved(ret)
	for _, p := range k.testDefiners {
		k.add(p.file, p.tier, p.why)
	}
	k.tests(seeds)
	k.project()
	return k.picks
}

// add picks file unless it is already picked.
func (k *ranking) add(file, tier int, why string) {
	if !k.seen[file] {
		k.seen[file] = true
		k.picks = append(k.picks, pick{file: file, why: why, tier: tier})
	}
}

// literals picks the files that hold lits as string literals (held are
// those files, by name), in their order: the issue's hyphenated names
// (where a message id or an option is declared) and, after the definers,
// the names it writes as code (see issueText.codeNames), those no file but
// a test defines (a stub of the reproducer: defined holds the names other
// files define) and that name no top-level module (a value compared with,
// a key read: `ALL`, `pass_env`). A name held by more than maxDefiners
// files is skipped.
func (k *ranking) literals(lits []string, held [][]int, defined map[string]bool) {
	for l, files := range held {
		if len(files) <= maxDefiners && !defined[lits[l]] && k.r.pyModuleAtRoot(lits[l]) < 0 {
			for _, f := range files {
				k.add(f, tierSeed, fmt.Sprintf("holds the string %q", lits[l]))
			}
		}
	}
}

// literalHolders returns, for each of the n literals the scans looked for,
// the files holding it.
func (k *ranking) literalHolders(n int) [][]int {
	held := make([][]int, n)
	for f, s := range k.scans {
		for _, l := range s.literals {
			held[l] = append(held[l], f)
		}
	}
	return held
}

// definedOutsideTests returns the names of the issue that a file other
// than a test defines.
func (k *ranking) definedOutsideTests() map[string]bool {
	defined := make(map[string]bool)
	for f, s := range k.scans {
		if isTestFile(k.r.files[f]) {
			continue
		}
		for _, n := range s.defines {
			defined[k.a.symbols[n].name] = true
		}
	}
	return defined
}

// definers picks the files that define the named symbols: names defined
// in fewer files first (a name defined once is the most telling), ties in
// the order the issue names them; a name defined in too many files is
// skipped. Tests are kept in k.testDefiners, not picked as seeds: a class
// of the issue's reproducer may share a test's name, and a test defines a
// stub or a fake of the code more often than the code the issue is about.
func (k *ranking) definers() {
	byName := make([][]int, len(k.a.symbols))
	for f, s := range k.scans {
		for _, n := range s.defines {
			byName[n] = append(byName[n], f)
		}
	}
	order := make([]int, 0, len(byName))
	for n, files := range byName {
		if len(files) > 0 && len(files) <= maxDefiners {
			order = append(order, n)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(byName[a]), len(byName[b])) })
	for _, n := range order {
		for _, f := range byName[n] {
			var names []string
			for _, d := range k.scans[f].defines {
				if len(byName[d]) <= maxDefiners {
					names = append(names, k.a.symbols[d].name)
				}
			}
			why := "defines " + strings.Join(names, ", ")
			if !isTestFile(k.r.files[f]) {
				k.add(f, tierSeed, why)
			} else {
				// A test defining several names comes more than once;
				// k.add keeps the first.
				k.testDefiners = append(k.testDefiners, pick{file: f, why: why, tier: tierTest})
			}
		}
	}
}

// stems picks source files whose name, without extension and
// underscores, is a word of the issue or two words of it in a row ("man
// page" for manpage.py): as seeds when the issue names no file and no
// defined symbol, else after the seeds, in the given tier.
func (k *ranking) stems(tier int) {
	var words []string
	for i, w := range k.a.words {
		if len(w) >= 4 && !stopStems[w] {
			words = append(words, w)
		}
		if i > 0 && len(k.a.words[i-1])+len(w) >= 6 && !stopStems[k.a.words[i-1]+w] {
			words = append(words, k.a.words[i-1]+w)
		}
	}
	wanted := makeSet(strings.Join(words, " "))
	byStem := make(map[string][]int)
	for i, f := range k.r.files {
		if langOf(f) == langNone || isTestFile(f) {
			continue
		}
		stem := strings.ReplaceAll(strings.ToLower(strings.TrimSuffix(path.Base(f), path.Ext(f))), "_", "")
		if wanted[stem] {
			byStem[stem] = append(byStem[stem], i)
		}
	}
	picked := 0
	for _, w := range words {
		files := byStem[w]
		if len(files) > maxStemPicks {
			continue
		}
		for _, f := range files {
			if picked < maxStemPicks && !k.seen[f] {
				k.add(f, tier, fmt.Sprintf("file name matches %q in the issue", w))
				picked++
			}
		}
		delete(byStem, w)
	}
}

// retrieved picks the files that use the most words of the issue: as
// seeds when the issue names nothing, else after the seeds, without
// their neighbours.
func (k *ranking) retrieved(ret retrieval, tier int) {
	for _, f := range ret.best(maxRetrieved) {
		k.add(f, tier, "uses words of the issue: "+strings.Join(ret.words[f], ", "))
	}
}

// bestDefs picks the files of the functions that hold the issue's words
// best, best first, after the seeds and their neighbours.
func (k *ranking) bestDefs(best map[int][]repoDef) {
	var defs []repoDef
	for _, ds := range best {
		defs = append(defs, ds...)
	}
	slices.SortFunc(defs, func(x, y repoDef) int { return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.file, y.file)) })
	for _, d := range defs {
		k.add(d.file, tierNeighbour, "defines "+d.name+", "+d.why())
	}
}

// moreRetrieved picks the files retrieval ranks after the first
// maxRetrieved, up to maxMoreRetrieved, after the seeds' neighbours: the
// issue's words are the only lead to a file it does not name, and budget
// left over serves them better than tests.
func (k *ranking) moreRetrieved(ret retrieval) {
	files := ret.best(maxRetrieved + maxMoreRetrieved)
	for _, f := range files[min(maxRetrieved, len(files)):] {
		k.add(f, tierNeighbour, "uses words of the issue: "+strings.Join(ret.words[f], ", "))
	}
}

// stopStems are file names too common to match an issue's words.
var stopStems = makeSet("test tests main init setup index conftest utils util helpers common")

// neighbours picks, for each seed, the files it imports and up to
// maxImporters files that import it, those holding the issue's words
// best; tests are left to the test tier. The neighbours of all seeds are
// then ordered by the issue's words (BM25), not seed by seed: a file the
// fix touches is more often one that uses those words than the first
// seed's first import.
func (k *ranking) neighbours(seeds []pick, ret retrieval) {
	importers := k.importers(seeds, false)
	byWords := func(a, b int) int { return cmp.Compare(ret.score[b], ret.score[a]) }
	var picks []pick
	for _, s := range seeds {
		var imported []int
		for _, f := range k.scans[s.file].imports {
			if !isTestFile(k.r.files[f]) {
				imported = append(imported, int(f))
			}
		}
		// A seed that imports many files (a package re-exporting its
		// modules) gives away most of the budget: only those holding the
		// issue's words best are picked.
		slices.SortStableFunc(imported, byWords)
		for _, f := range imported[:min(len(imported), maxImported)] {
			picks = append(picks, pick{file: f, tier: tierNeighbour, why: "imported by " + k.r.files[s.file]})
		}
		importing := slices.Clone(importers[s.file])
		slices.SortStableFunc(importing, byWords)
		for _, f := range importing[:min(len(importing), maxImporters)] {
			picks = append(picks, pick{file: f, tier: tierNeighbour, why: "imports " + k.r.files[s.file]})
		}
	}
	slices.SortStableFunc(picks, func(a, b pick) int { return byWords(a.file, b.file) })
	for _, p := range picks {
		k.add(p.file, p.tier, p.why)
	}
}

// importers maps each seed to the files that import it, in path order:
// tests only, or only files that are not tests.
func (k *ranking) importers(seeds []pick, tests bool) map[int][]int {
	isSeed := make(map[int32]bool, len(seeds))
	for _, s := range seeds {
		isSeed[int32(s.file)] = true
	}
	out := make(map[int][]int)
	for f, s := range k.scans {
		if isTestFile(k.r.files[f]) != tests {
			continue
		}
		for _, imp := range s.imports {
			if isSeed[imp] {
				out[int(imp)] = append(out[int(imp)], f)
			}
		}
	}
	return out
}

// tests picks up to maxTests tests that mention a named symbol or import a
// seed: those doing both first, then by how many symbols they mention.
func (k *ranking) tests(seeds []pick) {
	type test struct {
		file     int
		imports  string // the first seed it imports
		mentions []string
	}
	both := func(t *test) int {
		if t.imports != "" && len(t.mentions) > 0 {
			return 1
		}
		return 0
	}
	byFile := make(map[int]*test)
	get := func(f int) *test {
		if byFile[f] == nil {
			byFile[f] = &test{file: f}
		}
		return byFile[f]
	}
	importers := k.importers(seeds, true)
	for _, s := range seeds {
		for _, f := range importers[s.file] {
			if t := get(f); t.imports == "" {
				t.imports = k.r.files[s.file]
			}
		}
	}
	for f, s := range k.scans {
		for _, n := range s.mentions {
			get(f).mentions = append(get(f).mentions, k.a.symbols[n].name)
		}
	}
	tests := make([]*test, 0, len(byFile))
	for _, t := range byFile {
		tests = append(tests, t)
	}
	slices.SortFunc(tests, func(a, b *test) int {
		return cmp.Or(
			cmp.Compare(both(b), both(a)),
			cmp.Compare(len(b.mentions), len(a.mentions)),
			cmp.Compare(a.file, b.file))
	})
	for _, t := range tests[:min(len(tests), maxTests)] {
		var why []string
		if t.imports != "" {
			why = append(why, "imports "+t.imports)
		}
		if len(t.mentions) > 0 {
			why = append(why, "mentions "+strings.Join(t.mentions, ", "))
		}
		k.add(t.file, tierTest, "test that "+strings.Join(why, " and "))
	}
}

// project picks the README and setup files at the repository root.
func (k *ranking) project() {
	for i, f := range k.r.files {
		if !strings.Contains(f, "/") && strings.HasPrefix(strings.ToLower(f), "readme") {
			k.add(i, tierProject, "project README")
		}
	}
	for _, f := range projectFiles {
		if i, ok := k.r.index[f]; ok {
			k.add(i, tierProject, "project setup")
		}
	}
}
