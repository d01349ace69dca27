package dataset

import (
	"errors"
	"fmt"
	"strings"
)

// mbppOriginalTests is how many of an MBPP-ET task's asserts are MBPP's own:
// the extended lists start with them.
const mbppOriginalTests = 3

// mbppETOriginalVariant is CodeScore's MBPP_ET.jsonl, kept verbatim in the
// TeamCoder subset: MBPP's fields, test_list extended to ~100 asserts.
var mbppETOriginalVariant = variant{
	format: MBPPET,
	name:   "MBPP-ET",
	match: func(r record) bool {
		return hasAll(r, "task_id", "code", "test_list") && (r.has("text") || r.has("prompt")) && r.has("entry_point")
	},
	decode: decodeMBPPETOriginal,
	broken: brokenMBPPET,
}

func decodeMBPPETOriginal(r record) (Problem, error) {
	f := fields{r: r}
	p, tests := mbppProblem(&f)
	p.EntryPoint = f.ident("entry_point")
	setup := mbppSetup(&f)
	if f.err != nil {
		return Problem{}, f.err
	}
	p.DebugTests = Tests{Source: assertScript(setup, tests[:min(mbppOriginalTests, len(tests))])}
	p.EvalTests = Tests{Source: assertScript(setup, tests)}
	return p, nil
}

// mbppETChatDevVariant is the ChatDev fork's MBPP_ET.jsonl: the 427
// sanitized-MBPP tasks in HumanEval style, a check(candidate) of extended
// asserts, the signature appended to the prompt, and no reference code. Task
// IDs are MBPP's (ori_task_id), not the file's renumbering.
var mbppETChatDevVariant = variant{
	format: MBPPET,
	name:   "MBPP-ET (ChatDev)",
	match:  func(r record) bool { return hasAll(r, "ori_task_id", "prompt", "entry_point", "test") },
	decode: decodeMBPPETChatDev,
	broken: brokenMBPPETChatDev,
}

// signatureLine introduces the signature the ChatDev fork appends to prompts.
const signatureLine = "The function signature is:"

func decodeMBPPETChatDev(r record) (Problem, error) {
	f := fields{r: r}
	p := Problem{TaskID: f.id("ori_task_id"), EntryPoint: f.ident("entry_point")}
	prompt, test := f.str("prompt"), f.str("test")
	if f.err != nil {
		return Problem{}, f.err
	}
	p.Prompt, p.Signature = splitSignature(prompt)
	header, asserts, err := checkAsserts(test)
	if err != nil {
		return Problem{}, fmt.Errorf("field \"test\": %w", err)
	}
	debug := header + "\n" + strings.Join(asserts[:min(mbppOriginalTests, len(asserts))], "\n") + "\n"
	p.DebugTests = checkTests(debug, p.EntryPoint)
	p.EvalTests = checkTests(test, p.EntryPoint)
	return p, nil
}

// splitSignature separates the task text from an appended "The function
// signature is: f(a, b)" line, returned as "def f(a, b):".
func splitSignature(prompt string) (text, sig string) {
	i := strings.LastIndex(prompt, signatureLine)
	if i < 0 {
		return strings.TrimSpace(prompt), ""
	}
	sig = strings.TrimSpace(prompt[i+len(signatureLine):])
	if sig != "" {
		sig = "def " + strings.TrimSuffix(sig, ":") + ":"
	}
	return strings.TrimSpace(prompt[:i]), sig
}

// checkAsserts splits a "def check(candidate):" made of one assert per line
// into its header and assert lines (indentation kept).
func checkAsserts(test string) (header string, asserts []string, err error) {
	const def = "def check(candidate):"
	i := strings.Index(test, def)
	if i < 0 {
		return "", nil, errors.New("no def check(candidate)")
	}
	for _, line := range strings.Split(test[i+len(def):], "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
		case strings.HasPrefix(trimmed, "assert"):
			asserts = append(asserts, strings.TrimRight(line, " \t\r"))
		default:
			return "", nil, fmt.Errorf("check() has a statement that is not a one-line assert: %q", trimmed)
		}
	}
	if len(asserts) == 0 {
		return "", nil, errors.New("check() has no asserts")
	}
	return test[:i+len(def)], asserts, nil
}
