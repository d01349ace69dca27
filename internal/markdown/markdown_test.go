package markdown

import "testing"

func TestFence(t *testing.T) {
	for _, tc := range []struct{ lang, text, want string }{
		{"python", "x = 1\n\n", "```python\nx = 1\n```"},
		{"", "no lang", "```\nno lang\n```"},
		{"text", "a ``` b", "````text\na ``` b\n````"},
		{"text", "````` and `", "``````text\n````` and `\n``````"},
		{"diff", "", "```diff\n\n```"},
	} {
		if got := Fence(tc.lang, tc.text); got != tc.want {
			t.Errorf("Fence(%q, %q) = %q, want %q", tc.lang, tc.text, got, tc.want)
		}
	}
}
