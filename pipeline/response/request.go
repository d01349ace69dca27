package response

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/capsulehq/capsule/internal/markdown"
)

// MaxRequestItems is the most items one request may name; the others
// are left out with a note.
const MaxRequestItems = 4

// ItemKind is what a request's item asks to see.
type ItemKind string

// The kinds of items.
const (
	// ItemFile is a file, whole or some of its lines: "file PATH" or
	// "file PATH A-B".
	ItemFile ItemKind = "file"
	// ItemDefinition is the definition of a name: "definition NAME".
	ItemDefinition ItemKind = "definition"
	// ItemSearch is the lines that hold a string: "search TEXT".
	ItemSearch ItemKind = "search"
)

// Item is one thing a request asks to see.
type Item struct {
	Kind ItemKind
	// Path is a file's path as written; From and To its lines, both 0
	// for the whole file.
	Path     string
	From, To int
	// Name is a definition's name, dotted or not.
	Name string
	// Text is the string to search for, exactly.
	Text string
}

// String writes the item as the request syntax does: "file calc/stats.py
// 40-90", "definition Stats.median", "search return 0.0".
func (it Item) String() string {
	switch it.Kind {
	case ItemFile:
		if it.From > 0 {
			return fmt.Sprintf("file %s %d-%d", it.Path, it.From, it.To)
		}
		return "file " + it.Path
	case ItemDefinition:
		return "definition " + it.Name
	}
	return "search " + it.Text
}

// Request is a repository-mode answer that asks to see more of the
// repository instead of changing it: a "### Request" header, then one
// item a line, bare or in a fenced block:
//
//	### Request
//	file calc/stats.py 40-90
//	definition Stats.median
//	search return 0.0
//
// The section ends at the next header, at the end of its fenced block,
// or at a blank line after its items.
type Request struct {
	// Items are the items read, at most MaxRequestItems.
	Items []Item
	// Problems say which lines could not be read as items, and which
	// items were past the maximum.
	Problems []string
}

// requestHeader matches the header of a request: "### Request", "##
// Request:", "**Request**".
var requestHeader = regexp.MustCompile(`(?i)^\s*(?:#{1,6}\s*|\*\*)request(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$`)

// listMarker matches a list marker before an item: "- ", "* ", "1. ".
var listMarker = regexp.MustCompile(`^(?:[-*+]|\d+[.)])\s+`)

// lineRangeRE matches a line range: "40-90", "40 - 90", "40–90", "40 to
// 90", or one line, "40".
var lineRangeRE = regexp.MustCompile(`^(\d+)(?:\s*(?:-|–|\.\.|to)\s*(\d+))?$`)

// nameRE matches a name, dotted or not.
var nameRE = regexp.MustCompile(`^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$`)

// Bounds of a search string, in bytes.
const (
	minSearch = 3
	maxSearch = 200
)

// verbs maps the words an item may start with to its kind.
var verbs = map[string]ItemKind{
	"file": ItemFile, "show": ItemFile, "lines": ItemFile,
	"definition": ItemDefinition, "def": ItemDefinition, "symbol": ItemDefinition,
	"search": ItemSearch, "grep": ItemSearch,
}

// ParseRequest reads the request in an answer: false when the answer has
// no request header. A request whose lines are all problems has no
// items. A <think> part is not read.
func ParseRequest(answer string) (Request, bool) {
	answer = strings.ReplaceAll(strings.ReplaceAll(answer, "\r\n", "\n"), "\r", "\n")
	answer = (&parser{}).cutThinking(answer)
	lines := strings.Split(answer, "\n")
	start := -1
	for i, l := range lines {
		if requestHeader.MatchString(l) {
			start = i
			break
		}
	}
	if start < 0 {
		return Request{}, false
	}
	var req Request
	var fence *markdown.Opening
	for _, line := range lines[start+1:] {
		if fence != nil {
			if fence.ClosedBy(line) {
				break
			}
			req.add(fence.Unindent(line))
			continue
		}
		if f, ok := markdown.OpenFence(line); ok {
			fence = &f
			continue
		}
		t := strings.TrimSpace(line)
		if t == "" && len(req.Items)+len(req.Problems) > 0 || strings.HasPrefix(t, "#") {
			break
		}
		req.add(line)
	}
	return req, true
}

// add reads one line of the request's section.
func (r *Request) add(line string) {
	t := strings.TrimSpace(listMarker.ReplaceAllString(strings.TrimSpace(line), ""))
	if t == "" {
		return
	}
	it, problem := parseItem(t)
	switch {
	case problem != "":
		r.Problems = append(r.Problems, fmt.Sprintf("`%s`: %s", t, problem))
	case len(r.Items) == MaxRequestItems:
		r.Problems = append(r.Problems, fmt.Sprintf("`%s`: left out: one request names at most %d items", t, MaxRequestItems))
	default:
		r.Items = append(r.Items, it)
	}
}

// parseItem reads one item, or says why it cannot.
func parseItem(t string) (Item, string) {
	if len(t) >= 2 && strings.HasPrefix(t, "`") && strings.HasSuffix(t, "`") {
		t = t[1 : len(t)-1]
	}
	word, rest, _ := strings.Cut(t, " ")
	kind, ok := verbs[strings.TrimSuffix(strings.ToLower(word), ":")]
	if !ok {
		return Item{}, "not an item: an item starts with file, definition or search"
	}
	rest = strings.TrimSpace(rest)
	switch kind {
	case ItemFile:
		return parseFileItem(rest)
	case ItemDefinition:
		name := strings.TrimSuffix(unquote(rest), "()")
		if !nameRE.MatchString(name) {
			return Item{}, "a definition is asked for by its name, such as median or Stats.median"
		}
		return Item{Kind: kind, Name: name}, ""
	}
	text := unquote(rest)
	switch {
	case len(text) < minSearch:
		return Item{}, fmt.Sprintf("a search needs at least %d characters", minSearch)
	case len(text) > maxSearch:
		return Item{}, fmt.Sprintf("a search takes at most %d characters", maxSearch)
	}
	return Item{Kind: kind, Text: text}, ""
}

// parseFileItem reads the arguments of a file item: a path, then maybe
// a line range, after a space or a colon, with or without the word
// "lines".
func parseFileItem(rest string) (Item, string) {
	var p, lines string
	if strings.HasPrefix(rest, "`") {
		q, after, ok := strings.Cut(rest[1:], "`")
		if !ok {
			return Item{}, "the path's backtick is not closed"
		}
		p, lines = q, after
	} else {
		p, lines, _ = strings.Cut(rest, " ")
		p = strings.Trim(p, `"'`)
	}
	if i := strings.LastIndexByte(p, ':'); i >= 0 && lineRangeRE.MatchString(p[i+1:]) {
		p, lines = p[:i], p[i+1:]+" "+lines
	}
	lines = strings.TrimSpace(lines)
	for _, w := range []string{"lines", "line", "Lines", "Line"} {
		lines = strings.TrimSpace(strings.TrimPrefix(lines, w))
	}
	lines = strings.Trim(lines, "()")
	it := Item{Kind: ItemFile, Path: p}
	if p == "" {
		return Item{}, "no path"
	}
	if lines == "" {
		return it, ""
	}
	m := lineRangeRE.FindStringSubmatch(lines)
	if m == nil {
		return Item{}, "a line range is written A-B, such as 40-90"
	}
	it.From, _ = strconv.Atoi(m[1])
	it.To = it.From
	if m[2] != "" {
		it.To, _ = strconv.Atoi(m[2])
	}
	if it.From < 1 || it.To < it.From {
		return Item{}, "a line range A-B needs 1 <= A <= B"
	}
	return it, ""
}

// unquote removes one pair of backticks or quotes around s.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	for _, q := range []string{"`", `"`, "'"} {
		if len(s) >= 2 && strings.HasPrefix(s, q) && strings.HasSuffix(s, q) {
			return s[1 : len(s)-1]
		}
	}
	return s
}
