package bench_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bench"
	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/datasets"
)

// TestLoadDataset resolves shipped names and file paths, and rejects
// anything else with the list of names.
func TestLoadDataset(t *testing.T) {
	file := filepath.Join(t.TempDir(), "one.jsonl")
	record := `{"task_id": "T/0", "prompt": "def f():\n", "entry_point": "f", "canonical_solution": "    return 1\n", "test": "def check(candidate):\n    assert candidate() == 1\n"}`
	if err := os.WriteFile(file, []byte(record+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A file named like a shipped dataset is reached by its path.
	t.Chdir(t.TempDir())
	if err := os.WriteFile("humaneval", []byte(record+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		problems int
		err      string
	}{
		{"humaneval", 164, ""},
		{"mbpp", 427, ""},
		{"mbpp-full", 974, ""},
		{file, 1, ""},
		{"./humaneval", 1, ""},
		{"humaneval-xl", 0, `no shipped dataset named "humaneval-xl"`},
		{"HumanEval", 0, "shipped datasets: " + datasets.Names()},
		{"missing/file.jsonl", 0, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := bench.LoadDataset(tt.name, dataset.Auto)
			checkErr := bench.CheckDataset(tt.name)
			if tt.err == "" {
				if err != nil || checkErr != nil || len(set.Problems) != tt.problems {
					t.Errorf("%d problems, errors %v and %v; want %d", len(set.Problems), err, checkErr, tt.problems)
				}
				return
			}
			for _, err := range []error{err, checkErr} {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one containing %q", err, tt.err)
				}
			}
		})
	}
}

// TestShippedReferences checks that every problem of every shipped
// dataset has a reference solution once loaded, which is what sizes its
// CPU-time limit: MBPP-ET's file has none and takes MBPP's.
func TestShippedReferences(t *testing.T) {
	for _, d := range datasets.All() {
		set, err := bench.LoadDataset(d.Name, dataset.Auto)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range set.Problems {
			if p.Reference == "" {
				t.Errorf("%s %s has no reference solution", d.Name, p.TaskID)
			}
		}
	}
}
