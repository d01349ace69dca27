package dataset

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The splits of BigCodeBench: the paper (and PyCapsule) use instruct.
const (
	SplitInstruct = "instruct"
	SplitComplete = "complete"
)

//go:embed unittest_runner.py
var unittestRunner string

// bigCodeBenchVariant is BigCodeBench (bigcode-project): each task's tests
// are a unittest.TestCase class named TestCases. The loop debugs against
// its first test method (in source order); all of them score.
var bigCodeBenchVariant = variant{
	format: BigCodeBench,
	name:   "BigCodeBench",
	match: func(r record) bool {
		return hasAll(r, "task_id", "instruct_prompt", "complete_prompt", "canonical_solution", "code_prompt", "test", "entry_point")
	},
	decode: decodeBigCodeBench,
}

func decodeBigCodeBench(r record) (Problem, error) {
	f := fields{r: r}
	p := Problem{
		TaskID:     f.id("task_id"),
		Prompt:     f.str("instruct_prompt"),
		EntryPoint: f.ident("entry_point"),
	}
	complete := f.str("complete_prompt")
	solution := f.str("canonical_solution")
	codePrompt := f.str("code_prompt")
	test := f.str("test")
	libs := f.optStr("libs")
	if f.err != nil {
		return Problem{}, f.err
	}
	if !strings.Contains(test, "class TestCases(") {
		return Problem{}, errors.New("field \"test\": no class TestCases")
	}
	var err error
	if p.Libraries, err = pythonStrings(libs); err != nil {
		return Problem{}, fmt.Errorf("field \"libs\": %w", err)
	}
	p.Prompts = map[string]string{SplitInstruct: p.Prompt, SplitComplete: complete}
	p.Signature = signature(codePrompt, p.EntryPoint)
	p.Reference = complete + solution
	p.DebugTests = Tests{Source: unittestProgram(test, true)}
	p.EvalTests = Tests{Source: unittestProgram(test, false)}
	p.CheckEnvironment = true
	return p, nil
}

// unittestProgram appends to a TestCases class the code that runs it:
// only its first test method when firstOnly, else all of them. A failure
// prints unittest's report and raises CapsuleTestsFailed.
func unittestProgram(test string, firstOnly bool) string {
	flag := "False"
	if firstOnly {
		flag = "True"
	}
	return strings.TrimRight(test, "\n") + "\n" + strings.Replace(unittestRunner, "FIRST_ONLY", flag, 1)
}

// pythonStrings reads a Python list of string literals such as
// "['os', 're']", as BigCodeBench writes its libs field; "" is no list.
func pythonStrings(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("want a Python list of strings, got %q", s)
	}
	var out []string
	for _, item := range strings.Split(s[1:len(s)-1], ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if len(item) < 2 || (item[0] != '\'' && item[0] != '"') || item[len(item)-1] != item[0] {
			return nil, fmt.Errorf("want a Python list of strings, got %q", s)
		}
		out = append(out, item[1:len(item)-1])
	}
	return out, nil
}

// Split returns the set with every problem's Prompt taken from the named
// split. The empty name keeps the default prompts. A set whose problems
// have no such split is an error naming the ones they have.
func (s Set) Split(name string) (Set, error) {
	if name == "" {
		return s, nil
	}
	out := Set{Problems: slices.Clone(s.Problems), Errors: s.Errors}
	for i, p := range out.Problems {
		prompt, ok := p.Prompts[name]
		if !ok {
			var have []string
			for k := range p.Prompts {
				have = append(have, k)
			}
			slices.Sort(have)
			if len(have) == 0 {
				return Set{}, fmt.Errorf("split %q: this dataset has no splits", name)
			}
			return Set{}, fmt.Errorf("split %q: %s has the splits %s", name, p.TaskID, strings.Join(have, ", "))
		}
		out.Problems[i].Prompt = prompt
	}
	return out, nil
}
