package dataset

import (
	"errors"
	"regexp"
	"strings"
)

// mbppVariant covers google-research MBPP: mbpp.jsonl (task text in "text",
// setup in "test_setup_code") and sanitized-mbpp.json ("prompt",
// "test_imports"). Its three asserts both debug and score.
var mbppVariant = variant{
	format: MBPP,
	name:   "MBPP",
	match: func(r record) bool {
		return hasAll(r, "task_id", "code", "test_list") && (r.has("text") || r.has("prompt"))
	},
	decode: decodeMBPP,
}

func decodeMBPP(r record) (Problem, error) {
	f := fields{r: r}
	p, tests := mbppProblem(&f)
	if f.err != nil {
		return Problem{}, f.err
	}
	entry, err := calledFunction(tests[0], p.Reference)
	if err != nil {
		return Problem{}, err
	}
	p.EntryPoint = entry
	p.DebugTests = Tests{Source: assertScript(mbppSetup(&f), tests)}
	p.EvalTests = p.DebugTests
	return p, nil
}

// mbppProblem reads the task id, text and code every MBPP-style record has,
// and returns its test list.
func mbppProblem(f *fields) (Problem, []string) {
	p := Problem{TaskID: f.id("task_id")}
	if f.r.has("text") {
		p.Prompt = f.str("text")
	} else {
		p.Prompt = f.str("prompt")
	}
	p.Reference = f.str("code")
	return p, f.strs("test_list")
}

// mbppSetup returns the code the tests need first: test_imports (sanitized)
// and test_setup_code (full MBPP).
func mbppSetup(f *fields) string {
	parts := f.optStrs("test_imports")
	if s := f.optStr("test_setup_code"); strings.TrimSpace(s) != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, "\n")
}

// callRE finds calls: a name followed by "(".
var callRE = regexp.MustCompile(`[A-Za-z_]\w*\s*\(`)

// notEntryPoints are names a test calls that cannot be the task's function.
var notEntryPoints = map[string]bool{
	"assert": true, "not": true, "and": true, "or": true, "in": true, "is": true,
	"if": true, "else": true, "lambda": true, "abs": true, "all": true, "any": true,
	"bool": true, "dict": true, "enumerate": true, "float": true, "frozenset": true,
	"int": true, "isinstance": true, "len": true, "list": true, "map": true,
	"max": true, "min": true, "print": true, "range": true, "repr": true,
	"reversed": true, "round": true, "set": true, "sorted": true, "str": true,
	"sum": true, "tuple": true, "type": true, "zip": true, "complex": true,
}

// calledFunction returns the function a test calls: the first called name
// that code defines (even one shadowing a builtin, such as sum), else the
// first that is not a builtin.
func calledFunction(test, code string) (string, error) {
	var fallback string
	for _, m := range callRE.FindAllStringIndex(test, -1) {
		name := strings.TrimRight(test[m[0]:m[1]-1], " \t")
		switch {
		case m[0] > 0 && test[m[0]-1] == '.':
			// A method call.
		case defines(code, name):
			return name, nil
		case fallback == "" && !notEntryPoints[name]:
			fallback = name
		}
	}
	if fallback == "" {
		return "", errors.New("no function call in the first test")
	}
	return fallback, nil
}

// defines reports whether code has a top-level def or class of that name.
func defines(code, name string) bool {
	re := regexp.MustCompile(`(?m)^(?:async\s+)?(?:def|class)\s+` + regexp.QuoteMeta(name) + `\b`)
	return re.MatchString(code)
}
