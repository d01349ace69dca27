package repoconfig

import (
	"errors"
	"testing"
)

// TestSyntaxErrorLine checks that YAML syntax errors name the line the
// problem is on, whichever part of yaml.v3 found it.
func TestSyntaxErrorLine(t *testing.T) {
	tests := []struct {
		yaml string
		line int
	}{
		{"a: b: c\n", 1},
		{"a: 1\nb: 2\nc: d: e\n", 3},
		{"a: 1\nb: [x\nc: 2\n", 2},       // the unclosed "["
		{"a: 1\nb: 2\nc: {x: 1\n", 3},    // the unclosed "{"
		{"a: 1\nb: 2\n- c\n", 3},         // a list item in a mapping
		{"a:\n  b: 1\n c: 2\n", 3},       // bad indentation
		{"a: 1\nb: 2\nc: \"x\n", 3},      // the unterminated quote
		{"a: 1\nb: 2\nc: @x\n", 3},       // a reserved character
		{"a: 1\nb: 2\n\tc: 3\n", 3},      // a tab in the indentation
		{"a:\n  - x\n\t- y\n", 3},        // a tab in a list
		{"a: 1\nb: *nowhere\n", 2},       // an alias to no anchor
		{"%YAML 1.3\n---\na: 1\n", 1},    // an unknown YAML version
		{"%YAML 1.1\n%YAML 1.1\n", 2},    // a repeated directive
		{"a: !x!y z\n", 1},               // an undefined tag handle
		{"a: 1\n\n\nb: [\n", 4},          // an unclosed "[" at the end
		{"a: |\n  ok\n\tbad\n", 3},       // a tab before a block scalar line
		{"a: 1\r\nb: [x\r\nc: 2\r\n", 2}, // Windows line ends
	}
	for _, tt := range tests {
		_, err := Parse(Path, []byte(tt.yaml))
		pe, ok := errors.AsType[*ParseError](err)
		if !ok {
			t.Errorf("Parse(%q) = %v; want a *ParseError", tt.yaml, err)
			continue
		}
		if pe.Line != tt.line {
			t.Errorf("Parse(%q) = %v; want line %d", tt.yaml, err, tt.line)
		}
	}
}
