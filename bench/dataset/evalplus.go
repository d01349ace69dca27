package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// EvalPlus ships HumanEval+ and MBPP+ in two layouts: base_input/plus_input
// (HumanEvalPlus, -Mini, -NoExtreme, MbppPlus, -NoExtreme), which its own
// harness compares against the canonical solution, and OriginFmt, which
// embeds the inputs and expected results in an assert-style test that
// imports numpy.

// humanEvalPlusVariant: debug on the base inputs, score on base and plus
// inputs, each through a generated harness (harness.py).
var humanEvalPlusVariant = variant{
	format: EvalPlus,
	name:   "HumanEval+",
	match: func(r record) bool {
		return hasAll(r, "prompt", "canonical_solution", "entry_point", "base_input", "plus_input") && !r.has("assertion")
	},
	decode: decodeHumanEvalPlus,
}

// polyRootTasks accept any root of the polynomial, not just the reference's.
var polyRootTasks = map[string]bool{"HumanEval/32": true}

func decodeHumanEvalPlus(r record) (Problem, error) {
	f := fields{r: r}
	p := humanEvalProblem(&f)
	base, plus := f.raw("base_input"), f.raw("plus_input")
	atol := f.num("atol")
	if f.err != nil {
		return Problem{}, f.err
	}
	for _, in := range []struct {
		name string
		v    json.RawMessage
	}{{"base_input", base}, {"plus_input", plus}} {
		if !bytes.HasPrefix(bytes.TrimSpace(in.v), []byte("[")) {
			return Problem{}, fmt.Errorf("field %q: want a list of argument lists", in.name)
		}
	}
	h := harness{
		EntryPoint: p.EntryPoint,
		Reference:  p.Reference,
		Inputs:     []string{string(base)},
		Atol:       atol,
		PolyRoot:   polyRootTasks[p.TaskID],
	}
	debug, err := h.source()
	if err != nil {
		return Problem{}, err
	}
	h.Inputs = append(h.Inputs, string(plus))
	eval, err := h.source()
	if err != nil {
		return Problem{}, err
	}
	p.DebugTests = checkTests(debug, p.EntryPoint)
	p.EvalTests = checkTests(eval, p.EntryPoint)
	return p, nil
}

// mbppPlusVariant: the MBPP+ base asserts debug. The plus inputs cannot be
// scored from this file: JSON turned the tuples, sets and complex numbers
// many tasks take into lists, and EvalPlus restores them with per-task code.
var mbppPlusVariant = variant{
	format: EvalPlus,
	name:   "MBPP+",
	match: func(r record) bool {
		return hasAll(r, "prompt", "canonical_solution", "entry_point", "base_input", "plus_input", "assertion")
	},
	decode: decodeMBPPPlus,
	unsupported: "its plus inputs lost their Python types (tuples, sets, complex) in JSON; " +
		"use MbppPlus-OriginFmt.jsonl.gz, which keeps them",
}

func decodeMBPPPlus(r record) (Problem, error) {
	f := fields{r: r}
	p := Problem{
		TaskID:     f.id("task_id"),
		Prompt:     f.str("prompt"),
		EntryPoint: f.ident("entry_point"),
		Reference:  f.str("canonical_solution"),
	}
	asserts := f.str("assertion")
	if f.err != nil {
		return Problem{}, f.err
	}
	// Unlike MbppPlus-OriginFmt, this layout drops sanitized MBPP's
	// test_imports, which are only ever "import math".
	setup := ""
	if strings.Contains(asserts, "math.") {
		setup = "import math"
	}
	p.DebugTests = Tests{Source: assertScript(setup, []string{asserts})}
	return p, nil
}

// mbppPlusOriginVariant: sanitized MBPP's three asserts debug; the OriginFmt
// test (all inputs with expected results) scores.
var mbppPlusOriginVariant = variant{
	format: EvalPlus,
	name:   "MBPP+ (OriginFmt)",
	match:  func(r record) bool { return hasAll(r, "task_id", "prompt", "code", "test_list", "test") },
	decode: decodeMBPPPlusOrigin,
}

func decodeMBPPPlusOrigin(r record) (Problem, error) {
	p, err := decodeMBPP(r)
	if err != nil {
		return Problem{}, err
	}
	f := fields{r: r}
	test := f.str("test")
	if f.err != nil {
		return Problem{}, f.err
	}
	p.EvalTests = Tests{Source: withoutNumpy(test)}
	return p, nil
}

// humanEvalPlusOriginVariant has HumanEval's fields, with all base and plus
// inputs in one check(); the base tests to debug against are not separable.
var humanEvalPlusOriginVariant = variant{
	format:   EvalPlus,
	name:     "HumanEval+ (OriginFmt)",
	match:    humanEvalVariant.match,
	plusName: true,
	decode:   decodeHumanEvalPlusOrigin,
	broken:   brokenHumanEvalPlusOrigin,
	unsupported: "it has no base tests to debug against, only one test with base and plus inputs together; " +
		"use HumanEvalPlus.jsonl.gz (or format humaneval to debug and score on that one test)",
}

func decodeHumanEvalPlusOrigin(r record) (Problem, error) {
	p, err := decodeHumanEval(r)
	if err != nil {
		return Problem{}, err
	}
	p.DebugTests = Tests{}
	return p, nil
}
