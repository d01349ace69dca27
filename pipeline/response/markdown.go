package response

import (
	"regexp"
	"strings"

	"github.com/capsulehq/capsule/internal/markdown"
)

// section is the part of an answer a header introduces.
type section int

const (
	sectionNone         section = iota // before any header
	sectionOther                       // under a header of no interest
	sectionReasoning                   // under "### Reasoning" and the like
	sectionRequirements                // under "### Requirements"
	sectionCode                        // under "### Code"
	sectionFile                        // under "### File: path"
)

// structural reports whether the section is one of the answer format's
// own: requirements, code or a file.
func (s section) structural() bool {
	return s == sectionRequirements || s == sectionCode || s == sectionFile
}

// elementKind classifies the pieces of an answer.
type elementKind int

const (
	elementText elementKind = iota
	elementHeader
	elementFence
)

// element is one piece of an answer: a text line, a section header or a
// fenced block.
type element struct {
	kind    elementKind
	line    int     // 1-based line of the text, the header or the opening fence
	text    string  // the line as written, or the fence's content
	rest    string  // headers: text after the name ("### File: a.py" gives "a.py")
	section section // headers: the section they open
	marked  bool    // headers: written as a heading or in bold, not as plain "Name:"
	lang    string  // fences: the first word of the info string, in lower case
	closed  bool    // fences: whether a closing fence was found
	bare    bool    // fences: an unfenced SEARCH/REPLACE block, its text from its first line
}

// scan splits the lines of an answer into text lines, headers and fenced
// blocks. Fences follow CommonMark: three or more backticks or tildes, closed
// by a run of the same character at least as long; an unclosed fence runs
// to the end. Unlike CommonMark, an opening fence may be indented by any
// amount (models indent them in lists); its indentation is removed from the
// content lines.
func scan(lines []string, edits bool) []element {
	var out []element
	for i := 0; i < len(lines); i++ {
		if f, ok := markdown.OpenFence(lines[i]); ok {
			start := i
			var content []string
			closed := false
			var edit editScanner
			for i++; i < len(lines); i++ {
				if !edit.inBlock && f.ClosedBy(lines[i]) {
					closed = true
					break
				}
				if edits {
					edit.step(lines[i])
				}
				content = append(content, f.Unindent(lines[i]))
			}
			out = append(out, element{
				kind: elementFence, line: start + 1, text: strings.Join(content, "\n"),
				lang: f.Lang, closed: closed,
			})
			continue
		}
		if edits && searchRE.MatchString(lines[i]) {
			// An unfenced SEARCH/REPLACE block: up to its REPLACE marker.
			start := i
			for i < len(lines)-1 && !replaceRE.MatchString(lines[i]) {
				i++
			}
			out = append(out, element{
				kind: elementFence, line: start + 1, text: strings.Join(lines[start:i+1], "\n"),
				closed: replaceRE.MatchString(lines[i]), bare: true,
			})
			continue
		}
		if h, ok := parseHeader(lines[i]); ok && (h.marked || h.section != sectionFile || nextIsFence(lines[i+1:], edits)) {
			h.line = i + 1
			out = append(out, h)
			continue
		}
		out = append(out, element{kind: elementText, line: i + 1, text: lines[i]})
	}
	return out
}

// nextIsFence reports whether the first non-blank line opens a fence or,
// when edits is set, a SEARCH/REPLACE block.
func nextIsFence(lines []string, edits bool) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			_, ok := markdown.OpenFence(l)
			return ok || edits && searchRE.MatchString(l)
		}
	}
	return false
}

var (
	// atxRE matches a Markdown heading marker.
	atxRE = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+|$)`)
	// numberRE matches a list number before a header name ("2. Code:").
	numberRE = regexp.MustCompile(`^\d{1,2}[.)][ \t]+`)
)

// headerNames maps header names, in lower case, to their sections.
var headerNames = map[string]section{
	"requirements": sectionRequirements, "requirement": sectionRequirements,
	"dependencies": sectionRequirements, "packages": sectionRequirements,
	"required packages": sectionRequirements, "python requirements": sectionRequirements,

	"code": sectionCode, "python code": sectionCode, "final code": sectionCode,
	"solution": sectionCode, "solution code": sectionCode, "corrected code": sectionCode,
	"fixed code": sectionCode, "updated code": sectionCode, "full code": sectionCode,
	"complete code": sectionCode, "implementation": sectionCode, "python": sectionCode,

	"file": sectionFile, "new file": sectionFile, "updated file": sectionFile,
	"modified file": sectionFile, "changed file": sectionFile,

	"reasoning": sectionReasoning, "thoughts": sectionReasoning, "thinking": sectionReasoning,
	"analysis": sectionReasoning, "explanation": sectionReasoning, "approach": sectionReasoning,
	"plan": sectionReasoning,
}

// parseHeader recognises a section header: a Markdown heading, a line in
// bold, or a plain "Requirements:" or "Code:" line, in any case. For
// requirements and files, text after the name is returned as the header's
// rest ("### File: a.py", "**Requirements:** numpy"). A heading or bold line
// with another name opens sectionOther.
func parseHeader(line string) (element, bool) {
	t := strings.TrimSpace(line)
	h := element{kind: elementHeader, text: line}
	if loc := atxRE.FindStringIndex(line); loc != nil {
		h.marked = true
		t = strings.TrimSpace(line[loc[1]:])
		if trimmed := strings.TrimRight(t, "#"); trimmed != t && (trimmed == "" || strings.HasSuffix(trimmed, " ")) {
			t = strings.TrimSpace(trimmed) // a closing sequence: "## Code ##"
		}
	}
	bold := strings.HasPrefix(t, "**")
	wholeBold := bold && (strings.HasSuffix(t, "**") || strings.HasSuffix(t, "**:"))
	h.marked = h.marked || bold
	t = strings.TrimSpace(strings.ReplaceAll(t, "**", ""))
	t = numberRE.ReplaceAllString(t, "")
	name, rest, colon := strings.Cut(t, ":")
	name, rest = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(rest)
	if !colon && len(t) > len("file ") && strings.EqualFold(t[:len("file ")], "file ") {
		name, rest = "file", strings.TrimSpace(t[len("file "):]) // "### File `a.py`"
	}
	if sec, ok := headerNames[name]; ok && headerFits(sec, h.marked, colon, rest) {
		h.section = sec
		if sec == sectionRequirements || sec == sectionFile {
			h.rest = rest
		}
		return h, true
	}
	if atxRE.MatchString(line) || wholeBold {
		h.section = sectionOther
		return h, true
	}
	return element{}, false
}

// headerFits applies the rules that keep prose from being read as headers:
// plain (unmarked) headers need a colon, and only requirements and file
// headers may carry text after the name. (A plain "File: path" also needs a
// fence on the next line; scan checks that.)
func headerFits(sec section, marked, colon bool, rest string) bool {
	if sec == sectionRequirements || sec == sectionFile {
		return marked || colon
	}
	return rest == "" && (marked || colon)
}
