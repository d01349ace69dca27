package response

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseRequest(t *testing.T) {
	file := func(p string, from, to int) Item { return Item{Kind: ItemFile, Path: p, From: from, To: to} }
	def := func(n string) Item { return Item{Kind: ItemDefinition, Name: n} }
	search := func(s string) Item { return Item{Kind: ItemSearch, Text: s} }
	tests := []struct {
		name     string
		answer   string
		found    bool
		items    []Item
		problems []string // each a substring of the problem at its index
	}{
		{name: "no request", answer: "The fix is simple.\n\n### File: a.py\n```python\nx = 1\n```\n"},
		{name: "the word in prose is no header", answer: "I would request the file a.py.\nfile a.py\n"},
		{
			name:   "the prompt's example",
			answer: "I need the median.\n\n### Request\nfile calc/stats.py 40-90\ndefinition Stats.median\nsearch return 0.0\n",
			found:  true, items: []Item{file("calc/stats.py", 40, 90), def("Stats.median"), search("return 0.0")},
		},
		{
			name:   "a whole file, and the forms of a range",
			answer: "## Request:\nfile calc/ops.py\nfile calc/ops.py:3-9\nfile `calc/ops.py` lines 10 - 12\nfile calc/ops.py 7\n",
			found:  true, items: []Item{file("calc/ops.py", 0, 0), file("calc/ops.py", 3, 9), file("calc/ops.py", 10, 12), file("calc/ops.py", 7, 7)},
		},
		{
			name:   "in a fence, as a list, verbs in any case with a colon",
			answer: "**Request**\n```text\n- File: calc/ops.py\n2. DEFINITION: `divide()`\n* search: \"  x = 1\"\n```\nThen I will fix it.\n",
			found:  true, items: []Item{file("calc/ops.py", 0, 0), def("divide"), search("  x = 1")},
		},
		{
			name:   "a blank line after the items ends the section",
			answer: "### Request\nfile a.py\n\nAfter that I will write the fix.\n",
			found:  true, items: []Item{file("a.py", 0, 0)},
		},
		{
			name:   "the next header ends the section",
			answer: "### Request\nfile a.py\n### Notes\nsearch something\n",
			found:  true, items: []Item{file("a.py", 0, 0)},
		},
		{
			name:   "search text in backticks keeps what is inside",
			answer: "### Request\nsearch `raise ValueError(`\n",
			found:  true, items: []Item{search("raise ValueError(")},
		},
		{
			name:   "at most four items",
			answer: "### Request\nfile a.py\nfile b.py\nfile c.py\nfile d.py\nfile e.py\n",
			found:  true, items: []Item{file("a.py", 0, 0), file("b.py", 0, 0), file("c.py", 0, 0), file("d.py", 0, 0)},
			problems: []string{"`file e.py`: left out: one request names at most 4 items"},
		},
		{
			name:   "malformed lines are problems, the others items",
			answer: "### Request\nplease show me the stats module\nfile a.py 9-3\nfile a.py lines x-y\ndefinition not a name\nsearch ab\nfile\nfile a.py\n",
			found:  true, items: []Item{file("a.py", 0, 0)},
			problems: []string{"not an item", "1 <= A <= B", "written A-B", "by its name", "at least 3 characters", "no path"},
		},
		{
			name:     "a request with nothing readable",
			answer:   "### Request\nI need to see how errors are raised.\n",
			found:    true,
			problems: []string{"not an item"},
		},
		{name: "a request in the thinking part is not read", answer: "<think>\n### Request\nfile a.py\n</think>\nNo request.\n"},
		{
			name:   "CRLF line endings",
			answer: "### Request\r\nfile a.py 1-2\r\n",
			found:  true, items: []Item{file("a.py", 1, 2)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, found := ParseRequest(tt.answer)
			if found != tt.found {
				t.Fatalf("found = %v, want %v", found, tt.found)
			}
			if !reflect.DeepEqual(req.Items, tt.items) {
				t.Errorf("items = %+v\nwant    %+v", req.Items, tt.items)
			}
			if len(req.Problems) != len(tt.problems) {
				t.Fatalf("problems = %q, want %d", req.Problems, len(tt.problems))
			}
			for i, p := range tt.problems {
				if !strings.Contains(req.Problems[i], p) {
					t.Errorf("problem %d = %q, want one with %q", i, req.Problems[i], p)
				}
			}
		})
	}
}

// TestRequestIsNoCode: a request is not read as code by Parse, and an
// answer with code and a request is code.
func TestRequestIsNoCode(t *testing.T) {
	resp, err := Parse("### Request\n```\nfile calc/ops.py\n```\n")
	if len(resp.Files) != 0 {
		t.Errorf("a request parsed as files: %+v (%v)", resp.Files, err)
	}
	resp, _ = Parse("### Request\nfile a.py\n\n### File: a.py\n```python\nx = 1\n```\n")
	if len(resp.Files) != 1 {
		t.Errorf("an answer with code and a request lost its code: %+v", resp)
	}
}

func TestItemString(t *testing.T) {
	for _, tc := range []struct {
		item Item
		want string
	}{
		{Item{Kind: ItemFile, Path: "a.py"}, "file a.py"},
		{Item{Kind: ItemFile, Path: "a.py", From: 3, To: 9}, "file a.py 3-9"},
		{Item{Kind: ItemDefinition, Name: "Stats.median"}, "definition Stats.median"},
		{Item{Kind: ItemSearch, Text: "return 0.0"}, "search return 0.0"},
	} {
		if got := tc.item.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.item, got, tc.want)
		}
		if req, _ := ParseRequest("### Request\n" + tc.want + "\n"); len(req.Items) != 1 || req.Items[0] != tc.item {
			t.Errorf("%q does not read back as %+v: %+v", tc.want, tc.item, req)
		}
	}
}
