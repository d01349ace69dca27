package response

import (
	"fmt"
	"github.com/capsulehq/capsule/pipeline/edits"
	"regexp"
	"strings"
)

// The SEARCH and REPLACE markers of a block: 6 to 9 characters (7 is the
// canonical length), with any case and surrounding white space.
var (
	searchRE  = regexp.MustCompile(`(?i)^\s*<{6,9}\s*SEARCH\s*$`)
	replaceRE = regexp.MustCompile(`(?i)^\s*>{6,9}\s*REPLACE\s*$`)
)

// divider is the line between SEARCH and REPLACE, exactly: seven "=" at
// the line's start and nothing else (a CR of a CRLF answer aside), so that
// a SEARCH may quote lines made of "=" of any other shape, such as a
// docstring's indented underline.
const divider = "======="

// isDivider reports whether an answer's line is a divider line.
func isDivider(line string) bool { return strings.TrimSuffix(line, "\r") == divider }

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
func (p *parser) parseBlocks(path, text string, first, next int) ([]edits.Block, error) {
	var out []edits.Block
	var cur *edits.Block
	var body []string // the lines between the SEARCH and REPLACE markers
	stray := 0
	for i, l := range strings.Split(text, "\n") {
		switch {
		case cur == nil && searchRE.MatchString(l):
			cur = &edits.Block{N: next + len(out), Line: first + i}
			body = nil
		case cur == nil:
			if strings.TrimSpace(l) != "" && strings.Trim(strings.TrimSpace(l), "`'\"*#: ") != path {
				stray++
			}
		case replaceRE.MatchString(l):
			splits := splitBody(body)
			if len(splits) == 0 {
				return out, fmt.Errorf("%w: SEARCH/REPLACE block %d (line %d) for %q has no ======= line between SEARCH and REPLACE "+
					"(the divider is exactly seven \"=\" alone on a line)", ErrFileBlock, cur.N, cur.Line, path)
			}
			cur.Search, cur.Replace = splits[0].Search, splits[0].Replace
			if len(splits) > 1 {
				cur.Splits = splits
			}
			out = append(out, *cur)
			cur = nil
		default:
			body = append(body, l)
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

// splitBody reads a block's lines at each of its divider lines in turn.
func splitBody(body []string) []edits.Split {
	var out []edits.Split
	for i, l := range body {
		if isDivider(l) {
			out = append(out, edits.Split{Search: joinLines(body[:i]), Replace: joinLines(body[i+1:])})
		}
	}
	return out
}

// joinLines joins lines, each ending with a newline.
func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
