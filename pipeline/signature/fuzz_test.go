package signature

import (
	"errors"
	"strings"
	"testing"
)

func FuzzFromTest(f *testing.F) {
	for _, seed := range []string{
		`assert remove_Occ("hello","l") == "heo"`,
		`assert set(f((3, 4), [1, {2: 'x'}])) == set((4, 5))`,
		`assert math.isclose(f(1e-5, -0x_ff, 1j), 2.0, rel_tol=0.001)`,
		`assert (f(b"\x00", r'\n', """a"""))==[(1,), {}, set()]`,
		`self.assertEqual(f(lambda x, y: x, *a, k=float('inf')), None)`,
		"assert f(\n1,\\\n2) == 3 ; f(",
		`assert f("unterminated`,
	} {
		f.Add(seed, "")
		f.Add(seed, "f")
	}
	f.Fuzz(func(t *testing.T, test, name string) {
		sig, err := FromTest(test, name)
		if err != nil {
			if !errors.Is(err, ErrNoCall) && !errors.Is(err, ErrUnbalanced) && !errors.Is(err, ErrSyntax) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if name != "" && sig.Name != name {
			t.Fatalf("asked for %q, got %q", name, sig.Name)
		}
		seen := map[string]bool{}
		for _, p := range sig.Params {
			if p.Name == "" || seen[p.Name] && !strings.HasPrefix(p.Name, "*") {
				t.Fatalf("bad or repeated parameter name %q in %s", p.Name, sig)
			}
			seen[p.Name] = true
		}
		_ = sig.String()
	})
}

func FuzzEval(f *testing.F) {
	for _, seed := range []string{
		"[1, 2.5, 'a', b'b', None, True, (1,), {1: {2}}]",
		`-0x_FF + 1j`, `"\x41\101\u00e9\N{X}"`, `float('nan')`, "((((",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		v, err := Eval(expr)
		if err != nil {
			if !errors.Is(err, ErrNotLiteral) && !errors.Is(err, ErrUnbalanced) && !errors.Is(err, ErrSyntax) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if _, found := firstOpaque(v); found {
			t.Fatalf("Eval(%q) returned a non-literal part: %#v", expr, v)
		}
		_ = TypeOf(v).Hint()
	})
}
