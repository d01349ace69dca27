package feedback

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutMiddle(t *testing.T) {
	lines := strings.Repeat("0123456789\n", 20) + "last line"
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"short enough", "abc", 3, "abc"},
		{"one line", strings.Repeat("ab", 50), 60, strings.Repeat("ab", 7) + "a [... 70 characters cut ...] b" + strings.Repeat("ab", 7)},
		{"lines", lines, 80, "0123456789\n0123456789\n[... 188 characters cut ...]\n0123456789\nlast line"},
		{"too small for the marker", "héllo world, this is long", 4, "héll"},
		{"nothing", "abc", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cutMiddle(tt.s, tt.n)
			if got != tt.want {
				t.Errorf("cutMiddle(%q, %d) =\n%q\nwant\n%q", tt.s, tt.n, got, tt.want)
			}
			if utf8.RuneCountInString(got) > tt.n {
				t.Errorf("cutMiddle(%q, %d) is %d runes long", tt.s, tt.n, utf8.RuneCountInString(got))
			}
		})
	}
}

func TestFit(t *testing.T) {
	trace := strings.Repeat("  File \"solution.py\", line 3, in f\n", 30)
	parts := []part{
		{text: "The tests failed with KeyError:"},
		{text: trace, cuttable: true},
		{text: "KeyError: 'missing'"},
	}
	for _, maxLen := range []int{2000, 500, 120, 60, 10} {
		got := fit(parts, maxLen)
		if n := utf8.RuneCountInString(got); n > maxLen {
			t.Errorf("fit(%d) is %d runes long:\n%s", maxLen, n, got)
		}
		if maxLen >= 120 && !strings.HasSuffix(got, "\nKeyError: 'missing'") {
			t.Errorf("fit(%d) lost the exception line:\n%s", maxLen, got)
		}
		if maxLen >= 120 && !strings.HasPrefix(got, "The tests failed with KeyError:\n") {
			t.Errorf("fit(%d) cut a fixed part before the trace:\n%s", maxLen, got)
		}
	}
	if got := fit(parts, 2000); got != parts[0].text+"\n"+trace+"\n"+parts[2].text {
		t.Errorf("fit cut a message that fits:\n%s", got)
	}
}
