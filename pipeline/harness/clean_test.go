package harness_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/pipeline/harness/harnesstest"
)

// TestCleanRules checks which top-level statements example-call removal
// keeps, with the script's clean function.
func TestCleanRules(t *testing.T) {
	python := harnesstest.RequirePython(t)
	dir := t.TempDir()
	if err := harnesstest.WriteFiles(dir, harness.Program{}.Files()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		code     string
		removed  [][2]int
		syntaxOK bool
	}{
		{"definitions", "@dec\n@dec2(1)\ndef f():\n    pass\nasync def g():\n    pass\nclass C:\n    x = 1\n", nil, true},
		{"docstring and pass", "\"\"\"Module.\"\"\"\npass\n", nil, true},
		{"constants", "A = 1\nB: int = 2\nC, (D, *E) = 1, (2, 3)\nA += 1\nF = [x * x for x in range(3)]\nG = lambda: print(1)\n", nil, true},
		{"example assignments", "r = add(1, 2)\nn = int(input())\ndata = sys.stdin.read()\nd = {}\nd['k'] = 1\nobj.attr = 2\n", [][2]int{{1, 3}, {5, 6}}, true},
		{"statements", "print(1)\nadd(1, 2)\nassert add(1, 1) == 2\nwhile False:\n    pass\nwith open('f') as f:\n    pass\ndel d\n", [][2]int{{1, 8}}, true},
		{"setup calls", "import sys\nsys.setrecursionlimit(10000)\nrandom.seed(1)\nsys.setrecursionlimit(int(input()))\n", [][2]int{{4, 4}}, true},
		{"conditional definitions", "if sys.version_info >= (3, 9):\n    from math import lcm\nelse:\n    def lcm(a, b):\n        return a * b\nif DEBUG:\n    print(1)\n", [][2]int{{6, 7}}, true},
		{"import fallbacks", "try:\n    import numpy as np\nexcept ImportError:\n    np = None\ntry:\n    print(add(1, 2))\nexcept Exception:\n    pass\n", [][2]int{{5, 8}}, true},
		{"main block", "def add(a, b):\n    return a + b\n\nif __name__ == '__main__':\n    import doctest\n", [][2]int{{4, 5}}, true},
		{"shared line kept whole", "X = 1; print(X)\nprint(2); print(3)\n", [][2]int{{2, 2}}, true},
		{"multi-line call", "print(\n    add(1, 2),\n)\nY = 2\n", [][2]int{{1, 3}}, true},
		{"syntax error", "def f(:\n    pass\nprint(1)\n", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(python, "-B", "-c", `import json, sys, capsule_harness as h
src, entry = json.load(sys.stdin)
json.dump(h.clean(src, entry)[1:], sys.stdout)`)
			cmd.Dir = dir
			in, err := json.Marshal([]string{tt.code, "add"})
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stdin = bytes.NewReader(in)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("clean: %v", err)
			}
			var got struct {
				removed  [][2]int
				syntaxOK bool
			}
			if err := json.Unmarshal(out, &[]any{&got.removed, &got.syntaxOK}); err != nil {
				t.Fatalf("clean printed %s: %v", out, err)
			}
			if len(got.removed) == 0 {
				got.removed = nil
			}
			if !slices.Equal(got.removed, tt.removed) || got.syntaxOK != tt.syntaxOK {
				t.Errorf("clean(%q) removed %v, syntax ok %v; want %v, %v", tt.code, got.removed, got.syntaxOK, tt.removed, tt.syntaxOK)
			}
		})
	}
}

// TestStripRemovedMatchesScript checks that StripRemoved shows the code the
// script runs.
func TestStripRemovedMatchesScript(t *testing.T) {
	python := harnesstest.RequirePython(t)
	dir := t.TempDir()
	prog := harness.Program{Solution: strings.ReplaceAll(exampleCalls, "\n", "\r\n"), EntryPoint: "add"}
	if err := harnesstest.WriteFiles(dir, prog.Files()); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "-B", "-c", `import sys, capsule_harness as h
code, removed, ok = h.clean(h.read_source("solution.py"), "add")
sys.stdout.write(code)`)
	cmd.Dir = dir
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("clean: %v", err)
	}
	got := harness.StripRemoved(prog.Solution, [][2]int{{9, 13}, {22, 23}})
	if got != string(want) {
		t.Errorf("StripRemoved:\n%s\nscript ran:\n%s", got, want)
	}
}
