package response

import (
	"errors"
	"github.com/capsulehq/capsule/pipeline/edits"
	"reflect"
	"strings"
	"testing"
)

func TestParseFiles(t *testing.T) {
	answer := md(`The parser drops the last field when the line ends with a comma, because
´split´ is called with a limit. I'll fix it and document the behaviour.

### Requirements
None

### File: csvlite/parser.py
´´´python
def parse_line(line):
    return line.split(",")
´´´

### File: ´README.md´
´´´´markdown
# csvlite

´´´python
from csvlite.parser import parse_line
parse_line("a,b,")  # ['a', 'b', '']
´´´

### File: not a header inside a fence
´´´´

**File:** "tests/test_trailing.py"
´´´python
from csvlite.parser import parse_line


def test_trailing_comma():
    assert parse_line("a,") == ["a", ""]



´´´
`)
	got, err := Parse(answer)
	if err != nil {
		t.Fatal(err)
	}
	want := []edits.FileEdit{
		{Path: "csvlite/parser.py", Whole: true, Content: "def parse_line(line):\n    return line.split(\",\")\n"},
		{Path: "README.md", Whole: true, Content: md("# csvlite\n\n´´´python\nfrom csvlite.parser import parse_line\nparse_line(\"a,b,\")  # ['a', 'b', '']\n´´´\n\n### File: not a header inside a fence\n")},
		{Path: "tests/test_trailing.py", Whole: true, Content: "from csvlite.parser import parse_line\n\n\ndef test_trailing_comma():\n    assert parse_line(\"a,\") == [\"a\", \"\"]\n"},
	}
	if !reflect.DeepEqual(got.Files, want) {
		t.Errorf("Files =\n%#v\nwant\n%#v", got.Files, want)
	}
	if got.Code != "" || got.Requirements != nil || len(got.Warnings) != 0 {
		t.Errorf("Code = %q, Requirements = %q, Warnings = %q; want none", got.Code, got.Requirements, got.Warnings)
	}
	if !strings.HasPrefix(got.Reasoning, "The parser drops") || !strings.HasSuffix(got.Reasoning, "the behaviour.") {
		t.Errorf("Reasoning = %q", got.Reasoning)
	}
}

func TestParseFilesAndCode(t *testing.T) {
	answer := md(`Some context:
´´´python
old_code = True
´´´
### File: a.py
´´´python
x = 1
´´´
`)
	got, err := Parse(answer)
	if err != nil {
		t.Fatal(err)
	}
	if got.Code != "" || len(got.Files) != 1 {
		t.Errorf("Code = %q, Files = %v; a quoted snippet is not the code when files are given", got.Code, got.Files)
	}
	got, err = Parse(answer + md("### Code\n´´´python\ndef helper(): pass\n´´´\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Code != "def helper(): pass\n" || len(got.Files) != 1 {
		t.Errorf("Code = %q, Files = %v; want both", got.Code, got.Files)
	}
}

func TestParseFilePaths(t *testing.T) {
	tests := []struct{ header, path string }{
		{"### File: pkg/mod.py", "pkg/mod.py"},
		{"### File: `pkg/mod.py`", "pkg/mod.py"},
		{"## file: 'pkg/mod.py'", "pkg/mod.py"},
		{`**File: "pkg/mod.py"**`, "pkg/mod.py"},
		{"**File:** `pkg/mod.py`", "pkg/mod.py"},
		{"### File `pkg/mod.py`", "pkg/mod.py"},
		{"### Updated file: pkg/mod.py", "pkg/mod.py"},
		{"File: pkg/mod.py", "pkg/mod.py"},
		{"### File:   ../outside.py  ", "../outside.py"},
		{"### File: docs/My Notes.md", "docs/My Notes.md"},
		{"### FILE: Pkg/Mod.PY", "Pkg/Mod.PY"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.header + md("\n´´´python\nx = 1\n´´´\n"))
		if err != nil {
			t.Errorf("%q: %v", tt.header, err)
			continue
		}
		if len(got.Files) != 1 || got.Files[0].Path != tt.path {
			t.Errorf("%q: Files = %v, want path %q", tt.header, got.Files, tt.path)
		}
	}
}

func TestParseDuplicateFile(t *testing.T) {
	answer := md(`### File: app.py
´´´python
VERSION = 1
´´´
### File: util.py
´´´python
def util(): pass
´´´
Oops, app.py needs one more change:
### File: app.py
´´´python
VERSION = 2
´´´
`)
	got, err := Parse(answer)
	if err != nil {
		t.Fatal(err)
	}
	want := []edits.FileEdit{{Path: "app.py", Whole: true, Content: "VERSION = 2\n"}, {Path: "util.py", Whole: true, Content: "def util(): pass\n"}}
	if !reflect.DeepEqual(got.Files, want) {
		t.Errorf("Files = %#v, want %#v", got.Files, want)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], `"app.py" is given more than once`) ||
		!strings.Contains(got.Warnings[0], "block 3 (line 10)") {
		t.Errorf("Warnings = %q, want one about app.py", got.Warnings)
	}
}

func TestParseFileErrors(t *testing.T) {
	tests := []struct {
		name, answer string
		msgs         []string
	}{
		{"empty path", md("### File: ok.py\n´´´python\nx = 1\n´´´\n### File: ``\n´´´python\ny = 2\n´´´"),
			[]string{"file block 2 (line 5) has an empty path"}},
		{"bold empty path", md("**File:**\n´´´python\ny = 2\n´´´"),
			[]string{"file block 1 (line 1) has an empty path"}},
		{"no content before the next header", md("### File: a.py\nI will change this file.\n### File: b.py\n´´´python\nb = 1\n´´´"),
			[]string{`file block 1 (line 1) for "a.py" has no fenced content`}},
		{"no content at the end", md("### File: a.py\n´´´python\na = 1\n´´´\n### File: b.py\n"),
			[]string{`file block 2 (line 5) for "b.py" has no fenced content`}},
		{"several problems", md("### File:\n´´´\n´´´\n### File: c.py\n"),
			[]string{"file block 1 (line 1) has an empty path", `file block 2 (line 4) for "c.py" has no fenced content`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.answer)
			if !errors.Is(err, ErrFileBlock) {
				t.Fatalf("error = %v, want ErrFileBlock", err)
			}
			for _, msg := range tt.msgs {
				if !strings.Contains(err.Error(), msg) {
					t.Errorf("error %q does not contain %q", err, msg)
				}
			}
		})
	}
}

func TestParseFileContent(t *testing.T) {
	tests := []struct{ name, block, want string }{
		{"one newline kept", "´´´python\nx = 1\n´´´", "x = 1\n"},
		{"closing fence not alone on its line", "´´´python\nx = 1´´´", md("x = 1´´´\n")},
		{"trailing blank lines dropped", "´´´python\nx = 1\n\n  \n´´´", "x = 1\n"},
		{"leading blank lines and indentation kept", "´´´python\n\n    x = 1\n´´´", "\n    x = 1\n"},
		{"empty file", "´´´\n´´´", ""},
		{"truncated", "´´´python\nx = 1\ny = ", "x = 1\ny = \n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(md("### File: f.py\n" + tt.block))
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Files) != 1 || got.Files[0].Content != tt.want {
				t.Errorf("Files = %#v, want content %q", got.Files, tt.want)
			}
		})
	}
}
