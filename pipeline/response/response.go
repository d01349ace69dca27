// Package response parses the programmer agent's answer: free reasoning, a
// "### Requirements" list, a "### Code" section with a fenced block and, in
// repository mode, file sections holding SEARCH/REPLACE blocks or a whole
// file:
//
//	### File: path/to/module.py
//	```python
//	<<<<<<< SEARCH
//	<lines quoted from the file>
//	=======
//	<what they become>
//	>>>>>>> REPLACE
//	```
//
//	### File: path/to/new_module.py
//	```python
//	<the whole content of the file>
//	```
//
// A fenced block holding a SEARCH marker is read as blocks; any other is a
// whole file. A section may hold several blocks in one fence or in several,
// and blocks for one file accumulate across sections.
//
// The parser is lenient where models are sloppy (other header levels and
// spellings, missing headers, other fence tags, several blocks, a truncated
// last block, bare code; SEARCH and REPLACE markers of 6 to 9 characters
// in any case with stray spaces, unfenced blocks, a fence inside a block,
// the file named alone before the fence) and strict where it matters: the
// divider is exactly "=======" alone on a line, so that a SEARCH may quote
// other lines of "=", and a block with several such lines keeps every
// reading for package edits to choose from (Block.Splits); an answer
// without code is ErrNoCode, to be answered with FormatReminder, and a
// malformed file section or block (no path, no content, a block without
// its ======= or REPLACE line) is ErrFileBlock. Paths are returned as
// written, not checked, and blocks are not matched: package edits does
// that.
package response

import (
	"errors"
	"github.com/capsulehq/capsule/pipeline/edits"
	"strings"
)

// Response is a parsed answer.
type Response struct {
	// Reasoning is the prose before the first section header (or before the
	// code when there is no header), including any <think> part.
	Reasoning string
	// Requirements lists third-party packages; nil when the answer says None.
	Requirements []string
	// Code is the chosen code block, ending with exactly one newline; empty
	// when the answer has only file blocks.
	Code string
	// Files are the file sections in order of first appearance: a whole
	// file (Whole set, Content ending with exactly one newline, or empty
	// for an empty file) or SEARCH/REPLACE blocks in answer order. Paths
	// are as written, trimmed of whitespace, backticks, quotes and
	// Markdown emphasis.
	Files []edits.FileEdit
	// Truncated reports an answer that ends inside a fenced block or a
	// <think> part, as when the model ran out of tokens.
	Truncated bool
	// Warnings notes what the parser repaired or chose, for the attempt log.
	Warnings []string
}

var (
	// ErrNoCode reports an answer with neither code nor file blocks. Answer
	// it with FormatReminder.
	ErrNoCode = errors.New("no code found in the answer")
	// ErrFileBlock reports a file block with an empty path or no content.
	ErrFileBlock = errors.New("malformed file block")
)

// FormatReminder restates the expected answer format, as feedback for an
// answer that could not be parsed.
const FormatReminder = "No code could be extracted from your answer. " +
	"Reply with your reasoning, then a \"### Requirements\" section listing the third-party packages you need, " +
	"comma separated (or None), then a \"### Code\" section with the complete solution in a single ```python fenced block. " +
	"In repository mode, give each changed file as \"### File: path/to/file.py\" followed by one fenced block " +
	"with the whole new content of that file."

// RepoFormatReminder restates the answer format of repository mode, as
// feedback for an answer without files.
const RepoFormatReminder = "No file changes could be extracted from your answer. " +
	"Reply with your reasoning, then give each file you change as \"### File: path/to/file.py\" followed by a fenced block of " +
	"SEARCH/REPLACE blocks (a line \"<<<<<<< SEARCH\", the exact lines of the file to change, a line \"=======\", " +
	"the lines that replace them, a line \">>>>>>> REPLACE\"), and each new file as \"### File: path/to/new_file.py\" " +
	"followed by one fenced block with its whole content."

// Parse parses a repository-mode answer: file sections with whole files
// and SEARCH/REPLACE blocks, or code. On error the Response still holds
// what could be parsed; errors match ErrNoCode or ErrFileBlock with
// errors.Is.
func Parse(answer string) (Response, error) {
	return parse(answer, "", true)
}

// ParseFunction parses an answer to a function-level task: among several
// candidate code blocks, one defining entryPoint is preferred.
// SEARCH/REPLACE markers are not read there: they are code like any other.
func ParseFunction(answer, entryPoint string) (Response, error) {
	return parse(answer, entryPoint, false)
}

// parse parses an answer, reading SEARCH/REPLACE blocks when edits is set.
func parse(answer, entryPoint string, edits bool) (Response, error) {
	answer = strings.TrimPrefix(answer, "\ufeff")
	answer = strings.ReplaceAll(answer, "\r\n", "\n")
	answer = strings.ReplaceAll(answer, "\r", "\n")
	p := &parser{entry: entryPoint, edits: edits}
	answer = p.cutThinking(answer)
	p.lines = strings.Split(answer, "\n")
	if isBareCode(p.lines) {
		p.resp.Code = tidyCode(answer)
	} else {
		p.walk(scan(p.lines, edits))
		p.chooseCode()
		if p.resp.Code == "" && len(p.resp.Files) == 0 && len(p.errs) == 0 {
			p.unwrapMarkdown()
		}
	}
	p.resp.Reasoning = p.reasoning()
	if p.entry != "" && p.resp.Code != "" && !defines(p.resp.Code, p.entry) {
		p.warnf("the code does not define %s", p.entry)
	}
	if len(p.errs) > 0 {
		return p.resp, errors.Join(p.errs...)
	}
	if p.resp.Code == "" && len(p.resp.Files) == 0 {
		return p.resp, ErrNoCode
	}
	return p.resp, nil
}
