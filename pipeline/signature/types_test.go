package signature

import "testing"

func TestTypeOf(t *testing.T) {
	tests := []struct {
		expr, name, hint string
	}{
		{"1", "int", "int"},
		{"-1.5", "float", "float"},
		{"2j", "complex", "complex"},
		{"'s'", "str", "str"},
		{"b's'", "bytes", "bytes"},
		{"True", "bool", "bool"},
		{"None", "None", "None"},
		{"[]", "list", "list"},
		{"[1, 2]", "list_int", "list[int]"},
		{"[1, 2.5]", "list_float", "list[float]"},
		{"[1, 'a']", "list_any", "list"},
		{"[True, 1]", "list_any", "list"},
		{"[[1, 2], [3]]", "list_list_int", "list[list[int]]"},
		{"[[1, 2], []]", "list_list_int", "list[list[int]]"},
		{"[[], []]", "list_list", "list[list]"},
		{"[['a'], [1]]", "list_list_any", "list[list]"},
		{"()", "tuple", "tuple"},
		{"(1,)", "tuple_int", "tuple[int, ...]"},
		{"(1, 2, 3)", "tuple_int", "tuple[int, ...]"},
		{"(1, 'a')", "tuple_int_str", "tuple[int, str]"},
		{"(1, 'a', [2])", "tuple_int_str_list_int", "tuple[int, str, list[int]]"},
		{"((1, 2), (3, 4))", "tuple_tuple_int", "tuple[tuple[int, ...], ...]"},
		{"[(1, 'a'), (2, 'b')]", "list_tuple_int_str", "list[tuple[int, str]]"},
		{"[(1, 'a'), (2.5, 'b')]", "list_tuple_float_str", "list[tuple[float, str]]"},
		{"[(1, 'a'), ('b', 2)]", "list_tuple_any", "list[tuple]"},
		{"[(1, 2), (3, 4, 5)]", "list_tuple_int", "list[tuple[int, ...]]"},
		{"[(1, 'a'), (2, 'b', 'c')]", "list_tuple_any", "list[tuple]"},
		{"[(), (1,)]", "list_tuple_int", "list[tuple[int, ...]]"},
		{"{}", "dict", "dict"},
		{"{'a': 1}", "dict_str_int", "dict[str, int]"},
		{"{'a': 1, 'b': 'x'}", "dict_str_any", "dict"},
		{"{1: [1], 2: []}", "dict_int_list_int", "dict[int, list[int]]"},
		{"[{}, {'a': 1}]", "list_dict_str_int", "list[dict[str, int]]"},
		{"{1, 2}", "set_int", "set[int]"},
		{"set()", "set", "set"},
		{"[x, y]", "list_any", "list"},
		{"[x for x in range(3)]", "list_any", "list"},
		{"(x, 1)", "tuple_any_int", "tuple"},
		{"(x, y)", "tuple_any", "tuple"},
	}
	for _, tt := range tests {
		src, err := parseSource(tt.expr)
		if err != nil {
			t.Fatalf("parseSource(%q): %v", tt.expr, err)
		}
		typ := src.typeOf(0, len(src.toks))
		if typ.Name() != tt.name || typ.Hint() != tt.hint {
			t.Errorf("type of %s = %s, %q; want %s, %q", tt.expr, typ.Name(), typ.Hint(), tt.name, tt.hint)
		}
		if !typ.Known() {
			t.Errorf("type of %s is unknown", tt.expr)
		}
	}
}

func TestUnknownType(t *testing.T) {
	for _, v := range []any{opaque("x"), struct{}{}, 3} { // 3 is an int, not an int64
		typ := TypeOf(v)
		if typ.Known() || typ.Name() != "any" || typ.Hint() != "" || typ.String() != "any" {
			t.Errorf("TypeOf(%#v) = %s (known %v, hint %q), want unknown", v, typ, typ.Known(), typ.Hint())
		}
	}
}
