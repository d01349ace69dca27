package repocontext

import (
	"reflect"
	"testing"
)

func TestSymbols(t *testing.T) {
	dir := writeRepo(t, map[string]string{
		"calc/__init__.py": "",
		"calc/ops.py":      "def divide(a, b):\n    return a / b\n\n\nclass Calculator:\n    def divide(self, a, b):\n        return a / b\n",
		"calc/parse.py":    "class RatioParser:\n    pass\n",
	})
	tests := []struct {
		name        string
		title, body string
		want        []string
	}{
		{"backticks", "`divide` fails", "", []string{"divide"}},
		{"signature wins", "`divide` fails", "Keep\n\n```python\ndef divide(a: float,\n           b: float) -> float:\n```\n",
			[]string{"def divide(a: float, b: float) -> float"}},
		{"prose call", "divide() crashes", "", []string{"divide"}},
		{"prose call of a plain word", "the value(s) are wrong", "", nil},
		{"snake case for a new function", "Add a parse_ratio helper", "", []string{"parse_ratio"}},
		{"module path", "calc.ops.divide raises", "", []string{"calc.ops.divide"}},
		{"class and method", "`Calculator.divide` is wrong", "", []string{"Calculator.divide"}},
		{"code block calls only if defined", "Crash", "```\nresult = divide(1, 0)\nprint(helper_x(2))\n```", []string{"divide"}},
		{"builtins", "`ValueError` from `len()`", "", nil},
		{"CamelCase only if defined", "RatioParser breaks on GitHub Actions", "", []string{"RatioParser"}},
		{"traceback frame", "Crash", "  File \"/src/calc/ops.py\", line 2, in divide\n  File \"lib.py\", line 1, in other_fn", []string{"divide"}},
		{"file names are not symbols", "`power.py` is missing", "", nil},
		{"abbreviations", "E.g. when dividing", "", nil},
		{"import in a code block", "Crash", "```python\nfrom calc.ops import divide\n```", []string{"calc.ops.divide"}},
		{"inline import", "`from calc.ops import divide` fails", "", []string{"calc.ops.divide"}},
		{"unclosed fence", "Crash", "```\ndivide(1, 0)", []string{"divide"}},
		{"a name in quotes, as an error prints it", "UnboundLocalError: local variable 'divide' referenced before assignment", "", []string{"divide"}},
		{"names of one or two letters", "`ab` and `x` are wrong", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, err := Build(dir, Issue{Title: tt.title, Body: tt.body}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ctx.Symbols, tt.want) {
				t.Errorf("Symbols = %q, want %q", ctx.Symbols, tt.want)
			}
		})
	}
}

func TestScanTokens(t *testing.T) {
	type tok struct {
		text        string
		call, empty bool
	}
	var got []tok
	scanTokens("See ./calc/ops.py, then divide() and --flag calc.ops.div(1). Done.", func(s string, call, empty bool) {
		got = append(got, tok{s, call, empty})
	})
	want := []tok{
		{"See", false, false}, {"./calc/ops.py", false, false}, {"then", false, false},
		{"divide", true, true}, {"and", false, false}, {"flag", false, false},
		{"calc.ops.div", true, false}, {"1", false, false}, {"Done", false, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("scanTokens:\n got %v\nwant %v", got, want)
	}
}

func TestNameHelpers(t *testing.T) {
	tests := []struct {
		s                   string
		ident, snake, camel bool
	}{
		{"divide", true, false, false},
		{"parse_ratio", true, true, false},
		{"_private", true, false, false},
		{"__init__", true, false, false},
		{"TimeParser", true, false, true},
		{"parseDuration", true, false, true},
		{"HTTP", true, false, false},
		{"9lives", false, false, false},
		{"a-b", false, false, false},
	}
	for _, tt := range tests {
		if got := isIdent(tt.s); got != tt.ident {
			t.Errorf("isIdent(%q) = %v", tt.s, got)
		}
		if got := isSnake(tt.s); got != tt.snake {
			t.Errorf("isSnake(%q) = %v", tt.s, got)
		}
		if got := isCamel(tt.s); got != tt.camel {
			t.Errorf("isCamel(%q) = %v", tt.s, got)
		}
	}
}

func TestContainsWord(t *testing.T) {
	tests := []struct {
		text, word string
		want       bool
	}{
		{"assert divide(6, 3) == 2", "divide", true},
		{"assert safe_divide(6, 3)", "divide", false},
		{"dividend = divide", "divide", true},
		{"divider", "divide", false},
		{"x.divide", "divide", true},
	}
	for _, tt := range tests {
		if got := containsWord([]byte(tt.text), tt.word); got != tt.want {
			t.Errorf("containsWord(%q, %q) = %v", tt.text, tt.word, got)
		}
	}
}

func TestCodeNames(t *testing.T) {
	tests := []struct {
		name, title, body string
		want              []string
	}{
		{"a single name in backticks", "`tox -e ALL` and `ALL`", "", []string{"ALL"}},
		{"dotted names, calls and paths are not", "`a.b_c`, `run()`, `x/y.py`", "", nil},
		{"built-ins, typing's names and short names are not", "`None`, `int`, `Any`, `Optional`, `ab`", "", nil},
		{"code blocks and prose are not", "pass_env breaks", "```\nEVERY = 1\n```", nil},
		{"each once", "`pass_env` or `pass_env`?", "", []string{"pass_env"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseIssue(Issue{Title: tt.title, Body: tt.body}).codeNames; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("codeNames = %q, want %q", got, tt.want)
			}
		})
	}
}
