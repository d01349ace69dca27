package repocontext

import (
	"fmt"
	"strings"
	"testing"
)

func TestRenderTreeFull(t *testing.T) {
	files := []string{"README.md", "calc/ops.py", "calc/__init__.py", "calc/sub/deep.py", "tests/test_ops.py"}
	want := `calc/
  sub/
    deep.py
  __init__.py
  ops.py
tests/
  test_ops.py
README.md
`
	if got := renderTree(files, nil, 1000); got != want {
		t.Errorf("renderTree:\n%s\nwant:\n%s", got, want)
	}
}

// bigTree is a repository with a source package, a test directory, many
// docs and a deep package.
func bigTree() []string {
	var files []string
	for i := range 30 {
		files = append(files, fmt.Sprintf("docs/page%02d.md", i))
	}
	for i := range 15 {
		files = append(files, fmt.Sprintf("pkg/mod%02d.py", i))
	}
	files = append(files, "pkg/deep/er/still/target.py", "pkg/deep/er/still/other.py", "tests/test_a.py", "setup.py")
	return files
}

func TestRenderTreeCollapsed(t *testing.T) {
	tests := []struct {
		name  string
		limit int
		focus map[string]bool
		want  string
	}{
		{
			name:  "sources before docs",
			limit: 260,
			want: `docs/ (30 files)
pkg/
  deep/
    er/
      still/
        other.py
        target.py
  mod00.py
  mod01.py
  mod02.py
  mod03.py
  mod04.py
  mod05.py
  mod06.py
  mod07.py
  mod08.py
  mod09.py
  mod10.py
  ... and 4 more files
tests/
  test_a.py
setup.py
`,
		},
		{
			name:  "focus path kept",
			limit: 200,
			focus: map[string]bool{"pkg/deep/er/still/target.py": true},
			want: `docs/ (30 files)
pkg/
  deep/
    er/
      still/
        other.py
        target.py
  ... and 15 more files
tests/
  test_a.py
setup.py
`,
		},
		{name: "only the count fits", limit: 12, want: "(49 files)\n"},
		{name: "nothing fits", limit: 5, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderTree(bigTree(), tt.focus, tt.limit)
			if got != tt.want {
				t.Errorf("renderTree:\n%s\nwant:\n%s", got, tt.want)
			}
			if len(got) > tt.limit {
				t.Errorf("tree takes %d bytes, limit %d", len(got), tt.limit)
			}
		})
	}
}

// TestRenderTreeLimit checks the limit holds at every size, and that a
// larger limit never shows less.
func TestRenderTreeLimit(t *testing.T) {
	files := bigTree()
	prev := 0
	for limit := 0; limit < 800; limit += 7 {
		got := renderTree(files, map[string]bool{"pkg/mod03.py": true}, limit)
		if len(got) > limit {
			t.Fatalf("limit %d: tree takes %d bytes", limit, len(got))
		}
		lines := strings.Count(got, "\n")
		if lines < prev {
			t.Fatalf("limit %d: %d lines, fewer than the %d of a smaller limit", limit, lines, prev)
		}
		prev = lines
	}
}

func TestRenderTreeOneHiddenFileIsListed(t *testing.T) {
	var files []string
	for i := range treeEntries + 1 {
		files = append(files, fmt.Sprintf("f%02d.txt", i))
	}
	got := renderTree(files, nil, 1000)
	if strings.Contains(got, "more file") || strings.Count(got, "\n") != treeEntries+1 {
		t.Errorf("renderTree:\n%s\nwant all %d files listed", got, treeEntries+1)
	}
}
