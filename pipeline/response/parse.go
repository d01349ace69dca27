package response

import (
	"fmt"
	"github.com/capsulehq/capsule/pipeline/edits"
	"regexp"
	"strings"
)

// parser holds the state of one ParseFunction call.
type parser struct {
	entry    string
	edits    bool // read SEARCH/REPLACE blocks (repository mode)
	lines    []string
	thinking string // the <think> part, if any

	wrappedReasoning string // the reasoning inside a ```markdown block holding the answer
	resp             Response
	errs             []error

	firstHeader int         // line of the first requirements, code or file header; 0 if none
	reqLines    []string    // text of the requirements section
	codeText    []string    // unfenced lines of the code section, from the first Python-looking one
	codeLine    int         // line of codeText[0]
	blocks      []candidate // fenced blocks that may hold the code
	chosenLine  int         // line of the chosen block; 0 if none or unfenced
	fileIndex   map[string]int
	nBlocks     int // SEARCH/REPLACE blocks seen so far
}

// candidate is a fenced block outside file blocks and the section it is in.
type candidate struct {
	element
	section section
}

// fileHeader is a "### File:" header waiting for its fenced block.
type fileHeader struct {
	n, line int
	path    string
}

// commentRE matches a one-hash Python comment, which Markdown would read as
// a heading.
var commentRE = regexp.MustCompile(`^[ \t]*#(?:[ \t]|$)`)

// cutThinking removes a leading <think>...</think> part (or everything up to
// a lone </think>), keeping it as reasoning. The part is replaced by blank
// lines so that line numbers in messages stay right.
func (p *parser) cutThinking(answer string) string {
	const open, closing = "<think>", "</think>"
	start := strings.Index(answer, open)
	if start >= 0 && strings.TrimSpace(answer[:start]) != "" {
		start = -1 // only a leading <think> opens a thinking part
	}
	from := 0
	if start >= 0 {
		from = start + len(open)
	}
	end := strings.Index(answer[from:], closing)
	switch {
	case start >= 0 && end < 0:
		p.thinking = strings.TrimSpace(answer[from:])
		p.resp.Truncated = true
		p.warnf("the answer ends inside its <think> part; it may be truncated")
		return ""
	case end < 0:
		return answer
	}
	end += from
	p.thinking = strings.TrimSpace(answer[from:end])
	return strings.Repeat("\n", strings.Count(answer[:end], "\n")) + answer[end+len(closing):]
}

// walker is the state of walk between elements.
type walker struct {
	p       *parser
	sec     section
	pending *fileHeader // a file header waiting for its first fenced block
	cur     *fileHeader // the file header whose section this is
	files   int
	// lastText is the last non-blank text line since a header or fence;
	// inBareCode is set inside unfenced code under a Code header.
	lastText   string
	inBareCode bool
}

// header opens a section; a file header waits for its fenced block.
func (w *walker) header(e element) {
	p := w.p
	if w.pending != nil {
		p.noContent(w.pending)
		w.pending = nil
	}
	w.sec, w.inBareCode, w.cur, w.lastText = e.section, false, nil, ""
	if w.sec.structural() && p.firstHeader == 0 {
		p.firstHeader = e.line
	}
	switch w.sec {
	case sectionRequirements:
		p.reqLines = append(p.reqLines, e.rest)
	case sectionFile:
		w.files++
		w.pending = &fileHeader{n: w.files, line: e.line, path: strings.Trim(e.rest, " \t`'\"*")}
		w.cur = w.pending
		if w.pending.path == "" {
			p.errs = append(p.errs, fmt.Errorf("%w: file block %d (line %d) has an empty path",
				ErrFileBlock, w.pending.n, w.pending.line))
		}
	}
}

// text reads a line outside fences: a requirement, or unfenced code.
func (w *walker) text(e element) {
	p := w.p
	if strings.TrimSpace(e.text) != "" {
		w.lastText = e.text
	}
	switch {
	case w.sec == sectionRequirements:
		p.reqLines = append(p.reqLines, e.text)
	case w.sec == sectionCode && (w.inBareCode || startsLikePython(e.text)):
		if !w.inBareCode {
			p.codeText, p.codeLine, w.inBareCode = nil, e.line, true
		}
		p.codeText = append(p.codeText, e.text)
	}
}

// fence reads a fenced block: SEARCH/REPLACE blocks, a whole file,
// requirements, or a candidate code block.
func (w *walker) fence(e element) {
	p := w.p
	if !e.closed {
		p.resp.Truncated = true
		p.warnf("the answer ends inside the fenced block opened at line %d; it may be truncated", e.line)
	}
	switch {
	case p.edits && hasBlocks(e.text):
		p.editFence(w.cur, w.lastText, e)
		w.pending = nil
	case w.pending != nil:
		if w.pending.path != "" {
			p.addFile(w.pending, e)
		}
		w.pending = nil
	case w.sec == sectionRequirements && !(pythonLang(e.lang) && looksLikePython(e.text)):
		p.reqLines = append(p.reqLines, strings.Split(e.text, "\n")...)
	default:
		p.blocks = append(p.blocks, candidate{element: e, section: w.sec})
	}
	w.lastText = ""
}

// walk reads the elements in order, collecting requirements, candidate code
// blocks and file blocks.
func (p *parser) walk(elems []element) {
	w := walker{p: p}
	for _, e := range elems {
		if e.kind == elementHeader && w.sec == sectionCode && !e.section.structural() && commentRE.MatchString(e.text) {
			e.kind = elementText // a Python comment in unfenced code, not a heading
		}
		switch e.kind {
		case elementHeader:
			w.header(e)
		case elementText:
			w.text(e)
		case elementFence:
			w.fence(e)
		}
	}
	if w.pending != nil {
		p.noContent(w.pending)
	}
	reqs, ignored := parseRequirements(p.reqLines)
	p.resp.Requirements = reqs
	for _, item := range ignored {
		p.warnf("ignored requirement %q: not a third-party package name", item)
	}
}

// addFile records a file block; a later block for the same path wins.
func (p *parser) addFile(h *fileHeader, e element) {
	f := edits.FileEdit{Path: h.path, Whole: true, Content: tidyFile(e.text)}
	if f.Content == "" {
		p.warnf("file block %d (line %d) for %q is empty", h.n, h.line, f.Path)
	}
	if i, ok := p.fileIndex[f.Path]; ok {
		p.warnf("file %q is given more than once; using the later block %d (line %d)", f.Path, h.n, h.line)
		p.resp.Files[i] = f
		return
	}
	p.appendFile(f)
}

// appendFile adds a file not seen before.
func (p *parser) appendFile(f edits.FileEdit) {
	if p.fileIndex == nil {
		p.fileIndex = map[string]int{}
	}
	p.fileIndex[f.Path] = len(p.resp.Files)
	p.resp.Files = append(p.resp.Files, f)
}

// editFence records the SEARCH/REPLACE blocks of a fenced block for the
// file named alone on the line before the fence (as aider writes them), or
// else the file of the current section. Blocks for one file accumulate
// across fences and headers; they replace an earlier whole-file block.
func (p *parser) editFence(h *fileHeader, lastText string, e element) {
	path := ""
	switch {
	case looksLikePath(lastText):
		path = strings.Trim(strings.TrimSpace(lastText), "`'\"*:")
		p.warnf("the SEARCH/REPLACE blocks at line %d have no \"### File:\" header; using the path %q written before them", e.line, path)
	case h != nil:
		path = h.path
	default:
		p.errs = append(p.errs, fmt.Errorf("%w: the SEARCH/REPLACE blocks at line %d name no file; put \"### File: path\" before them",
			ErrFileBlock, e.line))
		return
	}
	if path == "" {
		return // the empty path is already reported
	}
	first := e.line + 1
	if e.bare {
		first = e.line
	}
	blocks, err := p.parseBlocks(path, e.text, first, p.nBlocks+1)
	p.nBlocks += len(blocks)
	if err != nil {
		p.errs = append(p.errs, err)
	}
	if len(blocks) == 0 {
		return
	}
	i, ok := p.fileIndex[path]
	switch {
	case !ok:
		p.appendFile(edits.FileEdit{Path: path, Blocks: blocks})
	case p.resp.Files[i].Whole:
		p.warnf("file %q is given whole and then by SEARCH/REPLACE blocks; using the blocks", path)
		p.resp.Files[i] = edits.FileEdit{Path: path, Blocks: blocks}
	default:
		p.resp.Files[i].Blocks = append(p.resp.Files[i].Blocks, blocks...)
	}
}

// looksLikePath reports whether a line is a lone file path such as
// "pkg/mod.py".
func looksLikePath(line string) bool {
	t := strings.Trim(strings.TrimSpace(line), "`'\"*:")
	return t != "" && !strings.ContainsAny(t, " \t") && strings.Contains(t, ".")
}

// noContent reports a file header that no fenced block follows.
func (p *parser) noContent(h *fileHeader) {
	if h.path == "" {
		return // already reported
	}
	p.errs = append(p.errs, fmt.Errorf("%w: file block %d (line %d) for %q has no fenced content",
		ErrFileBlock, h.n, h.line, h.path))
}

// reasoning returns the prose before the first section header or the chosen
// code block, after the thinking part (and before the reasoning of an answer
// wrapped in a markdown block).
func (p *parser) reasoning() string {
	end := len(p.lines) + 1 // as a 1-based line number
	for _, line := range []int{p.firstHeader, p.chosenLine} {
		if line > 0 {
			end = min(end, line)
		}
	}
	if p.resp.Code != "" && p.chosenLine == 0 && p.firstHeader == 0 {
		end = 1 // bare code
	}
	lines := p.lines[:end-1]
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if len(lines) > 0 {
		if h, ok := parseHeader(lines[0]); ok && h.section == sectionReasoning {
			lines = lines[1:] // "### Reasoning" itself
		}
	}
	var parts []string
	for _, part := range []string{p.thinking, strings.TrimSpace(strings.Join(lines, "\n")), p.wrappedReasoning} {
		if part != "" {
			parts = append(parts, part)
		}
	}
	return strings.Join(parts, "\n\n")
}

// warnf adds a warning.
func (p *parser) warnf(format string, args ...any) {
	p.resp.Warnings = append(p.resp.Warnings, fmt.Sprintf(format, args...))
}
