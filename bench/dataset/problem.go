package dataset

import "fmt"

// Problem is one benchmark task.
type Problem struct {
	// TaskID identifies the task within its dataset, as the file spells it
	// (numbers are written in decimal).
	TaskID string
	// Prompt is the task text shown to the model: a code stub with a docstring
	// for HumanEval, the natural-language description for MBPP.
	Prompt string
	// EntryPoint is the name of the function the tests call.
	EntryPoint string
	// Signature is the function header ("def f(a, b):") when the dataset gives
	// one, and empty otherwise (MBPP).
	Signature string
	// DebugTests are the tests the self-debugging loop runs and sees.
	DebugTests Tests
	// EvalTests are the tests that decide pass@1.
	EvalTests Tests
	// Reference is a complete, runnable reference solution; empty when the
	// file has none.
	Reference string
	// Broken is a non-empty reason when the upstream eval tests are unsound:
	// the reference solution fails them.
	Broken string
	// Prompts holds the prompt of each split of a dataset that has several
	// (BigCodeBench: "instruct", the default that Prompt holds, and
	// "complete"); nil for the others. See Set.Split.
	Prompts map[string]string
	// Libraries are the modules the reference solution imports, as the
	// dataset lists them (BigCodeBench's libs); nil when it lists none.
	Libraries []string
	// CheckEnvironment means the tests depend on what the sandbox image
	// holds (libraries, data, network): a benchmark runs the reference
	// solution first, and a problem whose reference fails there is an
	// environment failure, not the model's.
	CheckEnvironment bool
}

// Tests is a Python test program that is appended to the candidate code.
type Tests struct {
	// Source is the Python code. Empty means the file has no such tests.
	Source string
	// EntryPoint, when non-empty, means Source only defines check(candidate);
	// the runner must append "check(<EntryPoint>)" to run it.
	EntryPoint string
}

// Program returns the Python program that runs the tests against code: code,
// then Source, then the check call when EntryPoint is set.
func (t Tests) Program(code string) string {
	prog := code + "\n\n" + t.Source + "\n"
	if t.EntryPoint != "" {
		prog += "\ncheck(" + t.EntryPoint + ")\n"
	}
	return prog
}

// Set is the content of one benchmark file.
type Set struct {
	// Problems holds the valid records in file order.
	Problems []Problem
	// Errors holds the records that could not be used.
	Errors []LineError
}

// TakeReferences gives each problem of s that has no reference solution
// the one of the problem with the same task id in from (MBPP-ET's files
// carry none; MBPP's have them). It changes s's problems in place.
func (s Set) TakeReferences(from Set) {
	byID := make(map[string]string, len(from.Problems))
	for _, p := range from.Problems {
		byID[p.TaskID] = p.Reference
	}
	for i, p := range s.Problems {
		if p.Reference == "" {
			s.Problems[i].Reference = byID[p.TaskID]
		}
	}
}

// LineError reports a record that was skipped.
type LineError struct {
	// Line is the 1-based line number in a JSON Lines file, or the 1-based
	// element index in a JSON array file.
	Line int
	// Err says what is wrong with the record.
	Err error
}

// Error implements error.
func (e LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the underlying error.
func (e LineError) Unwrap() error { return e.Err }
