package edits

import (
	"slices"
	"testing"
)

func TestSummary(t *testing.T) {
	repo := t.TempDir()
	writeTree(t, repo, map[string]file{
		"calc.py":  {content: "a\nb\nc\n"},
		"old.py":   {content: "x\ny\n"},
		"same.py":  {content: "same\n"},
		"data.bin": {content: "\x00"},
	})
	got := Summary([]Edit{
		{Path: "old.py", Delete: true},
		{Path: "calc.py", Content: "a\nB\nc\nd\n"},
		{Path: "same.py", Content: "same\n"},
		{Path: "new/mod.py", Content: "1\n2\n3\n"},
		{Path: "../escape.py", Content: "x\n"}, // Diff would refuse it
		{Path: "data.bin", Content: "x\n"},     // and this
	}, repo)
	want := []FileChange{
		{Path: "calc.py", Status: StatusModified, Added: 2, Removed: 1},
		{Path: "new/mod.py", Status: StatusAdded, Added: 3},
		{Path: "old.py", Status: StatusDeleted, Removed: 2},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Summary = %+v\n   want %+v", got, want)
	}
}
