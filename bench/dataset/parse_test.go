package dataset

import (
	"reflect"
	"strings"
	"testing"
)

func TestReplaceNonFinite(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{in: `[Infinity, -Infinity, 1]`, want: `[1e999, -1e999, 1]`},
		{in: `{"s": "Infinity -Infinity \"Infinity", "n": [-Infinity]}`, want: `{"s": "Infinity -Infinity \"Infinity", "n": [-1e999]}`},
		{in: `[true, false, null, -1.5e-3]`, want: `[true, false, null, -1.5e-3]`},
		{in: `[NaN]`, wantErr: true},
		{in: `["NaN", Infinityx]`, want: `["NaN", Infinityx]`},
	}
	for _, tt := range tests {
		got, err := replaceNonFinite([]byte(tt.in))
		if (err != nil) != tt.wantErr || string(got) != tt.want {
			t.Errorf("replaceNonFinite(%s) = %s, %v; want %s, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestCalledFunction(t *testing.T) {
	tests := []struct {
		test, code, want string
	}{
		{"assert min_cost([[1, 2]], 2, 2) == 8", "def min_cost(cost, m, n):", "min_cost"},
		{"assert set(similar_elements((3, 4),(5, 4))) == set((4,))", "def similar_elements(a, b):", "similar_elements"},
		{"assert math.isclose(area(2), 12.5, rel_tol=0.001)", "import math\ndef area(r):", "area"},
		{"assert max_chain_length([Pair(5, 24), Pair(15, 25)], 2) == 3", "class Pair(object):\ndef max_chain_length(arr, n):", "max_chain_length"},
		{"assert helper(x) == f (1)", "def f(a):", "f"},
		{"assert undefined_in_code(1) == 2", "def other():", "undefined_in_code"},
		{"assert sorted(s.split()) == ['a']", "", ""},
		{"assert sum(10,15) == 6", "def sum(a,b): \n    return a + b", "sum"},
	}
	for _, tt := range tests {
		got, err := calledFunction(tt.test, tt.code)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("calledFunction(%q) = %q, %v; want %q", tt.test, got, err, tt.want)
		}
	}
}

func TestSignature(t *testing.T) {
	tests := []struct {
		src, name, want string
	}{
		{"def f(a: int) -> int:\n    pass\n", "f", "def f(a: int) -> int:"},
		{"import x\n\n\ndef g(\n    a,\n    b: Dict[str, int] = {'k': 1},\n) -> Tuple[int, int]:\n", "g", "def g(\n    a,\n    b: Dict[str, int] = {'k': 1},\n) -> Tuple[int, int]:"},
		{"def helper(x):\n    pass\n\n\ndef f(x):\n", "f", "def f(x):"},
		{"def ff(x):\n", "f", ""},
		{"class A:\n    def f(self):\n", "f", ""},
	}
	for _, tt := range tests {
		if got := signature(tt.src, tt.name); got != tt.want {
			t.Errorf("signature(%q, %q) = %q, want %q", tt.src, tt.name, got, tt.want)
		}
	}
}

func TestSplitSignature(t *testing.T) {
	tests := []struct {
		in, text, sig string
	}{
		{"Find x.\nThe function signature is: solution (a, b, n)\n", "Find x.", "def solution (a, b, n):"},
		{"Find x.\n", "Find x.", ""},
	}
	for _, tt := range tests {
		text, sig := splitSignature(tt.in)
		if text != tt.text || sig != tt.sig {
			t.Errorf("splitSignature(%q) = %q, %q; want %q, %q", tt.in, text, sig, tt.text, tt.sig)
		}
	}
}

func TestCheckAsserts(t *testing.T) {
	header, asserts, err := checkAsserts("\ndef check(candidate):\n    assert candidate(1) == 2\n\n    assert candidate (2)==3  \n")
	if err != nil || header != "\ndef check(candidate):" || !reflect.DeepEqual(asserts, []string{"    assert candidate(1) == 2", "    assert candidate (2)==3"}) {
		t.Errorf("checkAsserts = %q, %q, %v", header, asserts, err)
	}
	for _, bad := range []string{"assert f(1)", "def check(candidate):\n    x = 1\n    assert x", "def check(candidate):\n    pass"} {
		if _, _, err := checkAsserts(bad); err == nil {
			t.Errorf("checkAsserts(%q) succeeded, want an error", bad)
		}
	}
}

func TestPickVariant(t *testing.T) {
	rec := func(keys ...string) record {
		r := record{}
		for _, k := range keys {
			r[k] = []byte(`"x"`)
		}
		return r
	}
	humanEval := rec("task_id", "prompt", "entry_point", "canonical_solution", "test")
	mbpp := rec("task_id", "text", "code", "test_list", "test_setup_code", "challenge_test_list")
	tests := []struct {
		name    string
		format  Format
		file    string
		r       record
		want    *variant
		wantErr string
	}{
		{"humaneval", Auto, "HumanEval.jsonl.gz", humanEval, &humanEvalVariant, ""},
		{"humaneval+ originfmt by name", Auto, "HumanEvalPlus-OriginFmt.jsonl.gz", humanEval, &humanEvalPlusOriginVariant, ""},
		{"humaneval+ originfmt by format", EvalPlus, "he.jsonl", humanEval, &humanEvalPlusOriginVariant, ""},
		{"humaneval-et", Auto, "x.jsonl", rec("task_id", "prompt", "entry_point", "canonical_solution", "test", "test_case_list"), &humanEvalETVariant, ""},
		{"humaneval-et read as humaneval", HumanEval, "x.jsonl", rec("task_id", "prompt", "entry_point", "canonical_solution", "test", "test_case_list"), &humanEvalVariant, ""},
		{"mbpp", Auto, "mbpp.jsonl", mbpp, &mbppVariant, ""},
		{"sanitized mbpp", Auto, "sanitized-mbpp.json", rec("task_id", "prompt", "code", "test_list", "test_imports", "source_file"), &mbppVariant, ""},
		{"mbpp-et", Auto, "MBPP_ET.jsonl", rec("task_id", "text", "code", "test_list", "test_setup_code", "entry_point"), &mbppETOriginalVariant, ""},
		{"mbpp-et chatdev", Auto, "MBPP_ET.jsonl", rec("task_id", "ori_task_id", "prompt", "entry_point", "test"), &mbppETChatDevVariant, ""},
		{"humaneval+", Auto, "x.jsonl", rec("task_id", "prompt", "entry_point", "canonical_solution", "test", "base_input", "plus_input", "atol", "contract"), &humanEvalPlusVariant, ""},
		{"mbpp+", Auto, "x.jsonl", rec("task_id", "prompt", "entry_point", "canonical_solution", "assertion", "base_input", "plus_input", "atol"), &mbppPlusVariant, ""},
		{"mbpp+ originfmt", Auto, "x.jsonl", rec("task_id", "prompt", "code", "test_list", "test", "test_imports"), &mbppPlusOriginVariant, ""},
		{"mismatch", MBPP, "HumanEval.jsonl", humanEval, nil, "does not look like mbpp"},
		{"unknown", Auto, "x.jsonl", rec("question"), nil, "cannot detect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pickVariant(tt.format, tt.file, tt.r)
			if got != tt.want {
				name := "<nil>"
				if got != nil {
					name = got.name
				}
				t.Errorf("pickVariant = %s, want %v", name, tt.want)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestFilter(t *testing.T) {
	set := Set{
		Problems: []Problem{{TaskID: "a"}, {TaskID: "b"}, {TaskID: "c"}, {TaskID: "d"}},
		Errors:   []LineError{{Line: 9}},
	}
	tests := []struct {
		name    string
		limit   int
		ids     []string
		want    []string
		wantErr string
	}{
		{name: "all", want: []string{"a", "b", "c", "d"}},
		{name: "limit", limit: 2, want: []string{"a", "b"}},
		{name: "limit above size", limit: 10, want: []string{"a", "b", "c", "d"}},
		{name: "ids in file order", ids: []string{"d", "b", "d"}, want: []string{"b", "d"}},
		{name: "ids then limit", limit: 1, ids: []string{"c", "b"}, want: []string{"b"}},
		{name: "unknown ids", ids: []string{"x", "a", "y"}, wantErr: "unknown task ids: x, y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := set.Filter(tt.limit, tt.ids)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Filter error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, p := range got.Problems {
				ids = append(ids, p.TaskID)
			}
			if !reflect.DeepEqual(ids, tt.want) || len(got.Errors) != 1 {
				t.Errorf("Filter = %q with %d errors, want %q with 1", ids, len(got.Errors), tt.want)
			}
		})
	}
}

func TestCheckTests(t *testing.T) {
	const src = "def check(candidate):\n    assert candidate(1)\n"
	tests := []struct {
		entry string
		want  Tests
	}{
		{"f", Tests{Source: src, EntryPoint: "f"}},
		{"check", Tests{Source: "def _capsule_check(candidate):\n    assert candidate(1)\n\n\n_capsule_check(check)\n"}},
	}
	for _, tt := range tests {
		if got := checkTests(src, tt.entry); got != tt.want {
			t.Errorf("checkTests(%q) = %+v, want %+v", tt.entry, got, tt.want)
		}
	}
}

func TestProgram(t *testing.T) {
	tests := []struct {
		tests Tests
		want  string
	}{
		{Tests{Source: "assert f() == 1\n"}, "def f(): return 1\n\nassert f() == 1\n\n"},
		{Tests{Source: "def check(candidate):\n    assert candidate() == 1\n", EntryPoint: "f"},
			"def f(): return 1\n\ndef check(candidate):\n    assert candidate() == 1\n\n\ncheck(f)\n"},
	}
	for _, tt := range tests {
		if got := tt.tests.Program("def f(): return 1"); got != tt.want {
			t.Errorf("Program = %q, want %q", got, tt.want)
		}
	}
}
