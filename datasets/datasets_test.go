package datasets

import (
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/bench/dataset"
)

// TestShippedDatasets loads every shipped dataset from the embedded copy
// and checks its problem counts, and that its folder's SOURCE.txt and
// licence are embedded with it.
func TestShippedDatasets(t *testing.T) {
	for _, d := range All() {
		t.Run(d.Name, func(t *testing.T) {
			r, err := d.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			set, err := dataset.Read(d.File, r, dataset.Auto)
			if err != nil {
				t.Fatal(err)
			}
			unsound := 0
			for _, p := range set.Problems {
				if p.Broken != "" {
					unsound++
				}
			}
			if len(set.Problems) != d.Problems || unsound != d.Unsound || len(set.Errors) > 0 {
				t.Errorf("%s: %d problems, %d unsound, %d bad records; want %d, %d and none",
					d.File, len(set.Problems), unsound, len(set.Errors), d.Problems, d.Unsound)
			}
			dir := path.Dir(d.File)
			if _, err := fs.Stat(files, path.Join(dir, "SOURCE.txt")); err != nil {
				t.Error(err)
			}
			if licences, _ := fs.Glob(files, path.Join(dir, "LICENSE.*")); len(licences) == 0 {
				t.Errorf("%s has no LICENSE.* file", dir)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	for _, d := range All() {
		got, ok := Lookup(d.Name)
		if !ok || got != d {
			t.Errorf("Lookup(%q) = %+v, %v", d.Name, got, ok)
		}
		if !strings.Contains(Names(), d.Name) {
			t.Errorf("Names() = %q lacks %q", Names(), d.Name)
		}
	}
	for _, name := range []string{"", "HumanEval", "humaneval/HumanEval.jsonl.gz", "BigCodeBench"} {
		if d, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) = %+v, want none", name, d)
		}
	}
}
