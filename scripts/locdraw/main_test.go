package main

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestHunks(t *testing.T) {
	diff := []byte("diff --git a/x.py b/x.py\n" +
		"@@ -3 +3 @@ def f():\n-a\n+b\n" +
		"@@ -10,2 +10,0 @@\n-c\n-d\n" +
		"@@ -20,0 +19,2 @@\n+e\n+f\n" +
		"@@ -0,0 +1 @@\n+g\n")
	want := [][2]int{{3, 3}, {10, 11}, {20, 20}, {1, 1}}
	if got := hunks(diff); !reflect.DeepEqual(got, want) {
		t.Errorf("hunks = %v, want %v", got, want)
	}
}

func TestIsSource(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"src/pkg/core.py", true},
		{"pkg/core.py", true},
		{"tests/test_core.py", false},
		{"pkg/tests/helpers.py", false},
		{"testing/python/approx.py", false},
		{"pkg/core_test.py", false},
		{"conftest.py", false},
		{"docs/conf.py", false},
		{"scripts/release.py", false},
		{"pkg/core.pyi", false},
		{"README.md", false},
	}
	for _, tt := range tests {
		if got := isSource(tt.path); got != tt.want {
			t.Errorf("isSource(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestFixRef(t *testing.T) {
	tests := []struct {
		msg  string
		want []string
	}{
		{"Fix crash (#123)\n\nFixes #120", []string{"120"}},
		{"closes: #7 and resolves #8", []string{"7", "8"}},
		{"Prefix #12 is not a fix", nil},
		{"fixed #5", []string{"5"}},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range fixRef.FindAllStringSubmatch(tt.msg, -1) {
			got = append(got, m[1])
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("fixRef in %q = %v, want %v", tt.msg, got, tt.want)
		}
	}
}

// TestShippedHalvesFollowTheRule checks that every case of the shipped
// holdout is in the half the rule gives it.
func TestShippedHalvesFollowTheRule(t *testing.T) {
	n := 0
	err := readLines("../../pipeline/repocontext/testdata/holdout/cases.jsonl", func(b []byte) error {
		var c Case
		if err := json.Unmarshal(b, &c); err != nil {
			return err
		}
		if want := split(c.Repo, c.Issue); c.Split != want {
			t.Errorf("%s#%d is in %q, the rule says %q", c.Repo, c.Issue, c.Split, want)
		}
		n++
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("read %d cases: %v", n, err)
	}
}
