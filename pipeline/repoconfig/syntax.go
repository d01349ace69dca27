package repoconfig

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// yamlLine matches the location yaml.v3 puts in front of its messages.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// parserProblems are the messages of yaml.v3's parser, as opposed to its
// scanner. The parser gives 0-based line numbers, the scanner 1-based ones.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// unknownAnchor matches yaml.v3's message for an alias to no anchor.
var unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// syntaxError turns an error from yaml.v3 into a ParseError whose line is
// the one the problem is on.
func syntaxError(file string, data []byte, err error) *ParseError {
	msg, line := strings.TrimPrefix(err.Error(), "yaml: "), 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = err.Error()[len(m[0]):]
	}
	anchor := unknownAnchor.FindStringSubmatch(msg)
	switch {
	case parserProblems[msg]:
		line++ // also right for the first line, which yaml.v3 leaves out
	case strings.HasPrefix(msg, "found a tab character"):
		// The scanner names the line where the construct that the tab
		// breaks begins; point at the tab itself.
		line = lineWhere(data, max(line, 1), tabIndented)
	case anchor != nil:
		alias := regexp.MustCompile(`\*` + regexp.QuoteMeta(anchor[1]) + `(?:[\s,\]}]|$)`)
		line = lineWhere(data, 1, alias.Match)
	case line == 0:
		line = 1 // the scanner leaves the first line out too
	}
	// A problem found at the end of the file is on its last line.
	line = min(line, max(countLines(data), 1))
	return &ParseError{File: file, Line: line, Msg: "invalid YAML: " + msg}
}

// lineWhere returns the number of the first line of data, from line from
// on, for which ok is true, or from when there is none.
func lineWhere(data []byte, from int, ok func(line []byte) bool) int {
	n := 0
	for l := range bytes.Lines(data) {
		if n++; n >= from && ok(l) {
			return n
		}
	}
	return from
}

// tabIndented reports whether line has a tab in its indentation.
func tabIndented(line []byte) bool {
	indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
	return bytes.IndexByte(indent, '\t') >= 0
}

// countLines returns the number of lines in data, the last one counted
// whether or not it ends in a newline.
func countLines(data []byte) int {
	n := 0
	for range bytes.Lines(data) {
		n++
	}
	return n
}
