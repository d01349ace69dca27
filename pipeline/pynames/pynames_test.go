package pynames

import (
	"os"
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	out, err := os.ReadFile("testdata/python3.11.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		out     string
		version string
		has     []string
		hasNot  []string
		wantErr bool
	}{
		{name: "the probe's output in Capsule's image", out: string(out), version: "3.11.2",
			has:    []string{"json", "os", "sys", "pytest", "_pytest", "pluggy", "iniconfig", "py", "capsule_testreport", "capsule_boot", "pip", "test"},
			hasNot: []string{"__pycache__", "mypkg", ""}},
		{name: "only the runner's names are added", out: `{"version": "3.12.1", "stdlib": ["json"], "builtin": ["sys"], "installed": ["numpy"]}`,
			version: "3.12.1", has: []string{"json", "sys", "numpy", "pytest", "capsule_testreport"}, hasNot: []string{"os"}},
		{name: "not JSON", out: "sh: 1: python3: not found\n", wantErr: true},
		{name: "nothing listed", out: `{"version": "3.11.2"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, version, err := Parse([]byte(tt.out))
			if (err != nil) != tt.wantErr {
				t.Fatalf("Parse error = %v, want error %v", err, tt.wantErr)
			}
			if version != tt.version {
				t.Errorf("version %q, want %q", version, tt.version)
			}
			for _, n := range tt.has {
				if !set.Has(n) {
					t.Errorf("%q is not in the set", n)
				}
			}
			for _, n := range tt.hasNot {
				if set.Has(n) {
					t.Errorf("%q is in the set", n)
				}
			}
		})
	}
}

func TestFallback(t *testing.T) {
	set := Fallback()
	for _, n := range append([]string{"json", "os", "sys", "importlib", "_abc", "itertools"}, Runner...) {
		if !set.Has(n) {
			t.Errorf("%q is not in the fallback", n)
		}
	}
	for _, n := range []string{"pip", "setuptools", "mypkg"} {
		if set.Has(n) {
			t.Errorf("%q is in the fallback, which knows no installed package", n)
		}
	}
	if names := set.Sorted(); !slices.IsSorted(names) || len(names) < 300 {
		t.Errorf("%d names", len(names))
	}
}
