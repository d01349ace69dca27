package edits

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Block is one SEARCH/REPLACE edit: Search quotes consecutive lines of the
// file, Replace is what they become, each ending with a newline unless
// empty. N numbers the block in its answer, from 1, for messages; Line is
// the 1-based line of the answer that opens it (0 when it comes from no
// answer).
type Block struct {
	N, Line         int
	Search, Replace string
	// Splits are the readings of a block with more than one divider line
	// ("=======" alone on a line), each line in turn the divider, the
	// first being Search and Replace; nil for a block with one. The
	// divider is the line whose SEARCH part is found in the file, once: a
	// SEARCH may quote such lines (an RST heading, a merge marker).
	Splits []Split `json:",omitempty"`
}

// Split is one reading of a block: the lines before a divider line and
// those after it.
type Split struct {
	Search, Replace string
}

// FileEdit is what an answer does to one file: the blocks, in order, applied
// to the file's content in the repository, or to Content when Whole is set
// (a whole-file answer, possibly followed by blocks). It is the one type of
// "a file and its blocks": package response parses answers into it, package
// programmer renders it back (FormatFiles). In JSON (the parser's golden
// files), a file without Blocks is whole.
type FileEdit struct {
	Path    string
	Whole   bool `json:"-"`
	Content string
	Blocks  []Block `json:",omitempty"`
}

// MatchError reports the blocks of an answer that could not be placed. The
// answer applies all or nothing: none of its blocks were applied.
type MatchError struct {
	// Failed explains each block that could not be placed, in answer order.
	Failed []BlockFailure
	// Matched are the blocks that could be placed, by path, in answer
	// order.
	Matched []FileEdit
	// Total is the number of blocks in the answer.
	Total int
}

// BlockFailure is one block that could not be placed and why, written for
// the model. N is 0 for a whole-file block.
type BlockFailure struct {
	N      int
	Path   string
	Reason string
}

func (e *MatchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Nothing was applied: %d of the %d blocks of your answer could not be placed, and an answer applies all or nothing.\n",
		len(e.Failed), e.Total)
	for _, f := range e.Failed {
		what := fmt.Sprintf("Block %d (%s)", f.N, f.Path)
		if f.N == 0 {
			what = "The whole content of " + f.Path
		}
		fmt.Fprintf(&b, "- %s: %s\n", what, strings.TrimRight(f.Reason, "\n"))
	}
	var ok []string
	for _, f := range e.Matched {
		if f.Whole {
			ok = append(ok, "the whole content of "+f.Path)
		}
		for _, bl := range f.Blocks {
			ok = append(ok, fmt.Sprintf("block %d (%s)", bl.N, f.Path))
		}
	}
	if len(ok) > 0 {
		fmt.Fprintf(&b, "These parts of your answer could be placed and are kept for your next answer; do not send them again: %s. ", strings.Join(ok, ", "))
	}
	b.WriteString("Answer with corrected versions of the blocks above, quoting the file's lines exactly.")
	return b.String()
}

// Resolve turns an answer's file edits into whole-file edits for Check,
// reading from repoDir each file that blocks change. A whole-file block may
// replace an existing file of at most maxWhole bytes (no limit when 0), or
// delete any file; a larger file must be changed by blocks. A path that
// cannot be read is left for Check to refuse; a block that cannot be placed
// makes Resolve return a *MatchError and no edits. The matching rules are in
// the package documentation.
func Resolve(repoDir string, files []FileEdit, maxWhole int) ([]Edit, error) {
	res, err := newResolver(repoDir)
	if err != nil {
		return nil, err
	}
	me := &MatchError{}
	out := make([]Edit, 0, len(files))
	for _, f := range files {
		me.Total += len(f.Blocks)
		if f.Whole {
			me.Total++
			if why := tooLargeForWhole(res, f, maxWhole); why != "" {
				me.Failed = append(me.Failed, BlockFailure{Path: f.Path, Reason: why})
				continue
			}
		}
		if f.Whole && len(f.Blocks) == 0 {
			me.Matched = append(me.Matched, f)
			out = append(out, answerEdit(f.Path, f.Content))
			continue
		}
		base, exists, why := f.Content, f.Whole, ""
		if !f.Whole {
			base, exists, why = readBase(res, f.Path)
		}
		if why != "" {
			for _, bl := range f.Blocks {
				me.Failed = append(me.Failed, BlockFailure{N: bl.N, Path: f.Path, Reason: why})
			}
			continue
		}
		content, failed, matched := applyBlocks(base, exists, f.Blocks)
		for _, fl := range failed {
			fl.Path = f.Path
			me.Failed = append(me.Failed, fl)
		}
		if len(matched) > 0 || f.Whole {
			me.Matched = append(me.Matched, FileEdit{Path: f.Path, Whole: f.Whole, Content: f.Content, Blocks: matched})
		}
		out = append(out, answerEdit(f.Path, content))
	}
	if len(me.Failed) > 0 {
		return nil, me
	}
	return out, nil
}

// tooLargeForWhole says why a whole-file block may not replace the file,
// or returns "".
func tooLargeForWhole(res resolver, f FileEdit, maxWhole int) string {
	if maxWhole <= 0 || asksDelete(f.Content) {
		return ""
	}
	old, exists, why := readBase(res, f.Path)
	if why != "" || !exists || len(old) <= maxWhole {
		return "" // Check refuses what cannot be read
	}
	return fmt.Sprintf("the file has %d lines (%d bytes), too large to be rewritten whole (at most %d bytes); change it with SEARCH/REPLACE blocks",
		strings.Count(old, "\n"), len(old), maxWhole)
}

// readBase reads the current content of the file that blocks edit. why,
// when set, says for the model why no block can apply to it.
func readBase(res resolver, p string) (content string, exists bool, why string) {
	clean, err := cleanPath(p)
	if err != nil {
		return "", false, err.Error()
	}
	t, err := res.resolve(clean)
	if err != nil {
		return "", false, err.Error()
	}
	if t.info == nil {
		return "", false, ""
	}
	data, err := os.ReadFile(res.abs(t.path))
	switch {
	case err != nil:
		return "", false, fmt.Sprintf("cannot read %s: %v", clean, err)
	case isBinary(data):
		return "", false, fmt.Sprintf("%s is a binary file; only text files can be changed", clean)
	}
	return string(data), true, ""
}

// applyBlocks applies blocks in order to content. A file that does not
// exist takes a single block with an empty SEARCH as its content. The
// blocks that fail are left out and reported; the others apply in turn.
func applyBlocks(content string, exists bool, blocks []Block) (string, []BlockFailure, []Block) {
	if !exists {
		if len(blocks) == 1 && strings.TrimSpace(blocks[0].Search) == "" {
			return blocks[0].Replace, nil, blocks
		}
		var failed []BlockFailure
		for _, bl := range blocks {
			failed = append(failed, BlockFailure{N: bl.N,
				Reason: "the file does not exist; to create it, give its whole content in one fenced block without SEARCH/REPLACE markers"})
		}
		return "", failed, nil
	}
	crlf := strings.Count(content, "\n") > 0 && strings.Count(content, "\r\n") == strings.Count(content, "\n")
	if crlf {
		content = strings.ReplaceAll(content, "\r\n", "\n")
	}
	var failed []BlockFailure
	var matched []Block
	for _, bl := range blocks {
		next, bl, err := placeBlock(content, bl)
		if err != nil {
			failed = append(failed, BlockFailure{N: bl.N, Reason: err.Error()})
			continue
		}
		content = next
		matched = append(matched, bl)
	}
	if crlf {
		content = strings.ReplaceAll(content, "\n", "\r\n")
	}
	return content, failed, matched
}

// placeBlock applies one block to LF content, choosing the divider of a
// block with several divider lines, and returns the block as read.
func placeBlock(content string, bl Block) (string, Block, error) {
	if len(bl.Splits) < 2 {
		next, err := replaceBlock(content, bl)
		return next, bl, err
	}
	var placed []int
	var next string
	var firstErr error
	for i, sp := range bl.Splits {
		text, err := replaceBlock(content, Block{N: bl.N, Search: sp.Search, Replace: sp.Replace})
		if err != nil {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		placed, next = append(placed, i), text
	}
	switch len(placed) {
	case 1:
		sp := bl.Splits[placed[0]]
		return next, Block{N: bl.N, Search: sp.Search, Replace: sp.Replace}, nil
	case 0:
		return "", bl, fmt.Errorf("the block has %d lines \"=======\", and with none of them as the divider does its SEARCH part match the file once "+
			"(with the first: %w)", len(bl.Splits), firstErr)
	}
	var which []string
	for _, i := range placed {
		which = append(which, ordinal(i+1))
	}
	return "", bl, fmt.Errorf("the block has %d lines \"=======\", and with the %s as the divider its SEARCH part matches the file once each, "+
		"so which is the divider is unclear; quote fewer lines, so that the SEARCH part holds no line \"=======\" or ends where only one reading matches",
		len(bl.Splits), strings.Join(which, " or the "))
}

// ordinal spells n for messages: "1st", "2nd", "3rd", "4th".
func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}

// replaceBlock applies one block, read as its Search and Replace, to LF
// content.
func replaceBlock(content string, bl Block) (string, error) {
	file := strings.Split(content, "\n")
	final := strings.HasSuffix(content, "\n")
	if final {
		file = file[:len(file)-1]
	}
	rawSearch, rawReplace := blockLines(bl.Search), blockLines(bl.Replace)
	search, replace := trimBlankEdges(rawSearch, rawReplace)
	if isBlankRun(rawSearch) {
		return "", errors.New("the SEARCH part is empty; quote the lines to change (to add code, quote the lines it goes after and repeat them in REPLACE)")
	}
	m, err := locate(file, search)
	if err != nil && len(search) < len(rawSearch) {
		// The padding may be what makes the SEARCH match once.
		if mr, errRaw := locate(file, rawSearch); errRaw == nil {
			m, err, replace = mr, nil, rawReplace
		}
	}
	if err != nil {
		return "", err
	}
	if hasElision(replace) && !hasElision(file[m.start:m.end]) {
		return "", errors.New(`the REPLACE part contains a "..." line; write out every line of the replacement (only SEARCH may elide lines with "...")`)
	}
	replace = m.indent.apply(replace)
	out := make([]string, 0, len(file)-(m.end-m.start)+len(replace))
	out = append(append(append(out, file[:m.start]...), replace...), file[m.end:]...)
	text := strings.Join(out, "\n")
	if final && len(out) > 0 {
		text += "\n"
	}
	return text, nil
}

// blockLines splits a block's part into lines; an empty part has none, and
// "\n" is one blank line.
func blockLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n"), "\n")
}

// trimBlankEdges drops the blank lines that pad both search and replace at
// the same end, in pairs: models pad blocks with blank lines, and a blank
// line on one side only is a change.
func trimBlankEdges(search, replace []string) ([]string, []string) {
	for len(search) > 0 && len(replace) > 0 && isBlank(search[0]) && isBlank(replace[0]) {
		search, replace = search[1:], replace[1:]
	}
	for len(search) > 0 && len(replace) > 0 && isBlank(search[len(search)-1]) && isBlank(replace[len(replace)-1]) {
		search, replace = search[:len(search)-1], replace[:len(replace)-1]
	}
	return search, replace
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// isElision reports whether a SEARCH line stands for elided lines.
func isElision(s string) bool { return strings.TrimSpace(s) == "..." }

func hasElision(lines []string) bool {
	for _, l := range lines {
		if isElision(l) {
			return true
		}
	}
	return false
}

// AddedLines reports, for each line of the edit's new content, whether the
// edit adds it: every line of a new file, and in a changed file the lines
// the patch marks "+". The edit is one Check accepted.
func AddedLines(repoDir string, e Edit) ([]bool, error) {
	root, err := os.OpenRoot(repoDir)
	if err != nil {
		return nil, fmt.Errorf("added lines: %w", err)
	}
	defer root.Close()
	info, err := lstatStrict(root, e.Path)
	if err != nil {
		return nil, fmt.Errorf("added lines of %s: %w", e.Path, err)
	}
	var old []byte
	if info != nil {
		if old, err = root.ReadFile(e.Path); err != nil {
			return nil, fmt.Errorf("added lines of %s: %w", e.Path, err)
		}
	}
	return AddedBetween(string(old), e.Content), nil
}

// AddedBetween reports, for each line of new, whether a shortest edit
// script from old to new adds it ("" for a file that did not exist).
func AddedBetween(old, new string) []bool {
	_, ins := diffLines(splitLines(old), splitLines(new))
	return ins
}
