// Package dataset loads the function-level benchmarks that Capsule reruns from
// the PyCapsule paper: HumanEval, HumanEval-ET, MBPP, MBPP-ET, EvalPlus
// (HumanEval+ and MBPP+) and BigCodeBench.
//
// Every file layout becomes the same [Problem]: the text shown to the model,
// the tests the self-debugging loop debugs against ([Problem.DebugTests]) and
// the tests that score pass@1 ([Problem.EvalTests]). All tests are plain
// Python for python3 and its standard library, except BigCodeBench's, which
// need its libraries (see [Problem.CheckEnvironment]):
//
//	layout                          debug tests                  eval tests
//	HumanEval                       test: check(candidate)       same
//	HumanEval-ET                    HumanEval's test             test_case_list asserts
//	MBPP (jsonl, sanitized json)    test_list asserts + setup    same
//	MBPP-ET (CodeScore original)    first 3 asserts (MBPP's)     all ~100 asserts
//	MBPP-ET (ChatDev fork)          check() with first 3 asserts the whole check()
//	HumanEval+ (base/plus inputs)   base inputs vs canonical     base + plus inputs vs canonical
//	MBPP+ OriginFmt                 test_list asserts            test, numpy made optional
//	MBPP+ (base/plus inputs)        assertion asserts            unsupported (ErrEvalUnsupported)
//	HumanEval+ OriginFmt            unsupported                  test, numpy made optional
//	BigCodeBench                    first test method, unittest  all of TestCases, unittest
//
// For HumanEval+ Capsule generates the test: it calls the entry point on each
// input and compares the result with the canonical solution's as EvalPlus
// does (exact, or within atol for floats, any root for HumanEval/32).
//
// Known-unsound upstream tests are kept but marked with [Problem.Broken], so a
// benchmark can report them apart instead of counting them as failures of
// the model.
package dataset
