package response

import (
	"maps"
	"slices"
	"strings"
)

// isCandidate reports whether a fenced block may hold the code.
func (c candidate) isCandidate() bool {
	if strings.TrimSpace(c.text) == "" {
		return false
	}
	if c.lang == "" {
		return looksLikePython(c.text)
	}
	return pythonLangs[c.lang]
}

// chooseCode picks the code: a block under the Code header, else unfenced
// code under it, else (when there are no file blocks) any Python block.
// Among several blocks it prefers one defining the entry point, then one
// defining anything, then the longest.
func (p *parser) chooseCode() {
	var inCode, others []candidate
	for _, c := range p.blocks {
		switch {
		case !c.isCandidate():
		case c.section == sectionCode:
			inCode = append(inCode, c)
		default:
			others = append(others, c)
		}
	}
	if len(p.resp.Files) > 0 {
		others = nil // with file blocks, only an explicit Code section is code
	}
	switch {
	case len(inCode) > 0:
		all := make([]candidate, 0, len(inCode)+len(others))
		p.useBlock(inCode, append(append(all, inCode...), others...))
	case len(p.codeText) > 0:
		p.resp.Code = tidyCode(strings.Join(p.codeText, "\n"))
		p.warnf("the code under the Code header at line %d is not fenced", p.codeLine)
	case len(others) > 0:
		p.useBlock(others, others)
	}
}

// useBlock takes the best of the candidates, together with any blocks of
// helper definitions it needs (see helpers).
func (p *parser) useBlock(cands, all []candidate) {
	best := cands[0]
	for _, c := range cands[1:] {
		if p.better(c, best) {
			best = c
		}
	}
	used := helpers(best, all)
	var parts []string
	for _, c := range used {
		parts = append(parts, strings.TrimRight(tidyCode(c.text), "\n"))
	}
	p.resp.Code = strings.Join(parts, "\n\n\n") + "\n"
	p.chosenLine = used[0].line
	if len(all) > 1 {
		p.warnf("%d code blocks found; used the one at line %d", len(all), best.line)
	}
	for _, c := range used {
		if c.line != best.line {
			p.warnf("added the block at line %d, which defines %s used by the code",
				c.line, strings.Join(topLevelNames(tidyCode(c.text)), ", "))
		}
	}
}

// better reports whether block a beats block b.
func (p *parser) better(a, b candidate) bool {
	if p.entry != "" {
		if da, db := defines(a.text, p.entry), defines(b.text, p.entry); da != db {
			return da
		}
	}
	if da, db := anyDefRE.MatchString(a.text), anyDefRE.MatchString(b.text); da != db {
		return da
	}
	return len(strings.TrimSpace(a.text)) > len(strings.TrimSpace(b.text))
}

// helpers returns the chosen block together with the other blocks that
// define functions or classes it uses (directly or through another helper),
// in answer order: models often give a helper in one block and the main
// function in the next. Only blocks of pure definitions qualify, so example
// and test blocks, which run code at top level, are never merged, and
// neither is a block redefining a name already defined.
func helpers(chosen candidate, all []candidate) []candidate {
	type info struct {
		names []string
		words map[string]bool
		ok    bool // a block of definitions only
	}
	infos := make([]info, len(all))
	used := make([]bool, len(all))
	defined := map[string]bool{}
	words := map[string]bool{}
	for i, c := range all {
		text := tidyCode(c.text)
		infos[i] = info{names: topLevelNames(text), words: wordSet(text), ok: definitionsOnly(text)}
		if c.line == chosen.line {
			used[i] = true
			for _, n := range infos[i].names {
				defined[n] = true
			}
			maps.Copy(words, infos[i].words)
		}
	}
	for added := true; added; {
		added = false
		for i, in := range infos {
			if used[i] || !in.ok || len(in.names) == 0 || slices.ContainsFunc(in.names, func(n string) bool { return defined[n] }) ||
				!slices.ContainsFunc(in.names, func(n string) bool { return words[n] }) {
				continue
			}
			used[i], added = true, true
			for _, n := range in.names {
				defined[n] = true
			}
			maps.Copy(words, in.words)
		}
	}
	var out []candidate
	for i, c := range all {
		if used[i] {
			out = append(out, c)
		}
	}
	return out
}

// unwrapMarkdown handles an answer wrapped whole in a ```markdown block, as
// some models write it: the first such block that yields code or files is
// parsed as the answer.
func (p *parser) unwrapMarkdown() {
	for _, c := range p.blocks {
		if c.lang != "markdown" && c.lang != "md" {
			continue
		}
		inner, err := parse(c.text, p.entry, p.edits)
		if err != nil {
			continue
		}
		p.resp.Requirements, p.resp.Code, p.resp.Files = inner.Requirements, inner.Code, inner.Files
		p.chosenLine, p.wrappedReasoning = c.line, inner.Reasoning
		p.warnf("the answer is wrapped in the markdown block at line %d", c.line)
		p.resp.Warnings = append(p.resp.Warnings, inner.Warnings...)
		return
	}
}
