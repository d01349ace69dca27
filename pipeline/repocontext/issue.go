package repocontext

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/capsulehq/capsule/internal/markdown"
)

// mention is something the issue names: a path, a module, a symbol.
type mention struct {
	// text is as written: a token (identifier, dotted name or path), or
	// the header of a signature.
	text string
	// name is the name a signature defines; empty for a token.
	name string
	// call marks a token written as a call, "name(".
	call bool
	// code marks text in inline code or a code block.
	code bool
	// strong marks names written as code on purpose (in backticks, as a
	// signature, in snake_case), reported even when the repository does not
	// define them.
	strong bool
	// line is the line number a traceback frame gives for its file; 0
	// when none.
	line int
}

// issueText is what an issue names.
type issueText struct {
	mentions []mention
	// words are the identifiers of the prose in lower case, for matching
	// file names when the issue names nothing else.
	words []string
	// quotes are the lines of code the issue quotes, trimmed, that are long
	// enough to be looked for as they are in the repository's files.
	quotes []string
	// literals are the hyphenated names it writes (a message id such as
	// function-redefined, an option such as --add-imports without its
	// dashes), looked for as string literals.
	literals []string
	// codeNames are the single names it writes as inline code (`ALL`,
	// `pass_env`), looked for as string literals too: a name no file
	// defines is often a value the code compares with or a key it reads.
	codeNames []string
}

// maxLiterals caps the hyphenated names looked for, and the names written
// as code.
const maxLiterals = 8

// literal records tok if it is a hyphenated name: two or more parts of
// letters, digits and underscores joined by single hyphens, six bytes or
// more.
func (p *issueText) literal(tok string) {
	tok = strings.TrimLeft(tok, "-")
	if len(tok) < 6 || len(p.literals) >= maxLiterals || slices.Contains(p.literals, tok) {
		return
	}
	parts := strings.Split(tok, "-")
	if len(parts) < 2 {
		return
	}
	for _, part := range parts {
		if part == "" || !isIdent(part) {
			return
		}
	}
	p.literals = append(p.literals, tok)
}

// typingNames are the names of Python's typing module an issue writes as
// code: a library's, not values of the project.
var typingNames = makeSet(`
	Any Optional Union List Dict Set FrozenSet Tuple Type Callable Literal
	Sequence Mapping Iterable Iterator Generator Annotated ClassVar Final
	TypeVar Generic Protocol TypedDict NamedTuple NoReturn Never Self
`)

// codeName records a single name written as inline code, up to
// maxLiterals of them.
func (p *issueText) codeName(name string) {
	if len(name) >= minNameLen && !stopNames[name] && !typingNames[name] && len(p.codeNames) < maxLiterals && !slices.Contains(p.codeNames, name) {
		p.codeNames = append(p.codeNames, name)
	}
}

const (
	// minQuoteLen is the shortest quoted line looked for in the files.
	minQuoteLen = 16
	// maxQuotes caps the quoted lines looked for.
	maxQuotes = 96
)

// quote records a line of code the issue quotes, if it is long enough to
// tell one file's line from another's.
func (p *issueText) quote(line string) {
	t := strings.TrimSpace(line)
	if len(t) >= minQuoteLen && len(p.quotes) < maxQuotes && !slices.Contains(p.quotes, t) {
		p.quotes = append(p.quotes, t)
	}
}

// parseIssue reads the title and body of an issue as Markdown: fenced code
// blocks, inline code and prose are read by different rules.
func parseIssue(iss Issue) issueText {
	var p issueText
	p.markdownLine(iss.Title)
	lines := strings.Split(iss.Body, "\n")
	for i := 0; i < len(lines); i++ {
		fence, ok := markdown.OpenFence(lines[i])
		if !ok {
			p.markdownLine(strings.TrimSuffix(lines[i], "\r"))
			continue
		}
		end := i + 1
		for end < len(lines) && !fence.ClosedBy(lines[end]) {
			end++
		}
		p.codeBlock([]byte(strings.Join(lines[i+1:end], "\n")))
		i = end
	}
	return p
}

// add records a mention.
func (p *issueText) add(m mention) {
	p.mentions = append(p.mentions, m)
}

// markdownLine reads a line of Markdown outside code blocks: inline code
// spans are code, the rest prose.
func (p *issueText) markdownLine(line string) {
	if p.traceback(line) {
		return
	}
	for line != "" {
		open := strings.IndexByte(line, '`')
		if open < 0 {
			p.prose(line)
			return
		}
		p.prose(line[:open])
		n := open
		for n < len(line) && line[n] == '`' {
			n++
		}
		ticks := line[open:n]
		end := strings.Index(line[n:], ticks)
		if end < 0 {
			p.prose(line[n:])
			return
		}
		p.inlineCode(line[n : n+end])
		line = line[n+end+len(ticks):]
	}
}

// traceback reads a Python traceback frame line,
// `File "calc/ops.py", line 3, in divide`, wherever it appears; the
// function is a weak mention, as it may be a library's.
func (p *issueText) traceback(line string) bool {
	_, rest, ok := strings.Cut(line, `File "`)
	if !ok {
		return p.shortFrame(line)
	}
	file, rest, ok := strings.Cut(rest, `"`)
	if !ok || !strings.HasPrefix(rest, ", line ") {
		return false
	}
	num, _, _ := strings.Cut(strings.TrimPrefix(rest, ", line "), ",")
	n, _ := strconv.Atoi(strings.TrimSpace(num))
	p.add(mention{text: file, code: true, line: n})
	if _, fn, ok := strings.Cut(rest, ", in "); ok && isIdent(strings.TrimSpace(fn)) {
		p.add(mention{text: strings.TrimSpace(fn), code: true})
	}
	return true
}

// shortFrame reads a frame of pytest's short traceback,
// `src/calc/ops.py:3: in divide` or `calc\ops.py:3: ZeroDivisionError`,
// at the start of a line.
func (p *issueText) shortFrame(line string) bool {
	t := strings.TrimLeft(line, " \t")
	file, rest, ok := strings.Cut(t, ".py:")
	if !ok || file == "" || strings.ContainsAny(file, " \t\"'`") {
		return false
	}
	num, rest, ok := strings.Cut(rest, ":")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 {
		return false
	}
	p.add(mention{text: file + ".py", code: true, line: n})
	if fn, ok := strings.CutPrefix(rest, " in "); ok && isIdent(strings.TrimSpace(fn)) {
		p.add(mention{text: strings.TrimSpace(fn), code: true})
	}
	return true
}

// prose reads text outside code: paths and dotted names, calls, and
// identifiers that look like code (snake_case strongly, CamelCase weakly).
func (p *issueText) prose(s string) {
	for _, m := range quotedName.FindAllStringSubmatch(s, -1) {
		p.add(mention{text: m[1], code: true})
	}
	scanTokens(s, func(tok string, call, empty bool) {
		switch {
		case call:
			p.add(mention{text: tok, call: true, strong: empty || looksLikeCode(tok)})
		case strings.ContainsAny(tok, "./"):
			p.add(mention{text: tok, strong: isDottedName(tok) && looksLikeCode(tok)})
		case strings.Contains(tok, "-"):
			p.literal(tok)
		case isIdent(tok):
			p.words = append(p.words, strings.ToLower(tok))
			if isSnake(tok) || isCamel(tok) {
				p.add(mention{text: tok, strong: isSnake(tok)})
			}
		}
	})
}

// quotedName matches a name in quotes in prose, as error messages print
// them: local variable 'noqa', no attribute "fields", ‘ignore-paths’.
var quotedName = regexp.MustCompile(`['"‘“]([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)['"’”]`)

// looksLikeCode reports whether a name or dotted name is spelled as only
// code is: with an underscore, mixed case, or a capitalised word followed
// by another part (Calculator.divide, not E.g).
func looksLikeCode(tok string) bool {
	first, rest, dotted := strings.Cut(tok, ".")
	return strings.Contains(tok, "_") || isCamel(tok) ||
		dotted && isUpperFirst(first) && len(first) > 1 && len(rest) > 1
}

// inlineCode reads the text of a code span: a signature, an import, a
// single name, path or call, or else the calls and dotted names in it.
func (p *issueText) inlineCode(s string) {
	s = strings.TrimSpace(s)
	if name, header, ok := parseSignature(s); ok {
		p.add(mention{text: header, name: name, code: true, strong: true})
		return
	}
	if p.imports(s, true) {
		return
	}
	if !strings.ContainsAny(s, " \t") {
		if open := strings.IndexByte(s, '('); open > 0 && isDottedName(s[:open]) && strings.HasSuffix(s, ")") {
			p.add(mention{text: s[:open], call: true, code: true, strong: true})
			return
		}
		if isDottedName(s) || strings.ContainsAny(s, "./") {
			if isIdent(s) {
				p.codeName(s)
			}
			p.add(mention{text: s, code: true, strong: true})
			return
		}
	}
	p.quote(s)
	p.codeTokens(s, true)
}

// codeBlock reads a fenced code block line by line: signatures (joined
// over several lines), imports, traceback frames, calls and dotted names.
// Only signatures are strong: the rest may be library code.
func (p *issueText) codeBlock(src []byte) {
	for off := 0; off < len(src); {
		start := off
		var line []byte
		line, off = nextLine(src, off)
		t := string(trimIndent(line))
		p.quote(t)
		switch {
		case p.traceback(t):
		case isSignatureStart(t):
			var joined string
			joined, off = logicalLine(src, start, false)
			if name, header, ok := parseSignature(joined); ok {
				p.add(mention{text: header, name: name, code: true, strong: true})
			}
		case isImportStart([]byte(t)):
			var stmt string
			stmt, off = logicalLine(src, start, true)
			p.imports(stmt, false)
		default:
			p.codeTokens(t, false)
		}
	}
}

// isSignatureStart reports whether a trimmed line starts a definition.
func isSignatureStart(t string) bool {
	_, _, ok := parseSignature(t)
	return ok
}

// imports reads an import statement: the module, and module.name for each
// name a from-import imports, are dotted mentions.
func (p *issueText) imports(stmt string, strong bool) bool {
	imps := parseImports(stmt)
	for _, imp := range imps {
		if imp.level > 0 {
			continue // relative to a file the issue does not say
		}
		if len(imp.names) == 0 {
			p.add(mention{text: imp.module, code: true, strong: strong})
		}
		for _, name := range imp.names {
			p.add(mention{text: imp.module + "." + name, code: true, strong: strong})
		}
	}
	return imps != nil
}

// codeTokens reads the calls, paths and dotted names in a line of code.
func (p *issueText) codeTokens(s string, strong bool) {
	scanTokens(s, func(tok string, call, _ bool) {
		switch {
		case call || strings.ContainsAny(tok, "./"):
			p.add(mention{text: tok, call: call, code: true, strong: strong})
		case strings.Contains(tok, "-"):
			p.literal(tok)
		}
	})
}

// isTokenByte reports whether c may appear in a token: an identifier, a
// dotted name or a path.
func isTokenByte(c byte) bool {
	return isIdentByte(c) || c == '.' || c == '/' || c == '-'
}

// scanTokens calls fn for each token of s with leading dashes and trailing
// punctuation trimmed, saying whether it is written as a call and whether
// that call is empty, "name()".
func scanTokens(s string, fn func(tok string, call, empty bool)) {
	for i := 0; i < len(s); {
		if !isTokenByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isTokenByte(s[j]) {
			j++
		}
		raw := s[i:j]
		tok := strings.TrimRight(strings.TrimLeft(raw, "-"), ".-/")
		call := tok != "" && strings.HasSuffix(raw, tok) && j < len(s) && s[j] == '(' && isDottedName(tok)
		empty := call && j+1 < len(s) && s[j+1] == ')'
		if tok != "" {
			fn(tok, call, empty)
		}
		i = j
	}
}
