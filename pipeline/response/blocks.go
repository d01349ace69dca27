package response

import (
	"fmt"
	"regexp"
	"strings"
)

// Block is one SEARCH/REPLACE block of a file:
//
//	<<<<<<< SEARCH
//	lines quoted from the file
//	=======
//	what they become
//	>>>>>>> REPLACE
type Block struct {
	// N numbers the block among all the blocks of the answer, from 1.
	N int
	// Line is the 1-based line of the answer that opens the block.
	Line int
	// Search and Replace are the two parts, each ending with a newline
	// unless empty.
	Search, Replace string
}

// The markers of a block: 6 to 9 characters (7 is the canonical length),
// with any case and surrounding white space.
var (
	searchRE  = regexp.MustCompile(`(?i)^\s*<{6,9}\s*SEARCH\s*$`)
	dividerRE = regexp.MustCompile(`^\s*={6,9}\s*$`)
	replaceRE = regexp.MustCompile(`(?i)^\s*>{6,9}\s*REPLACE\s*$`)
)

// editScanner follows the block markers across lines: a fence that would
// close inside a block is content (the file may hold fences itself).
type editScanner struct{ inBlock bool }

// step notes line and reports whether it is inside a block, markers
// included.
func (s *editScanner) step(line string) bool {
	switch {
	case !s.inBlock && searchRE.MatchString(line):
		s.inBlock = true
		return true
	case s.inBlock && replaceRE.MatchString(line):
		s.inBlock = false
		return true
	}
	return s.inBlock
}

// hasBlocks reports whether fenced content holds a SEARCH marker.
func hasBlocks(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		if searchRE.MatchString(l) {
			return true
		}
	}
	return false
}

// parseBlocks reads the blocks of fenced content that starts at answer line
// first (the line after the fence), numbering them from next. Text between
// blocks is ignored with a warning; a block without its divider or REPLACE
// marker is an error.
func (p *parser) parseBlocks(path, text string, first, next int) ([]Block, error) {
	var out []Block
	var cur *Block
	var search, replace []string
	inReplace := false
	stray := 0
	for i, l := range strings.Split(text, "\n") {
		switch {
		case cur == nil && searchRE.MatchString(l):
			cur = &Block{N: next + len(out), Line: first + i}
			search, replace, inReplace = nil, nil, false
		case cur == nil:
			if strings.TrimSpace(l) != "" && strings.Trim(strings.TrimSpace(l), "`'\"*#: ") != path {
				stray++
			}
		case !inReplace && dividerRE.MatchString(l):
			inReplace = true
		case !inReplace && replaceRE.MatchString(l):
			return out, fmt.Errorf("%w: SEARCH/REPLACE block %d (line %d) for %q has no ======= line between SEARCH and REPLACE",
				ErrFileBlock, cur.N, cur.Line, path)
		case inReplace && replaceRE.MatchString(l):
			cur.Search, cur.Replace = joinLines(search), joinLines(replace)
			out = append(out, *cur)
			cur = nil
		case inReplace:
			replace = append(replace, l)
		default:
			search = append(search, l)
		}
	}
	if cur != nil {
		return out, fmt.Errorf("%w: SEARCH/REPLACE block %d (line %d) for %q does not end with a >>>>>>> REPLACE line",
			ErrFileBlock, cur.N, cur.Line, path)
	}
	if stray > 0 {
		p.warnf("ignored %d lines of text between the SEARCH/REPLACE blocks for %q", stray, path)
	}
	return out, nil
}

// joinLines joins lines, each ending with a newline.
func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
