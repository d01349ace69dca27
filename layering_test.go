// The layering test keeps Capsule's import arrows pointing one way: it
// reads the module's import graph with `go list` and fails on every
// forbidden arrow, naming it and the chain of imports that draws it.
package capsule_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the module's import path; rule patterns without a dot in
// their first element are relative to it.
const module = "github.com/capsulehq/capsule"

// A rule forbids every package matching From to import, directly or not,
// a package matching any of Not. A pattern is a package path, or a path
// and everything under it when it ends in "/...".
type rule struct {
	From string
	Not  []string
	// Tests extends the rule to the packages' tests: what their test files
	// import must keep it too.
	Tests bool
	Why   string
}

// rules is the table of forbidden arrows.
var rules = []rule{
	{From: "sandbox/...", Not: []string{"pipeline/...", "bot/...", "cmd/..."}, Tests: true,
		Why: "the sandbox knows no test runner and no App: its callers bring the runner's helper files"},
	{From: "sandbox/agent", Not: []string{"github.com/docker/..."},
		Why: "the in-container agent links no Docker client"},
	{From: "sandbox/limits", Not: []string{"sandbox", "github.com/docker/..."},
		Why: "sizes and minima are a leaf that parsers use without Docker"},
	{From: "pipeline/repoconfig", Not: []string{"sandbox", "github.com/docker/..."},
		Why: "the configuration parser links no Docker client: sizes and minima come from sandbox/limits"},
	{From: "pipeline/...", Not: []string{"bot/...", "cmd/..."},
		Why: "the loop knows nothing of the GitHub App"},
	{From: "pipeline", Not: []string{"pipeline/reposolve", "pipeline/repo/..."},
		Why: "the loop's core knows no repo mode: repo mode uses the core, not the reverse"},
	{From: "bot/metrics", Not: []string{"pipeline/...", "sandbox/..."},
		Why: "metrics take plain values"},
	{From: "bot/store/...", Not: []string{"bot/server", "bot/job", "pipeline/...", "sandbox/..."}, Tests: true,
		Why: "the queue's contract and its shared suite live with the store"},
	{From: "bot/work", Not: []string{module + "/..."},
		Why: "bot/work is the vocabulary every other room uses"},
	{From: "internal/...", Not: []string{"pipeline/...", "bot/...", "sandbox/...", "cmd/...", "bench/...", "testsupport/..."}, Tests: true,
		Why: "internal/ holds leaf libraries only"},
	{From: "pipeline/...", Not: []string{"testsupport/..."},
		Why: "fixtures serve tests (and capsule demo), never the product's packages"},
	{From: "sandbox/...", Not: []string{"testsupport/..."},
		Why: "fixtures serve tests (and capsule demo), never the product's packages"},
	{From: "bot/...", Not: []string{"testsupport/..."},
		Why: "fixtures serve tests (and capsule demo), never the product's packages"},
}

// pkg is what the test reads of one package from `go list -json`.
type pkg struct {
	ImportPath   string
	Standard     bool
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func TestLayering(t *testing.T) {
	graph := importGraph(t)
	paths := slices.Sorted(maps.Keys(graph))
	for _, r := range rules {
		matched := false
		for _, path := range paths {
			p := graph[path]
			if !match(r.From, path) {
				continue
			}
			matched = true
			for _, not := range r.Not {
				if chain := find(graph, path, p.Imports, not); chain != nil {
					t.Errorf("forbidden arrow %s ↛ %s (%s):\n\t%s", r.From, not, r.Why, strings.Join(chain, "\n\t→ "))
				}
				if !r.Tests {
					continue
				}
				tests := append(append([]string(nil), p.TestImports...), p.XTestImports...)
				if chain := find(graph, path+" (tests)", tests, not); chain != nil {
					t.Errorf("forbidden arrow %s ↛ %s in tests (%s):\n\t%s", r.From, not, r.Why, strings.Join(chain, "\n\t→ "))
				}
			}
		}
		if !matched {
			t.Errorf("rule %s ↛ %v matches no package: update the table", r.From, r.Not)
		}
	}
}

// TestLayeringFinds checks the search on a graph of its own: the chain it
// reports is the shortest, and an allowed graph passes.
func TestLayeringFinds(t *testing.T) {
	g := map[string]pkg{
		module + "/a":        {Imports: []string{module + "/b", "fmt"}},
		module + "/b":        {Imports: []string{module + "/c/d"}},
		module + "/c/d":      {},
		module + "/e":        {Imports: []string{module + "/c/d"}},
		"fmt":                {Standard: true},
		"github.com/x/y/sub": {},
	}
	got := find(g, module+"/a", g[module+"/a"].Imports, "c/...")
	want := []string{"a", "b", "c/d"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("chain = %q, want %q", got, want)
	}
	if got := find(g, module+"/b", g[module+"/b"].Imports, "e"); got != nil {
		t.Errorf("b reaches e by %q", got)
	}
	for _, tt := range []struct {
		pattern, path string
		want          bool
	}{
		{"sandbox/...", module + "/sandbox", true},
		{"sandbox/...", module + "/sandbox/agent", true},
		{"sandbox/...", module + "/sandboxes", false},
		{"sandbox", module + "/sandbox/agent", false},
		{"github.com/x/...", "github.com/x/y/sub", true},
		{"github.com/x/...", module + "/github.com/x", false},
	} {
		if got := match(tt.pattern, tt.path); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// importGraph lists every package the module's packages and their tests
// reach, with what each imports.
func importGraph(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-test", "-json=ImportPath,Standard,Imports,TestImports,XTestImports", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	graph := make(map[string]pkg)
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("read go list's output: %v", err)
		}
		// -test adds test variants ("p [q.test]") and test mains
		// ("p.test"); the plain packages carry their test imports.
		if strings.Contains(p.ImportPath, " ") || strings.HasSuffix(p.ImportPath, ".test") {
			continue
		}
		graph[p.ImportPath] = p
	}
	if len(graph) == 0 {
		t.Fatal("go list listed no package")
	}
	return graph
}

// find returns the shortest chain of imports from the package named from,
// through its imports first, to a package matching pattern, or nil.
// The chain names the module's packages relative to the module.
func find(graph map[string]pkg, from string, first []string, pattern string) []string {
	prev := map[string]string{}
	var queue []string
	for _, imp := range first {
		if _, seen := prev[imp]; !seen {
			prev[imp] = from
			queue = append(queue, imp)
		}
	}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		if match(pattern, path) {
			chain := []string{short(path)}
			for p := prev[path]; p != from; p = prev[p] {
				chain = append([]string{short(p)}, chain...)
			}
			return append([]string{short(from)}, chain...)
		}
		p := graph[path]
		if p.Standard {
			continue // the standard library imports nothing of ours
		}
		for _, imp := range p.Imports {
			if _, seen := prev[imp]; !seen {
				prev[imp] = path
				queue = append(queue, imp)
			}
		}
	}
	return nil
}

// match reports whether path matches pattern.
func match(pattern, path string) bool {
	if first, _, _ := strings.Cut(pattern, "/"); !strings.Contains(first, ".") {
		pattern = module + "/" + pattern
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

// short names a package of the module relative to it.
func short(path string) string {
	if rest, ok := strings.CutPrefix(path, module+"/"); ok {
		return rest
	}
	return path
}
