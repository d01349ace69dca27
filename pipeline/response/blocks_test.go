package response

import (
	"errors"
	"github.com/capsulehq/capsule/pipeline/edits"
	"reflect"
	"strings"
	"testing"
)

func TestParseBlocks(t *testing.T) {
	tests := []struct {
		name, answer string
		want         []edits.FileEdit
		warning      string // a substring of the only warning, if any
	}{
		{
			name:   "canonical",
			answer: md("### File: a.py\n´´´python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n´´´\n"),
			want:   []edits.FileEdit{{Path: "a.py", Blocks: []edits.Block{{N: 1, Line: 3, Search: "x = 1\n", Replace: "x = 2\n"}}}},
		},
		{
			name: "sloppy markers, several blocks in one fence, no blank lines",
			answer: md("### File: a.py\n´´´diff\n<<<<<< SEARCH\nx = 1\n=======\r\nx = 2\n>>>>>>>>> replace\n" +
				"<<<<<<<SEARCH\ny = 1\n=======\n>>>>>>>REPLACE\n´´´"),
			want: []edits.FileEdit{{Path: "a.py", Blocks: []edits.Block{
				{N: 1, Line: 3, Search: "x = 1\n", Replace: "x = 2\n"},
				{N: 2, Line: 8, Search: "y = 1\n", Replace: ""}}}},
		},
		{
			// A numpy docstring's underline is not a divider: only seven
			// "=" alone at the line's start are.
			name:   "lines of = in SEARCH and REPLACE",
			answer: md("### File: a.py\n´´´python\n<<<<<<< SEARCH\n    Examples\n    ========\n=========\n======\n=======\n    Examples\n    ========\n>>>>>>> REPLACE\n´´´\n"),
			want: []edits.FileEdit{{Path: "a.py", Blocks: []edits.Block{{N: 1, Line: 3,
				Search: "    Examples\n    ========\n=========\n======\n", Replace: "    Examples\n    ========\n"}}}},
		},
		{
			// The file decides which is the divider (package edits).
			name:   "several divider lines: every reading is kept",
			answer: md("### File: a.rst\n´´´\n<<<<<<< SEARCH\nTitle\n=======\ntext\n=======\nTitle\n=======\nmore\n>>>>>>> REPLACE\n´´´\n"),
			want: []edits.FileEdit{{Path: "a.rst", Blocks: []edits.Block{{N: 1, Line: 3, Search: "Title\n", Replace: "text\n=======\nTitle\n=======\nmore\n",
				Splits: []edits.Split{
					{Search: "Title\n", Replace: "text\n=======\nTitle\n=======\nmore\n"},
					{Search: "Title\n=======\ntext\n", Replace: "Title\n=======\nmore\n"},
					{Search: "Title\n=======\ntext\n=======\nTitle\n", Replace: "more\n"},
				}}}}},
		},
		{
			name:   "blocks across fences and repeated headers accumulate",
			answer: md("### File: a.py\n´´´\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n´´´\nthen\n´´´\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n´´´\n### File: a.py\n´´´\n<<<<<<< SEARCH\ne\n=======\nf\n>>>>>>> REPLACE\n´´´\n"),
			want: []edits.FileEdit{{Path: "a.py", Blocks: []edits.Block{
				{N: 1, Line: 3, Search: "a\n", Replace: "b\n"}, {N: 2, Line: 11, Search: "c\n", Replace: "d\n"}, {N: 3, Line: 19, Search: "e\n", Replace: "f\n"}}}},
		},
		{
			name:    "text between blocks is ignored",
			answer:  md("### File: a.py\n´´´\na.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\nnote this\n´´´\n"),
			want:    []edits.FileEdit{{Path: "a.py", Blocks: []edits.Block{{N: 1, Line: 4, Search: "a\n", Replace: "b\n"}}}},
			warning: `ignored 1 lines of text between the SEARCH/REPLACE blocks for "a.py"`,
		},
		{
			name:    "blocks after a whole file replace it",
			answer:  md("### File: a.py\n´´´\nx = 1\n´´´\n### File: a.py\n´´´\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n´´´\n"),
			want:    []edits.FileEdit{{Path: "a.py", Blocks: []edits.Block{{N: 1, Line: 7, Search: "a\n", Replace: "b\n"}}}},
			warning: "given whole and then by SEARCH/REPLACE blocks",
		},
		{
			name:   "a plain File: line before an unfenced block",
			answer: "File: a.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n",
			want:   []edits.FileEdit{{Path: "a.py", Blocks: []edits.Block{{N: 1, Line: 2, Search: "a\n", Replace: "b\n"}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.answer)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Files, tt.want) {
				t.Errorf("Files =\n%#v\nwant\n%#v", got.Files, tt.want)
			}
			switch {
			case tt.warning == "" && len(got.Warnings) > 0:
				t.Errorf("Warnings = %q, want none", got.Warnings)
			case tt.warning != "" && (len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], tt.warning)):
				t.Errorf("Warnings = %q, want one with %q", got.Warnings, tt.warning)
			}
		})
	}
}

func TestParseBlockErrors(t *testing.T) {
	tests := []struct{ name, answer, want string }{
		{"no divider", md("### File: a.py\n´´´\n<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n´´´\n"),
			`SEARCH/REPLACE block 1 (line 3) for "a.py" has no ======= line`},
		{"no exact divider", md("### File: a.py\n´´´\n<<<<<<< SEARCH\na\n  =========  \n ======= \nb\n>>>>>>> REPLACE\n´´´\n"),
			`exactly seven "=" alone on a line`},
		{"no REPLACE marker", md("### File: a.py\n´´´\n<<<<<<< SEARCH\na\n=======\nb\n´´´\n"),
			`SEARCH/REPLACE block 1 (line 3) for "a.py" does not end with a >>>>>>> REPLACE line`},
		{"no file", md("Here:\n\n´´´\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n´´´\n"),
			`the SEARCH/REPLACE blocks at line 3 name no file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.answer)
			if !errors.Is(err, ErrFileBlock) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrFileBlock with %q", err, tt.want)
			}
		})
	}
}

// TestParseFunctionReadsNoBlocks: function-level answers are parsed as
// before, markers and all.
func TestParseFunctionReadsNoBlocks(t *testing.T) {
	code := "<<<<<<< SEARCH\ndef f():\n    return 1\n=======\ndef f():\n    return 2\n>>>>>>> REPLACE\n"
	got, err := ParseFunction(md("### Code\n´´´python\n"+code+"´´´\n"), "f")
	if err != nil || got.Code != code || got.Files != nil {
		t.Errorf("ParseFunction = %q, %v, %v; want the block as code", got.Code, got.Files, err)
	}
}
