package repoconfig

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// maxProblems caps the problems reported for one file, so that a file of
// garbage cannot flood an issue comment.
const maxProblems = 20

// ParseError is one problem in a configuration file.
type ParseError struct {
	File string // the file's name, as given to Parse
	Line int    // 1-based; 0 when unknown
	Key  string // the key concerned; "" for the file as a whole
	Msg  string // the problem, naming the key when there is one
}

// Error returns "file:line: message", or "file: message" without a line.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// problems collects the ParseErrors found in one file.
type problems struct {
	file string
	list []problem
}

// problem is a ParseError and its column, to order those on one line.
type problem struct {
	err    *ParseError
	column int
}

// add records a problem at node n.
func (p *problems) add(n *yaml.Node, key, format string, args ...any) {
	e := &ParseError{File: p.file, Line: n.Line, Key: key, Msg: fmt.Sprintf(format, args...)}
	p.list = append(p.list, problem{e, n.Column})
}

// err returns the problems in line order joined into one error, or nil.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	slices.SortStableFunc(p.list, func(a, b problem) int {
		return cmp.Or(cmp.Compare(a.err.Line, b.err.Line), cmp.Compare(a.column, b.column))
	})
	shown := p.list[:min(len(p.list), maxProblems)]
	errs := make([]error, 0, len(shown)+1)
	for _, pr := range shown {
		errs = append(errs, pr.err)
	}
	if rest := len(p.list) - len(shown); rest > 0 {
		errs = append(errs, &ParseError{File: p.file, Msg: fmt.Sprintf("%d more problems not shown", rest)})
	}
	return errors.Join(errs...)
}

// describe renders a node's value for a message: strings quoted, other
// scalars as written, collections by kind.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		v := shorten(n.Value, 40)
		switch n.Tag {
		case "!!null":
			if n.Value == "" {
				return "no value"
			}
			return v
		case "!!str":
			return strconv.Quote(v)
		case "!!int", "!!float", "!!bool":
			return v
		}
		return n.Tag + " " + strconv.Quote(v)
	}
	return "an unexpected YAML node"
}

// shorten cuts s to at most n runes, marking the cut with "...".
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-3]) + "..."
}
