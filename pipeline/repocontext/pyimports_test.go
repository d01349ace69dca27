package repocontext

import (
	"reflect"
	"testing"
)

func TestParseImports(t *testing.T) {
	tests := []struct {
		stmt string
		want []pyImport
	}{
		{"import os", []pyImport{{module: "os"}}},
		{"import calc.ops as o, sys", []pyImport{{module: "calc.ops"}, {module: "sys"}}},
		{"from calc.ops import divide, add as plus", []pyImport{{module: "calc.ops", names: []string{"divide", "add"}}}},
		{"from . import ops", []pyImport{{level: 1, names: []string{"ops"}}}},
		{"from .ops import divide", []pyImport{{level: 1, module: "ops", names: []string{"divide"}}}},
		{"from ..util.text import (wrap,  fill,)", []pyImport{{level: 2, module: "util.text", names: []string{"wrap", "fill"}}}},
		{"from calc import *", []pyImport{{module: "calc"}}},
		{"from the start, import x", nil},
		{"import", nil},
		{"from calc.ops import divide; import os", []pyImport{{module: "calc.ops", names: []string{"divide"}}}},
	}
	for _, tt := range tests {
		if got := parseImports(tt.stmt); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseImports(%q) = %+v, want %+v", tt.stmt, got, tt.want)
		}
	}
}

func TestLogicalLine(t *testing.T) {
	tests := []struct {
		src, want string
		next      int
	}{
		{"import os\nimport sys\n", "import os", 10},
		{"from a import (\n    b,  # the b\n    c,\n)\nx = 1\n", "from a import ( b, c, )", 41},
		{"from a import b, \\\n    c\nx", "from a import b,  c", 25},
		{"def f(a,\n      b):\n    pass", "def f(a, b):", 19},
	}
	for _, tt := range tests {
		got, next := logicalLine([]byte(tt.src), 0, true)
		if got != tt.want || next != tt.next {
			t.Errorf("logicalLine(%q) = %q, %d; want %q, %d", tt.src, got, next, tt.want, tt.next)
		}
	}
}
