package repocontext

import (
	"reflect"
	"testing"
)

func TestModuleResolve(t *testing.T) {
	files := []string{
		"calc/__init__.py",    // 0
		"calc/ops.py",         // 1
		"src/calc/ops.py",     // 2
		"scripts/helpers.py",  // 3
		"lib/helpers.py",      // 4
		"a/utils.py",          // 5
		"b/utils.py",          // 6
		"c/utils.py",          // 7
		"d/utils.py",          // 8
		"scripts/run.py",      // 9
		"pkg/sub/__init__.py", // 10
		"__init__.py",         // 11
	}
	m := newModuleIndex(files)
	tests := []struct {
		module, from string
		maxDepth     int
		want         []int
	}{
		{"calc.ops", "", maxDepthAny, []int{1}},           // the shallowest root wins
		{"calc.ops", "src", maxDepthAny, []int{2}},        // unless another holds the importer
		{"calc", "", maxDepthAny, []int{0}},               // a package is its __init__.py
		{"helpers", "scripts", maxDepthAny, []int{3}},     // the script's own directory
		{"helpers", "tests", maxDepthAny, []int{3, 4}},    // equally good
		{"utils", "", maxDepthAny, nil},                   // too many to choose from
		{"utils", "a/x", maxDepthAny, []int{5}},           // but one holds the importer
		{"pkg.sub", "", maxDepthAny, []int{10}},           // a package without a module
		{"calc.ops", "", 0, []int{1}},                     // root depth bounded
		{"ops", "", 0, nil},                               // calc/ops.py is ops only from calc/
		{"missing", "", maxDepthAny, nil},                 // no such module
		{"src.calc.ops", "", maxDepthAny, []int{2}},       // the full path
		{"scripts.run", "scripts", maxDepthAny, []int{9}}, // a full path from its own directory
	}
	for _, tt := range tests {
		if got := m.resolve(tt.module, tt.from, tt.maxDepth); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("resolve(%q, %q, %d) = %v, want %v", tt.module, tt.from, tt.maxDepth, got, tt.want)
		}
	}
}

func TestResolveImport(t *testing.T) {
	dir := writeRepo(t, map[string]string{
		"__init__.py":          "",
		"pkg/__init__.py":      "",
		"pkg/a.py":             "",
		"pkg/b.py":             "",
		"pkg/sub/__init__.py":  "",
		"pkg/sub/c.py":         "",
		"pkg/sub/deep/d.py":    "",
		"pkg/sub/deep/more.py": "",
	})
	r, err := openRepo(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	tests := []struct {
		from string
		imp  pyImport
		want []string
	}{
		{"pkg/a.py", pyImport{level: 1, names: []string{"b"}}, []string{"pkg/b.py"}},
		{"pkg/a.py", pyImport{level: 1, module: "b", names: []string{"thing"}}, []string{"pkg/b.py"}},
		{"pkg/a.py", pyImport{level: 1, names: []string{"b", "VERSION"}}, []string{"pkg/b.py", "pkg/__init__.py"}},
		{"pkg/sub/deep/d.py", pyImport{level: 2, module: "c", names: []string{"x"}}, []string{"pkg/sub/c.py"}},
		{"pkg/sub/deep/d.py", pyImport{level: 3, names: []string{"a"}}, []string{"pkg/a.py"}},
		{"pkg/sub/deep/d.py", pyImport{level: 1, names: []string{"more"}}, []string{"pkg/sub/deep/more.py"}},
		{"pkg/a.py", pyImport{level: 3, names: []string{"x"}}, nil}, // above the repository
		{"pkg/a.py", pyImport{module: "pkg.sub", names: []string{"c"}}, []string{"pkg/sub/c.py"}},
		{"pkg/a.py", pyImport{module: "pkg.sub.c"}, []string{"pkg/sub/c.py"}},
		{"pkg/a.py", pyImport{module: "os"}, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, f := range r.resolveImport(r.index[tt.from], tt.imp) {
			got = append(got, r.files[f])
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("resolveImport(%s, %+v) = %q, want %q", tt.from, tt.imp, got, tt.want)
		}
	}
}
