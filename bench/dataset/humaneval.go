package dataset

import "strings"

// humanEvalVariant is openai/human-eval's HumanEval.jsonl: one check(candidate)
// test that both debugs and scores.
var humanEvalVariant = variant{
	format: HumanEval,
	name:   "HumanEval",
	match:  func(r record) bool { return hasAll(r, "prompt", "canonical_solution", "test", "entry_point") },
	decode: decodeHumanEval,
}

// humanEvalETVariant is CodeScore's HumanEval-ET: HumanEval's tests debug,
// the extended asserts in test_case_list score.
var humanEvalETVariant = variant{
	format: HumanEvalET,
	name:   "HumanEval-ET",
	match:  func(r record) bool { return hasAll(r, "prompt", "entry_point", "test", "test_case_list") },
	decode: decodeHumanEvalET,
	broken: brokenHumanEvalET,
}

func decodeHumanEval(r record) (Problem, error) {
	f := fields{r: r}
	p := humanEvalProblem(&f)
	test := f.str("test")
	if f.err != nil {
		return Problem{}, f.err
	}
	p.DebugTests = checkTests(withoutNumpy(test), p.EntryPoint)
	p.EvalTests = p.DebugTests
	return p, nil
}

func decodeHumanEvalET(r record) (Problem, error) {
	p, err := decodeHumanEval(r)
	if err != nil {
		return Problem{}, err
	}
	f := fields{r: r}
	cases := f.strs("test_case_list")
	if f.err != nil {
		return Problem{}, f.err
	}
	p.EvalTests = Tests{Source: assertScript("", cases)}
	return p, nil
}

// checkTests returns tests whose source defines check(candidate). Such a
// test cannot reach a function that is itself named check (its own check
// replaces it), so then the test function is renamed and called in the source.
func checkTests(source, entry string) Tests {
	const def = "def check(candidate):"
	if entry != "check" || !strings.Contains(source, def) {
		return Tests{Source: source, EntryPoint: entry}
	}
	renamed := strings.Replace(source, def, "def _capsule_check(candidate):", 1)
	return Tests{Source: renamed + "\n\n_capsule_check(check)\n"}
}

// humanEvalProblem reads the fields every HumanEval-style record has.
func humanEvalProblem(f *fields) Problem {
	p := Problem{
		TaskID:     f.id("task_id"),
		Prompt:     f.str("prompt"),
		EntryPoint: f.ident("entry_point"),
	}
	p.Reference = p.Prompt + f.str("canonical_solution")
	p.Signature = signature(p.Prompt, p.EntryPoint)
	return p
}

// signature returns the header of the top-level "def name(...)" in src, from
// "def" to the colon that ends it, or "" when src has none.
func signature(src, name string) string {
	start := -1
	for _, prefix := range []string{"def ", "async def "} {
		head := prefix + name + "("
		if strings.HasPrefix(src, head) {
			start = 0
		} else if i := strings.Index(src, "\n"+head); i >= 0 {
			start = i + 1
		}
		if start >= 0 {
			break
		}
	}
	if start < 0 {
		return ""
	}
	depth := 0
	for i := start; i < len(src); i++ {
		switch src[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ':':
			if depth == 0 {
				return src[start : i+1]
			}
		}
	}
	return ""
}

// assertScript joins setup code and one test statement per entry into a
// script.
func assertScript(setup string, tests []string) string {
	var b strings.Builder
	if s := strings.TrimSpace(setup); s != "" {
		b.WriteString(s)
		b.WriteString("\n\n")
	}
	for _, t := range tests {
		b.WriteString(strings.TrimSpace(t))
		b.WriteString("\n")
	}
	return b.String()
}
