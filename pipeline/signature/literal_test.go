package signature

import (
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

func TestEval(t *testing.T) {
	huge, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	tests := []struct {
		expr string
		want any
	}{
		// ints
		{"0", int64(0)},
		{"42", int64(42)},
		{"-7", int64(-7)},
		{"+7", int64(7)},
		{"- -7", int64(7)},
		{"1_000_000", int64(1000000)},
		{"0xFF", int64(255)},
		{"0o17", int64(15)},
		{"0b1010", int64(10)},
		{"-0x_ff", int64(-255)},
		{"123456789012345678901234567890", huge},
		{"-9223372036854775808", int64(math.MinInt64)},
		// floats and complex numbers
		{"1.5", 1.5},
		{"400.", 400.0},
		{".5", 0.5},
		{"1e-5", 1e-5},
		{"-2.5E+3", -2500.0},
		{"1e999", math.Inf(1)},
		{"float('inf')", math.Inf(1)},
		{"-float('inf')", math.Inf(-1)},
		{`float("-Infinity")`, math.Inf(-1)},
		{"1j", complex(0, 1)},
		{"-2+2.5j", complex(-2, 2.5)},
		{"3-1j", complex(3, -1)},
		// strings
		{`"hello"`, "hello"},
		{`'it''s'`, "its"},
		{`"a\tb\n"`, "a\tb\n"},
		{`'don\'t'`, "don't"},
		{`"\x41\101\u00e9\U0001F600"`, "AAé😀"},
		{`r"C:\new\d+"`, `C:\new\d+`},
		{`R'\''`, `\'`},
		{`u"ü"`, "ü"},
		{`"""line one
line "two\""""`, "line one\nline \"two\""},
		{`'''a'''`, "a"},
		{`"unknown \q escape"`, `unknown \q escape`},
		{`"joined " 'strings'`, "joined strings"},
		{`"ünïcödé"`, "ünïcödé"},
		{`b"\x00ab\xff"`, []byte{0, 'a', 'b', 0xff}},
		{`rb"\x00"`, []byte(`\x00`)},
		{`b"\u0041"`, []byte(`\u0041`)},
		{`b""`, []byte{}},
		// constants
		{"True", true},
		{"False", false},
		{"None", nil},
		// containers
		{"[]", List{}},
		{"()", Tuple{}},
		{"{}", Dict{}},
		{"set()", Set{}},
		{"[1, 2, 3]", List{int64(1), int64(2), int64(3)}},
		{"[1, 2, 3,]", List{int64(1), int64(2), int64(3)}},
		{"(1,)", Tuple{int64(1)}},
		{"(1)", int64(1)},
		{"((1))", int64(1)},
		{"(1, 'a')", Tuple{int64(1), "a"}},
		{"{1, 2}", Set{int64(1), int64(2)}},
		{"{'a': 1, 'b': [2]}", Dict{{"a", int64(1)}, {"b", List{int64(2)}}}},
		{"[[1, 2], (3,), {4: None}]", List{List{int64(1), int64(2)}, Tuple{int64(3)}, Dict{{int64(4), nil}}}},
		{"[\n  1,  # one\n  2,\n]", List{int64(1), int64(2)}},
		{"  [1]\n", List{int64(1)}},
		{"(-1, +2.0, -3j)", Tuple{int64(-1), 2.0, complex(0, -3)}},
		{`["(", ")", "[1,"]`, List{"(", ")", "[1,"}},
		{strings.Repeat("[", 200) + strings.Repeat("]", 200), nested(200)},
	}
	for _, tt := range tests {
		got, err := Eval(tt.expr)
		if err != nil {
			t.Errorf("Eval(%q): %v", tt.expr, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Eval(%q) = %#v, want %#v", tt.expr, got, tt.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		expr string
		want error
	}{
		{"", ErrNotLiteral},
		{"x", ErrNotLiteral},
		{"2**3", ErrNotLiteral},
		{"1.0/3", ErrNotLiteral},
		{"[1, x]", ErrNotLiteral},
		{"{'a': f(1)}", ErrNotLiteral},
		{"[i for i in range(3)]", ErrNotLiteral},
		{"(i for i in range(3))", ErrNotLiteral},
		{"lambda x: x", ErrNotLiteral},
		{`f"{x}"`, ErrNotLiteral},
		{`"a" b"b"`, ErrNotLiteral},
		{`"\N{BULLET}"`, ErrNotLiteral},
		{`b"é"`, ErrNotLiteral},
		{"012", ErrNotLiteral},
		{"1__0", ErrNotLiteral},
		{"0x", ErrNotLiteral},
		{"1abc", ErrNotLiteral},
		{"-'a'", ErrNotLiteral},
		{"[1,,2]", ErrNotLiteral},
		{"{1: 2, 3}", ErrNotLiteral},
		{"float('one')", ErrNotLiteral},
		{"[1, 2][0]", ErrNotLiteral},
		{"'abc'.upper()", ErrNotLiteral},
		{"[1, 2", ErrUnbalanced},
		{"(1, 2]", ErrUnbalanced},
		{"1)", ErrUnbalanced},
		{strings.Repeat("[", 201) + strings.Repeat("]", 201), ErrSyntax},
		{`"open`, ErrSyntax},
		{`'''never closed`, ErrSyntax},
	}
	for _, tt := range tests {
		got, err := Eval(tt.expr)
		if !errors.Is(err, tt.want) {
			t.Errorf("Eval(%q) = %#v, %v; want error %v", tt.expr, got, err, tt.want)
		}
	}
}

// nested returns depth lists nested in each other.
func nested(depth int) any {
	v := List{}
	for range depth - 1 {
		v = List{v}
	}
	return v
}
