package signature

import (
	"errors"
	"strings"
	"testing"
)

func TestFromTest(t *testing.T) {
	tests := []struct {
		name, test, fn string
		want           string
	}{
		{"MBPP two strings", `assert remove_Occ("hello","l") == "heo"`, "",
			"def remove_Occ(arg_str_1: str, arg_str_2: str) -> str:"},
		{"name given", `assert remove_Occ("hello","l") == "heo"`, "remove_Occ",
			"def remove_Occ(arg_str_1: str, arg_str_2: str) -> str:"},
		{"set wrapper hides the return type", `assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))`, "",
			"def similar_elements(arg_tuple_int_1: tuple[int, ...], arg_tuple_int_2: tuple[int, ...]):"},
		{"math.isclose gives the return type", `assert math.isclose(volume_sphere(10), 4188.790204786391, rel_tol=0.001)`, "",
			"def volume_sphere(arg_int: int) -> float:"},
		{"isclose with expected first", `assert math.isclose(1.5, mean([1, 2]))`, "",
			"def mean(arg_list_int: list[int]) -> float:"},
		{"unittest assertEqual", `self.assertEqual(add(1, 2), 3)`, "",
			"def add(arg_int_1: int, arg_int_2: int) -> int:"},
		{"parenthesised call", `assert (Diff([10, 15, 20, 25, 30, 35, 40], [25, 40, 35])) == [10, 20, 30, 15]`, "",
			"def Diff(arg_list_int_1: list[int], arg_list_int_2: list[int]) -> list[int]:"},
		{"space before the parenthesis", `assert is_Diff (12345) == False`, "",
			"def is_Diff(arg_int: int) -> bool:"},
		{"assert not", `assert not text_match_three("ac")`, "",
			"def text_match_three(arg_str: str):"},
		{"repeated types numbered, others not", `assert sum_range_list([2,1,5,6,8,3,4,9,10,11,8,12], 8, 10) == 29`, "",
			"def sum_range_list(arg_list_int: list[int], arg_int_1: int, arg_int_2: int) -> int:"},
		{"interleaved repeats", `assert f(1, "a", 2) == None`, "",
			"def f(arg_int_1: int, arg_str: str, arg_int_2: int) -> None:"},
		{"keyword arguments keep their names", `assert round_to(3.14159, digits=2) == 3.14`, "",
			"def round_to(arg_float: float, digits: int) -> float:"},
		{"keyword clashing with a generated name", `assert f(1, arg_int=2) == 3`, "",
			"def f(arg_int_1: int, arg_int: int) -> int:"},
		{"variable argument", `assert is_tree_balanced(root) == False`, "",
			"def is_tree_balanced(arg_any) -> bool:"},
		{"expression argument", `assert binomial_probability(10, 5, 1.0/3) == 0.13656454808718185`, "",
			"def binomial_probability(arg_int_1: int, arg_int_2: int, arg_any) -> float:"},
		{"type object argument", `assert remove_datatype((4, 5, 4, 7.7, 1.2), int) == [7.7, 1.2]`, "",
			"def remove_datatype(arg_tuple_float: tuple[float, ...], arg_any) -> list[float]:"},
		{"objects inside a list", `assert max_chain_length([Pair(5, 24), Pair(15, 25)], 4) == 3`, "",
			"def max_chain_length(arg_list_any: list, arg_int: int) -> int:"},
		{"lambda with two parameters", `assert apply(lambda x, y: x + y, [1, 2]) == 3`, "",
			"def apply(arg_any, arg_list_int: list[int]) -> int:"},
		{"starred arguments", `assert f(*xs, **kw) == 1`, "",
			"def f(*args, **kwargs) -> int:"},
		{"expected value on the left", `assert 6 == multiply(2, 3)`, "",
			"def multiply(arg_int_1: int, arg_int_2: int) -> int:"},
		{"is None", `assert find(["a"], "b") is None`, "",
			"def find(arg_list_str: list[str], arg_str: str) -> None:"},
		{"assert message", `assert f([]) == {}, "empty input"`, "",
			"def f(arg_list: list) -> dict:"},
		{"call inside arithmetic", `assert 2 * half(3) == 3`, "",
			"def half(arg_int: int):"},
		{"non-literal expected value", `assert f(1) == [x]`, "",
			"def f(arg_int: int):"},
		{"comparison inside a call", `assert all(f(1) == 2 for _ in range(3))`, "",
			"def f(arg_int: int) -> int:"},
		{"multi-line call", "assert f(\n    [1,\n     2],  # items\n    'k') == 3\n", "",
			"def f(arg_list_int: list[int], arg_str: str) -> int:"},
		{"comment and string mentioning the name", "# g(1)\nassert f(\"g(2)\") == 1\nassert g(3.5) == 2", "g",
			"def g(arg_float: float) -> int:"},
		{"HumanEval candidate", "def check(candidate):\n    assert candidate([1.0, 2.0], 0.5) == True\n", "candidate",
			"def candidate(arg_list_float: list[float], arg_float: float) -> bool:"},
		{"method call of the same name skipped", `assert obj.f(1) == 1 and f("x") == 2`, "f",
			"def f(arg_str: str) -> int:"},
		{"no assert", `print(f(3))`, "",
			"def f(arg_int: int):"},
		{"builtin name as the function", `assert sum(10,15) == 6`, "",
			"def sum(arg_int_1: int, arg_int_2: int) -> int:"},
		{"no arguments", `assert f() == ()`, "",
			"def f() -> tuple:"},
		{"trailing comma", `assert f(1,) == 'x'`, "",
			"def f(arg_int: int) -> str:"},
		{"complex number", `assert angle_complex(0,1j) == 1.5707963267948966`, "",
			"def angle_complex(arg_int: int, arg_complex: complex) -> float:"},
		{"dict of lists", `assert f({'a': [1, 2], 'b': []}) == {'a': 3}`, "",
			"def f(arg_dict_str_list_int: dict[str, list[int]]) -> dict[str, int]:"},
		{"set argument, bytes return", `assert f({1, 2}) == b"ab"`, "",
			"def f(arg_set_int: set[int]) -> bytes:"},
		{"heterogeneous tuple", `assert check_type(("a", 1, 2.5)) == False`, "",
			"def check_type(arg_tuple_str_int_float: tuple[str, int, float]) -> bool:"},
		{"CRLF and continuation", "assert f(1, \\\r\n 2) == 3\r\n", "",
			"def f(arg_int_1: int, arg_int_2: int) -> int:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sig, err := FromTest(tt.test, tt.fn)
			if err != nil {
				t.Fatalf("FromTest(%q, %q): %v", tt.test, tt.fn, err)
			}
			if got := sig.String(); got != tt.want {
				t.Errorf("FromTest(%q, %q)\n got %s\nwant %s", tt.test, tt.fn, got, tt.want)
			}
		})
	}
}

func TestFromTestFields(t *testing.T) {
	sig, err := FromTest(`assert f([1], x, key="v") == [[1]]`, "f")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, typ string }{{"arg_list_int", "list_int"}, {"arg_any", "any"}, {"key", "str"}}
	if len(sig.Params) != len(want) {
		t.Fatalf("got %d params, want %d", len(sig.Params), len(want))
	}
	for i, w := range want {
		if p := sig.Params[i]; p.Name != w.name || p.Type.Name() != w.typ {
			t.Errorf("param %d = %s %s, want %s %s", i, p.Name, p.Type, w.name, w.typ)
		}
	}
	if sig.Name != "f" || sig.Returns.Name() != "list_list_int" {
		t.Errorf("got %s returning %s", sig.Name, sig.Returns)
	}
}

func TestFromTestErrors(t *testing.T) {
	tests := []struct {
		test, fn string
		want     error
		msg      string
	}{
		{`assert g(1) == 2`, "f", ErrNoCall, `no call of "f"`},
		{`assert x == 2`, "", ErrNoCall, "no function call"},
		{``, "", ErrNoCall, "no function call"},
		{`assert obj.f(1) == 2`, "f", ErrNoCall, `"f"`},
		{`assert "f(1)" == 2`, "f", ErrNoCall, `"f"`},
		{`def f(x): pass`, "f", ErrNoCall, `"f"`},
		{`assert f(1 == 2`, "f", ErrUnbalanced, `"(" at line 1, column 9 is never closed`},
		{`assert f([1, 2)) == 3`, "f", ErrUnbalanced, `")" at line 1, column 15 closes "["`},
		{`assert f(1)) == 3`, "f", ErrUnbalanced, `unexpected ")" at line 1, column 12`},
		{"assert f(1) == 'abc\nassert f(2) == 3", "f", ErrSyntax, "unterminated string literal at line 1, column 16"},
	}
	for _, tt := range tests {
		_, err := FromTest(tt.test, tt.fn)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("FromTest(%q, %q) error = %v, want %v containing %q", tt.test, tt.fn, err, tt.want, tt.msg)
		}
	}
}
