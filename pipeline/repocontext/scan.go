package repocontext

import (
	"bytes"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// fileScan is what scanning one source file found.
type fileScan struct {
	// defines are the symbols (indexes into analysis.symbols) the file
	// defines.
	defines []int32
	// mentions are the symbols a test file mentions.
	mentions []int32
	// imports are the repository files a Python file imports.
	imports []int32
	// terms count the words of the issue a source file that is not a
	// test uses, and size its identifier parts, for retrieval.
	terms []termHit
	size  int
	// quoted are the lines of a source file that is not a test that the
	// issue quotes.
	quoted []quoteHit
	// literals are the hyphenated names of the issue, then its names
	// written as code (indexes into issueText.literals followed by
	// issueText.codeNames), such a file holds as a string literal.
	literals []int32
}

// quoteHit is a line of a file the issue quotes: the quote's index in
// issueText.quotes and the line's number.
type quoteHit struct {
	quote, line int32
}

// scanner scans source files for definitions of the wanted names, for
// Python imports, and in tests for mentions of the names.
type scanner struct {
	r      *repo
	names  []string
	wanted map[string]int32
	// terms are the words of the issue to count.
	terms termIndex
	// quotes maps the lines the issue quotes, trimmed, to their index.
	quotes map[string]int32
	// literals are the forms each hyphenated name of the issue takes as a
	// string literal ("name", 'name', and an option's -name" and -name'),
	// then those of each name it writes as code ("name" and 'name').
	literals [][][]byte
}

// scan reads the head of every source file once, in parallel, and returns
// what it found by file index. With no names and no terms only Python
// files are read, for their imports.
func (r *repo) scan(names, terms []string, iss issueText) []fileScan {
	quotes := iss.quotes
	s := &scanner{r: r, names: names, wanted: make(map[string]int32, len(names)), terms: newTermIndex(terms),
		quotes: make(map[string]int32, len(quotes))}
	for _, lit := range iss.literals {
		s.literals = append(s.literals, [][]byte{
			[]byte(`"` + lit + `"`), []byte(`'` + lit + `'`), []byte(`-` + lit + `"`), []byte(`-` + lit + `'`),
		})
	}
	for _, name := range iss.codeNames {
		s.literals = append(s.literals, [][]byte{[]byte(`"` + name + `"`), []byte(`'` + name + `'`)})
	}
	for k, n := range names {
		s.wanted[n] = int32(k)
	}
	for k, q := range quotes {
		s.quotes[q] = int32(k)
	}
	var targets []int
	for i, f := range r.files {
		lang := langOf(f)
		if !r.symlink[i] && (lang == langPython || lang != langNone && len(names)+len(terms)+len(quotes)+len(iss.literals)+len(iss.codeNames) > 0) {
			targets = append(targets, i)
		}
	}
	out := make([]fileScan, len(r.files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(targets)) {
		wg.Go(func() {
			buf := make([]byte, scanSize)
			for {
				k := int(next.Add(1) - 1)
				if k >= len(targets) {
					return
				}
				out[targets[k]] = s.file(targets[k], buf)
			}
		})
	}
	wg.Wait()
	return out
}

// file scans file i, reading its head into buf.
func (s *scanner) file(i int, buf []byte) fileScan {
	var res fileScan
	data := s.r.readHead(i, buf)
	if data == nil {
		return res
	}
	py := langOf(s.r.files[i]) == langPython
	test := isTestFile(s.r.files[i])
	quotes := len(s.quotes) > 0 && !test
	n := int32(1) // the number of the line at off
	for off := 0; off < len(data); {
		start := off
		var line []byte
		line, off = nextLine(data, off)
		if len(s.wanted) > 0 {
			if name := definedName(line); name != nil {
				if k, ok := s.wanted[string(name)]; ok && !slices.Contains(res.defines, k) {
					res.defines = append(res.defines, k)
				}
			}
		}
		if quotes {
			if t := bytes.TrimSpace(line); len(t) >= minQuoteLen {
				if k, ok := s.quotes[string(t)]; ok {
					res.quoted = append(res.quoted, quoteHit{quote: k, line: n})
				}
			}
		}
		if py && isImportStart(trimIndent(line)) {
			var stmt string
			stmt, off = logicalLine(data, start, true)
			res.imports = s.imports(i, stmt, res.imports)
		}
		n += int32(bytes.Count(data[start:off], []byte{'\n'}))
	}
	if !test {
		for k, forms := range s.literals {
			for _, form := range forms {
				if bytes.Contains(data, form) {
					res.literals = append(res.literals, int32(k))
					break
				}
			}
		}
	}
	if len(s.terms.ids) > 0 && !test {
		res.terms, res.size = s.terms.count(data)
	}
	if test {
		for k, name := range s.names {
			if containsWord(data, name) {
				res.mentions = append(res.mentions, int32(k))
			}
		}
	}
	return res
}

// imports appends to dst the repository files an import statement in
// file i refers to.
func (s *scanner) imports(i int, stmt string, dst []int32) []int32 {
	for _, imp := range parseImports(stmt) {
		for _, f := range s.r.resolveImport(i, imp) {
			if f != i && !slices.Contains(dst, int32(f)) {
				dst = append(dst, int32(f))
			}
		}
	}
	return dst
}
