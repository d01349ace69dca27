package edits

import (
	"strconv"
	"testing"
)

func TestQuotePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a/calc.py", "a/calc.py"},
		{"a/my notes.txt", "a/my notes.txt"},
		{"a/café.md", "a/café.md"},
		{`a/say "hi".txt`, `"a/say \"hi\".txt"`},
		{`a/back\slash`, `"a/back\\slash"`},
		{"a/tab\there", `"a/tab\there"`},
		{"a/bell\x07\x1b\x7f", `"a/bell\a\033\177"`},
	}
	for _, tt := range tests {
		got := quotePath(tt.in)
		if got != tt.want {
			t.Errorf("quotePath(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if got[0] == '"' {
			if back, err := strconv.Unquote(got); err != nil || back != tt.in {
				t.Errorf("Unquote(%s) = %q, %v; want %q", got, back, err, tt.in)
			}
		}
	}
}
