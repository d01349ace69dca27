package edits

import (
	"reflect"
	"testing"
)

func TestSplitLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\n", []string{"\n"}},
		{"a", []string{"a"}},
		{"a\nb", []string{"a\n", "b"}},
		{"a\r\nb\r\n", []string{"a\r\n", "b\r\n"}},
		{"a\rb\n", []string{"a\rb\n"}},
		{"\n\n", []string{"\n", "\n"}},
	}
	for _, tt := range tests {
		if got := splitLines(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMatchLineEndings(t *testing.T) {
	tests := []struct {
		old, new, want string
	}{
		{"a\r\nb\r\n", "a\nc\n", "a\r\nc\r\n"},
		{"a\r\nb", "a\nc", "a\r\nc"},
		{"a\nb\n", "a\nc\n", "a\nc\n"},
		{"a\r\nb\n", "a\nc\n", "a\nc\n"},       // mixed: left alone
		{"a\r\nb\r\n", "a\r\nc\n", "a\r\nc\n"}, // the model chose its endings
		{"", "a\n", "a\n"},
		{"one line", "a\n", "a\n"},
	}
	for _, tt := range tests {
		if got := matchLineEndings(tt.old, tt.new); got != tt.want {
			t.Errorf("matchLineEndings(%q, %q) = %q, want %q", tt.old, tt.new, got, tt.want)
		}
	}
}

func TestIsBinary(t *testing.T) {
	if isBinary("text\n") || !isBinary("a\x00") || !isBinary([]byte{0}) || isBinary([]byte("é")) {
		t.Error("isBinary is wrong")
	}
}
