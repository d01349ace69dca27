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

func TestFences(t *testing.T) {
	tests := []struct {
		open  string
		ok    bool
		lang  string
		close map[string]bool // candidate closing lines and whether they close
	}{
		{"```python", true, "python", map[string]bool{"```": true, "````": true, "   ```  ": true, "~~~": false, "``": false, "```python": false, "    ```": false}},
		{"````", true, "", map[string]bool{"```": false, "````": true, "`````": true}},
		{"~~~ Py3 {.numberLines}", true, "py3", map[string]bool{"~~~": true, "```": false}},
		{"      ```py", true, "py", map[string]bool{"      ```": true, "       ```": false, "```": true}},
		{"```x = 1```", false, "", nil},
		{"``", false, "", nil},
		{"text ```", false, "", nil},
	}
	for _, tt := range tests {
		f, ok := OpenFence(tt.open)
		if ok != tt.ok || f.Lang != tt.lang {
			t.Errorf("OpenFence(%q) = lang %q, %v; want %q, %v", tt.open, f.Lang, ok, tt.lang, tt.ok)
			continue
		}
		for line, want := range tt.close {
			if got := f.ClosedBy(line); got != want {
				t.Errorf("fence %q closed by %q = %v, want %v", tt.open, line, got, want)
			}
		}
	}
}
