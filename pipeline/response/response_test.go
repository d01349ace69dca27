package response

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// md turns the stand-in "´" into a backtick, since Go raw strings cannot
// hold backticks.
func md(s string) string { return strings.ReplaceAll(s, "´", "`") }

func TestParseCode(t *testing.T) {
	tests := []struct {
		name, answer, entry string
		want                string // Code
	}{
		{
			name: "canonical format",
			answer: md(`I will count the vowels with a generator expression.

### Requirements
None

### Code
´´´python
def count_vowels(s):
    return sum(c in "aeiou" for c in s.lower())
´´´
`),
			want: "def count_vowels(s):\n    return sum(c in \"aeiou\" for c in s.lower())\n",
		},
		{
			name:   "no code header, py tag",
			answer: md("Here you go:\n\n´´´py\nx = 1\n´´´\n\nHope this helps!"),
			want:   "x = 1\n",
		},
		{
			name:   "python3 tag",
			answer: md("´´´python3\nimport os\n´´´"),
			want:   "import os\n",
		},
		{
			name:   "capitalised tag with attributes",
			answer: md("´´´Python title=\"sol.py\"\nimport os\n´´´"),
			want:   "import os\n",
		},
		{
			name:   "untagged block that looks like Python",
			answer: md("´´´\ndef f():\n    return 1\n´´´"),
			want:   "def f():\n    return 1\n",
		},
		{
			name:   "tilde fence",
			answer: "### Code\n~~~python\ndef f():\n    return 2\n~~~\n",
			want:   "def f():\n    return 2\n",
		},
		{
			name:   "heading level, case and colon",
			answer: md("## code:\n´´´python\ndef f(): pass\n´´´"),
			want:   "def f(): pass\n",
		},
		{
			name: "bold headers",
			answer: md(`**Requirements:** None

**Code:**
´´´python
def f(): pass
´´´

´´´python
print(f())
´´´`),
			want: "def f(): pass\n",
		},
		{
			name: "block under the Code header beats a longer one elsewhere",
			answer: md(`First a brute-force version, for reference:
´´´python
def slow(xs):
    best = 0
    for i in range(len(xs)):
        for j in range(i, len(xs)):
            best = max(best, sum(xs[i:j+1]))
    return best
´´´
### Code
´´´python
def fast(xs):
    return max(xs)
´´´`),
			want: "def fast(xs):\n    return max(xs)\n",
		},
		{
			name:  "entry point preferred over a longer helper block",
			entry: "max_sub",
			answer: md(`A helper first:
´´´python
def prefix_sums(xs):
    out = [0]
    for x in xs:
        out.append(out[-1] + x)
    return out
´´´
Then the function:
´´´python
def max_sub(xs):
    return max(xs)
´´´`),
			want: "def max_sub(xs):\n    return max(xs)\n",
		},
		{
			name: "definition preferred over a longer test block, not concatenated",
			answer: md(`´´´python
def add(a, b):
    return a + b
´´´
Tests:
´´´python
assert add(1, 2) == 3
assert add(-1, 1) == 0
assert add(0, 0) == 0
assert add(10, 20) == 30
´´´`),
			want: "def add(a, b):\n    return a + b\n",
		},
		{
			name: "longest of several definitions",
			answer: md(`´´´python
def f(x): return x
´´´
´´´python
def f(x):
    """Identity."""
    return x
´´´`),
			want: "def f(x):\n    \"\"\"Identity.\"\"\"\n    return x\n",
		},
		{
			name:   "output and shell blocks are not code",
			answer: md("´´´bash\npip install numpy\n´´´\n´´´\n[1, 2, 3]\n´´´\n´´´python\nimport numpy\n´´´"),
			want:   "import numpy\n",
		},
		{
			name: "longer fence holds a fence",
			answer: md(`### Code
´´´´python
def help_text():
    return """Usage:
´´´
run it
´´´
"""
´´´´`),
			want: md("def help_text():\n    return \"\"\"Usage:\n´´´\nrun it\n´´´\n\"\"\"\n"),
		},
		{
			name:   "shorter or different closing fence does not close",
			answer: md("´´´´python\nx = 1\n´´´\n~~~~\ny = 2\n´´´´\nprose"),
			want:   md("x = 1\n´´´\n~~~~\ny = 2\n"),
		},
		{
			name:   "fence indented in a list item",
			answer: md("1. Write the function:\n\n    ´´´python\n    def f():\n        return 1\n    ´´´\n"),
			want:   "def f():\n    return 1\n",
		},
		{
			name:   "Windows line endings",
			answer: md("### Code\r\n´´´python\r\ndef f():\r\n    return 1\r\n´´´\r\n"),
			want:   "def f():\n    return 1\n",
		},
		{
			name:   "bare code",
			answer: "import math\n\n\ndef area(r):\n    return math.pi * r ** 2\n\n\n",
			want:   "import math\n\n\ndef area(r):\n    return math.pi * r ** 2\n",
		},
		{
			name:   "bare code after a comment",
			answer: "# compute the area\ndef f():\n    # Markdown would call this a heading\n    return 1",
			want:   "# compute the area\ndef f():\n    # Markdown would call this a heading\n    return 1\n",
		},
		{
			name:   "unfenced code under a one-hash Solution heading",
			answer: "# Solution\ndef f():\n    return 1",
			want:   "def f():\n    return 1\n",
		},
		{
			name:   "unfenced code under the Code header",
			answer: "### Requirements\nNone\n### Code\nHere it is:\ndef f(x):\n# a comment at column 0\n    return x\n",
			want:   "def f(x):\n# a comment at column 0\n    return x\n",
		},
		{
			name:   "think part with a draft is skipped",
			answer: md("<think>\nMaybe:\n´´´python\ndef draft(): pass\n´´´\nNo, better:\n</think>\n´´´python\ndef final(): pass\n´´´"),
			want:   "def final(): pass\n",
		},
		{
			name: "whole answer wrapped in a markdown block",
			answer: md(`´´´markdown
I will reverse the list.

### Requirements
None

### Code
´´´python
def rev(xs):
    return xs[::-1]
´´´
´´´`),
			want: "def rev(xs):\n    return xs[::-1]\n",
		},
		{
			name:   "python block under the requirements header",
			answer: md("### Requirements\nnumpy\n´´´python\nimport numpy as np\n´´´"),
			want:   "import numpy as np\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFunction(tt.answer, tt.entry)
			if err != nil {
				t.Fatalf("ParseFunction: %v", err)
			}
			if got.Code != tt.want {
				t.Errorf("Code =\n%s\nwant\n%s", got.Code, tt.want)
			}
		})
	}
}

func TestParseFields(t *testing.T) {
	answer := md(`The task asks for the pairwise distances, so I will use numpy
broadcasting.

### Requirements
numpy, scipy

### Code
´´´python
import numpy as np

def dist(a):
    return np.linalg.norm(a[:, None] - a[None, :], axis=-1)
´´´
`)
	got, err := Parse(answer)
	if err != nil {
		t.Fatal(err)
	}
	want := Response{
		Reasoning:    "The task asks for the pairwise distances, so I will use numpy\nbroadcasting.",
		Requirements: []string{"numpy", "scipy"},
		Code:         "import numpy as np\n\ndef dist(a):\n    return np.linalg.norm(a[:, None] - a[None, :], axis=-1)\n",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse =\n%#v\nwant\n%#v", got, want)
	}
}

func TestParseTruncated(t *testing.T) {
	answer := md("I'll use a stack.\n\n### Code\n´´´python\ndef balanced(s):\n    stack = []\n    for c in s:\n        if c in '([{':\n")
	got, err := Parse(answer)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Truncated || len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "line 4") {
		t.Errorf("Truncated = %v, Warnings = %q; want truncated with one warning naming line 4", got.Truncated, got.Warnings)
	}
	if want := "def balanced(s):\n    stack = []\n    for c in s:\n        if c in '([{':\n"; got.Code != want {
		t.Errorf("Code = %q, want %q", got.Code, want)
	}
}

func TestParseNoCode(t *testing.T) {
	tests := []struct{ name, answer string }{
		{"empty", ""},
		{"prose only", "I think the bug is in the loop bound; it should be len(xs) - 1."},
		{"only requirements", "### Requirements\nnumpy\n### Code\n"},
		{"only a shell block", md("´´´sh\npython main.py\n´´´")},
		{"only output", md("´´´\n42\n´´´")},
		{"unfinished thinking", "<think>\nLet me consider ```python\ndef f(): pass\n```"},
		{"prose that mentions def", "You could def-initely use a dict here."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.answer)
			if !errors.Is(err, ErrNoCode) {
				t.Fatalf("Parse error = %v, want ErrNoCode (code %q)", err, got.Code)
			}
			if got.Code != "" || got.Files != nil {
				t.Errorf("got code %q, files %v", got.Code, got.Files)
			}
		})
	}
	got, _ := Parse("I need more details about the input format.")
	if got.Reasoning != "I need more details about the input format." {
		t.Errorf("Reasoning = %q, want the whole answer", got.Reasoning)
	}
}

func TestFormatReminder(t *testing.T) {
	for _, want := range []string{"### Requirements", "### Code", "```python", "### File: "} {
		if !strings.Contains(FormatReminder, want) {
			t.Errorf("FormatReminder does not mention %q", want)
		}
	}
	if n := strings.Count(FormatReminder, ". "); n < 1 || n > 3 {
		t.Errorf("FormatReminder has %d sentence breaks, want two or three sentences", n)
	}
}

func TestParseReasoning(t *testing.T) {
	tests := []struct{ name, answer, want string }{
		{"reasoning header dropped", "### Reasoning\nUse a set.\n### Code\nimport os", "Use a set."},
		{"text before the chosen block", md("Sort first.\n´´´python\nx = 1\n´´´\nDone."), "Sort first."},
		{"think part kept", md("<think>hmm</think>\nPlan.\n´´´python\nx = 1\n´´´"), "hmm\n\nPlan."},
		{"lone closing think tag", md("hmm\n</think>\n´´´python\nx = 1\n´´´"), "hmm"},
		{"bare code has none", "def f(): pass", ""},
		{"inside a markdown wrapper", md("Sure!\n´´´md\nLoop once.\n### Code\n´´´python\nx = 1\n´´´\n´´´"), "Sure!\n\nLoop once."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.answer)
			if err != nil {
				t.Fatal(err)
			}
			if got.Reasoning != tt.want {
				t.Errorf("Reasoning = %q, want %q", got.Reasoning, tt.want)
			}
		})
	}
}

func TestParseEntryPointWarning(t *testing.T) {
	got, err := ParseFunction("def g(): pass", "f")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "does not define f") {
		t.Errorf("Warnings = %q, want one about f", got.Warnings)
	}
}
