package repocontext

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// outlineOf summarises the defs of an outline as "name start-body-end
// parent header".
func outlineOf(o *pyOutline) []string {
	var out []string
	for _, d := range o.defs {
		parent := "-"
		if d.parent >= 0 {
			parent = o.defs[d.parent].name
		}
		out = append(out, fmt.Sprintf("%s %d-%d-%d %s %s", d.name, d.start, d.body, d.end, parent, d.header))
	}
	return out
}

func TestParsePython(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    []string
		imports []lineRange
	}{
		{
			name: "decorators, async and nested classes",
			src: `import os
from typing import (
    Any,
)

@dataclass
@other(x=1)
class Outer(Base):
    class Inner:
        def method(self):
            return 1

    async def fetch(self, url):
        return url
`,
			want: []string{
				"Outer 6-9-14 - class Outer(Base)",
				"Inner 9-10-11 Outer class Inner",
				"method 10-11-11 Inner def method(self)",
				"fetch 13-14-14 Outer async def fetch(self, url)",
			},
			imports: []lineRange{{1, 4}},
		},
		{
			name: "multi-line signature",
			src: `def divide(
    a: float,
    b: float = 1.0,
) -> float:
    return a / b
`,
			want: []string{"divide 1-5-5 - def divide(a: float, b: float = 1.0,) -> float"},
		},
		{
			name: "def in docstrings, strings and comments",
			src: `def real():
    """Say how to write one:

def fake():
    pass
"""
    s = "def not_one():"
    t = '''
class NotOne:
'''
    # def commented():
    return s

x = 1
`,
			want: []string{"real 1-2-12 - def real()"},
		},
		{
			name: "comments and blank lines at a lower indentation stay inside",
			src: `class A:
    def f(self):
        x = 1
# a comment at column 0

        return x
    def g(self): return 2
y = A()
`,
			want: []string{
				"A 1-2-7 - class A",
				"f 2-3-6 A def f(self)",
				"g 7-8-7 A def g(self)",
			},
		},
		{
			name: "backslash continuation and brackets in strings",
			src: `def f(a=")", \
      b="("):
    return a + \
        b
def g(): pass
`,
			want: []string{
				`f 1-3-4 - def f(a=")", \ b="(")`,
				"g 5-6-5 - def g()",
			},
		},
		{
			name: "tabs",
			src:  "class T:\n\tdef m(self):\n\t\tpass\n\tdef n(self):\n\t\tpass\n",
			want: []string{"T 1-2-5 - class T", "m 2-3-3 T def m(self)", "n 4-5-5 T def n(self)"},
		},
		{
			name: "an unterminated docstring swallows the rest, nothing more",
			src:  "def f():\n    \"\"\"open\ndef g():\n    pass\n",
			want: []string{"f 1-2-4 - def f()"},
		},
		{name: "empty", src: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := parsePython([]byte(tt.src))
			if got := outlineOf(o); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("defs:\n got %q\nwant %q", got, tt.want)
			}
			if !reflect.DeepEqual(o.imports, tt.imports) {
				t.Errorf("imports = %v, want %v", o.imports, tt.imports)
			}
			if want := strings.Count(strings.TrimSuffix(tt.src, "\n"), "\n") + 1; tt.src != "" && len(o.lines) != want {
				t.Errorf("%d lines, want %d", len(o.lines), want)
			}
		})
	}
}

func TestCalls(t *testing.T) {
	o := parsePython([]byte("def f():\n    x = g(1) + self.h(y(2))\n    return print (x)\n"))
	if got, want := o.calls(1, 3), []string{"f", "g", "h", "y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("calls = %q, want %q", got, want)
	}
}

// FuzzParsePython checks what the spans rely on, for any input: every def
// lies within the file, its body after its first line and its end not
// before its signature, inside its parent; imports too.
func FuzzParsePython(f *testing.F) {
	f.Add("@d\nclass A:\n    def f(\n        self,\n    ):\n        '''def g():'''\n        return 1\n")
	f.Add("def f(): pass\n\tdef g():\n  x = '''\n")
	f.Add("import os, \\\n  sys\nfrom a import (\n b)\n")
	f.Fuzz(func(t *testing.T, src string) {
		o := parsePython([]byte(src))
		for k, d := range o.defs {
			if d.start < 1 || d.start >= d.body || d.body-1 > d.end || d.end > len(o.lines) {
				t.Fatalf("def %q: start %d, body %d, end %d of %d lines", d.name, d.start, d.body, d.end, len(o.lines))
			}
			if d.parent >= k || d.parent >= 0 && (o.defs[d.parent].start > d.start || o.defs[d.parent].end < d.end) {
				t.Fatalf("def %q is not inside its parent %d", d.name, d.parent)
			}
		}
		for _, r := range o.imports {
			if r.start < 1 || r.start > r.end || r.end > len(o.lines) {
				t.Fatalf("imports %v of %d lines", r, len(o.lines))
			}
		}
	})
}
