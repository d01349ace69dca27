package signature

import "testing"

func TestUnescape(t *testing.T) {
	tests := []struct {
		in      string
		isBytes bool
		want    string
		ok      bool
	}{
		{`plain`, false, "plain", true},
		{`a\tb\\c\'d`, false, "a\tb\\c'd", true},
		{`\101\x41\u00e9\U0001F600`, false, "AAé😀", true},
		{`\0\7\1234`, false, "\x00\x07S4", true},
		{"line\\\nnext", false, "linenext", true},
		{`\q`, false, `\q`, true},
		{`end\`, false, `end\`, true},
		{`\N{BULLET}`, false, "", false},
		{`\x4`, false, "", false},
		{`\xZZ`, false, "", false},
		{`\U00110000`, false, "", false},
		{`\x41\101\377`, true, "AA\xff", true},
		{`\u0041`, true, `\u0041`, true},
		{`\N{X}`, true, `\N{X}`, true},
		{`\777`, true, "", false},
	}
	for _, tt := range tests {
		got, ok := unescape(tt.in, tt.isBytes)
		if got != tt.want || ok != tt.ok {
			t.Errorf("unescape(%q, bytes %v) = %q, %v; want %q, %v", tt.in, tt.isBytes, got, ok, tt.want, tt.ok)
		}
	}
}
