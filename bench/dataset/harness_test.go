package dataset

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// loadProblems loads a testdata file, accepting ErrEvalUnsupported.
func loadProblems(t *testing.T, file string) map[string]Problem {
	t.Helper()
	set, err := Load(filepath.Join("testdata", file), Auto)
	if err != nil && !errors.Is(err, ErrEvalUnsupported) {
		t.Fatal(err)
	}
	m := make(map[string]Problem)
	for _, p := range set.Problems {
		m[p.TaskID] = p
	}
	return m
}

const checkSource = "def check(candidate):\n    assert candidate(3) == 6\n"

// TestGeneratedTests runs candidates against the tests Capsule generates or
// rewrites for EvalPlus, with python3.
func TestGeneratedTests(t *testing.T) {
	py := python(t)
	plus := loadProblems(t, "HumanEvalPlus.jsonl")
	add, findZero := plus["HumanEval/0"], plus["HumanEval/32"]
	mbppOrigin := loadProblems(t, "MbppPlus-OriginFmt.jsonl")["2"]
	heOrigin := loadProblems(t, "HumanEvalPlus-OriginFmt.jsonl")["HumanEval/0"]
	mbppPlus := loadProblems(t, "MbppPlus.jsonl")["Mbpp/404"]

	tests := []struct {
		name       string
		tests      Tests
		code       string
		wantOK     bool
		wantOutput string
	}{
		{"reference passes debug", add.DebugTests, add.Reference, true, ""},
		{"reference passes eval", add.EvalTests, add.Reference, true, ""},
		{"wrong answer names the call", add.EvalTests, "def add(a, b):\n    return a - b\n", false,
			"AssertionError: add(1, 2) returned -1, expected 3"},
		{"plus input fails where base passes", add.EvalTests, "def add(a, b):\n    return a + b if a < 1e6 else 0\n", false,
			"add(1000000000000000000000000000000, 1) returned 0, expected 1000000000000000000000000000001"},
		{"base inputs only in debug", add.DebugTests, "def add(a, b):\n    return a + b if a < 1e6 else 0\n", true, ""},
		{"float within 1e-6 passes", add.EvalTests, "def add(a, b):\n    return a + b + (1e-9 if isinstance(a, float) else 0)\n", true, ""},
		{"float off by 1e-3 fails", add.EvalTests, "def add(a, b):\n    return a + b + (1e-3 if isinstance(a, float) else 0)\n", false,
			"add(0.1, 0.2) returned 0.30100000000000005, expected 0.30000000000000004"},
		{"any root passes find_zero", findZero.EvalTests, findZero.Prompt + "    x = 0.0\n    for _ in range(200):\n" +
			"        d = poly([i * c for i, c in enumerate(xs)][1:], x)\n        x -= poly(xs, x) / d if d else 0.5\n    return x\n", true, ""},
		{"non-root fails find_zero", findZero.EvalTests, findZero.Prompt + "    return 1.5\n", false, "find_zero([-6, 11, -6, 1]) returned 1.5, expected a root x with |poly(xs, x)| <= 0.0001"},
		{"numpy-free OriginFmt passes reference", mbppOrigin.EvalTests, mbppOrigin.Reference, true, ""},
		{"numpy-free OriginFmt fails wrong answer", mbppOrigin.EvalTests, "def similar_elements(a, b):\n  return ()\n", false, "AssertionError"},
		{"numpy-free allclose accepts close floats", heOrigin.EvalTests, "def add(a, b):\n    return round(a + b, 12)\n", true, ""},
		{"numpy-free allclose rejects far floats", heOrigin.EvalTests, "def add(a, b):\n    return a + b + 0.01\n", false, "AssertionError"},
		{"MBPP+ base asserts", mbppPlus.DebugTests, mbppPlus.Reference, true, ""},
		{"entry point named check", checkTests(checkSource, "check"), "def check(n):\n    return 2 * n\n", true, ""},
		{"entry point named check fails", checkTests(checkSource, "check"), "def check(n):\n    return n\n", false, "AssertionError"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.tests.Source == "" {
				t.Fatal("no tests")
			}
			run := runPython(py, dir, tt.tests.Program(tt.code), 20*time.Second)
			if run.ok != tt.wantOK || !strings.Contains(run.output, tt.wantOutput) {
				t.Errorf("ok = %v, want %v; output:\n%s\nwant it to contain %q", run.ok, tt.wantOK, run.output, tt.wantOutput)
			}
		})
	}
}

// TestAllclose checks the numpy-free allclose against numpy's documented
// results.
func TestAllclose(t *testing.T) {
	py := python(t)
	cases := []struct{ a, b, atol, want string }{
		{"1.0", "1.0 + 1e-9", "1e-6", "True"},
		{"1.0", "1.1", "1e-6", "False"},
		{"[1.0, 2.0]", "(1.0, 2.0000001)", "1e-6", "True"},
		{"[1.0, 2.0]", "[1.0]", "1e-6", "False"},
		{"[1.0, 1.0]", "[1.0]", "1e-6", "True"},                 // broadcast length 1
		{"[[1.0, 2.0], [1.0, 2.0]]", "[1.0, 2.0]", "0", "True"}, // broadcast rank
		{"2.0", "[2.0, 2.0]", "0", "True"},
		{"[]", "[]", "0", "True"},
		{"float('inf')", "float('inf')", "0", "True"},
		{"float('inf')", "-float('inf')", "1e9", "False"},
		{"float('nan')", "float('nan')", "1e9", "False"},
		{"True", "1", "0", "True"},
		{"1 + 1j", "1 + 1.0000001j", "1e-6", "True"},
		{"100.0", "100.00001", "0", "True"}, // within rtol 1e-7 * 100
	}
	var prog strings.Builder
	prog.WriteString(compareSource)
	prog.WriteString("\nbad = []\n")
	for _, c := range cases {
		prog.WriteString("if _capsule_allclose(" + c.a + ", " + c.b + ", rtol=1e-07, atol=" + c.atol + ") != " + c.want + ":\n")
		prog.WriteString("    bad.append(" + pyString(c.a+" vs "+c.b) + ")\n")
	}
	prog.WriteString(`
for a, b in [([1.0, 2.0], [1.0, 2.0, 3.0]), ("a", "b"), ({1.0}, {1.0})]:
    try:
        _capsule_allclose(a, b)
        bad.append("no error for %r vs %r" % (a, b))
    except (TypeError, ValueError):
        pass
assert not bad, bad
`)
	if run := runPython(py, t.TempDir(), prog.String(), 20*time.Second); !run.ok {
		t.Errorf("allclose disagrees with numpy:\n%s", run.output)
	}
}
