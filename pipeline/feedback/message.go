package feedback

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/capsulehq/capsule/pipeline/harness"
)

// harnessNote starts the harness's own lines on stderr.
const harnessNote = "capsule: "

// assertionNote starts the harness's line on the values of a failed assert.
const assertionNote = harnessNote + "assertion `"

// candidateRe matches the parameter HumanEval's check(candidate) calls.
var candidateRe = regexp.MustCompile(`\bcandidate\b`)

// Requests closing the messages.
const (
	askAllTests = "Fix the code so that all the tests pass."
	askLogic    = "Change the logic so that all the tests pass, not only this one."
)

// hints adds a sentence to the message of some exception types.
var hints = map[string]string{
	"SystemExit": "The code must return its result, not end the process.",
	"EOFError":   "The tests give no input: the code must take its data from its arguments, not from input().",
}

// kindOf returns the kind of feedback for an exception type.
func kindOf(shortType string) string {
	switch shortType {
	case "AssertionError":
		return KindAssertion
	case "NameError", "UnboundLocalError":
		return KindName
	case "RecursionError":
		return KindRecursion
	case "SyntaxError", "IndentationError", "TabError":
		return KindSyntax
	case "ImportError", "ModuleNotFoundError":
		return KindImport
	case "TypeError":
		return KindType
	case "ValueError", "JSONDecodeError", "UnicodeDecodeError", "UnicodeEncodeError":
		return KindValue
	case "IndexError":
		return KindIndex
	case "KeyError":
		return KindKey
	case "AttributeError":
		return KindAttribute
	case "ZeroDivisionError":
		return KindZeroDivision
	}
	return KindOther
}

// timeoutDraft says the code ran too long; the output of a killed run
// tells nothing more.
func timeoutDraft(in Input) draft {
	d := draft{kind: KindTimeout}
	d.add("Timeout: the code ran past " + limitText(in.Timeout, in.CPULimited) + " and was stopped.")
	d.add("This is likely an infinite loop (check that every loop moves towards its end) " +
		"or an algorithm too slow for the inputs of the tests.")
	return d
}

// tracebackDraft describes the last Python traceback of the output, or the
// output itself when it holds none.
func tracebackDraft(in Input) draft {
	stderr := splitLines(in.Stderr)
	e, ok := lastError(stderr)
	if !ok {
		e, ok = lastError(splitLines(in.Stdout))
	}
	if !ok {
		e, ok = bareError(stderr)
	}
	if !ok {
		return plainDraft(in)
	}
	rename := func(s string) string { return s }
	if in.Style == Function && in.EntryPoint != "" {
		rename = func(s string) string { return candidateRe.ReplaceAllLiteralString(s, in.EntryPoint) }
	}
	for i, f := range e.frames {
		if path.Base(f.file) == harness.TestsFile {
			for j, s := range f.src {
				e.frames[i].src[j] = rename(s)
			}
		}
	}
	switch kind := kindOf(e.shortType()); kind {
	case KindAssertion:
		return assertionDraft(e, rename(lastNote(stderr)))
	case KindName:
		return nameDraft(in, e)
	case KindRecursion:
		return recursionDraft()
	case KindSyntax:
		return syntaxDraft(e)
	default:
		return errorDraft(in, e, kind)
	}
}

// recursionDraft is a fixed message: the trace of a RecursionError is the
// same line a thousand times.
func recursionDraft() draft {
	d := draft{kind: KindRecursion}
	d.add("RecursionError: maximum recursion depth exceeded. The recursion never reaches " +
		"a base case, or goes too deep for the inputs of the tests: check the base cases, " +
		"or use a loop instead.")
	return d
}

// syntaxDraft shows where the code does not parse, carets included.
func syntaxDraft(e pyError) draft {
	d := draft{kind: KindSyntax}
	d.addCuttable(renderFrames(e.code()))
	d.add(e.head)
	d.addCuttable(strings.Join(e.detail, "\n"))
	d.add("The code is not valid Python 3: fix the syntax.")
	return d
}

// assertionDraft quotes the failing test, or shows the trace when an
// assert of the code itself failed.
func assertionDraft(e pyError, note string) draft {
	d := draft{kind: KindAssertion}
	code := e.code()
	if len(code) == 0 || !testFile(code[len(code)-1].file) {
		d.add("An assertion in the code failed:")
		d.addCuttable(traceText(code))
		d.add(e.head)
		d.addCuttable(strings.Join(e.detail, "\n"))
		d.add("Fix the code so that its assertions hold and all the tests pass.")
		return d
	}
	f := code[len(code)-1]
	d.add(fmt.Sprintf("A test failed at %s, line %d:", f.file, f.line))
	d.add(strings.Join(f.src, "\n"))
	if e.head != "AssertionError" {
		d.add(e.head) // the assertion's own message, or pytest's
	}
	d.addCuttable(strings.Join(e.detail, "\n"))
	if values := noteValues(note); values != "" {
		d.add("With the code's results it reads: " + values)
	}
	d.add(askLogic)
	return d
}

// noteValues returns the values part of the harness's note on a failed
// assert ("assertion `E` gave `V` (...)"), or "".
func noteValues(note string) string {
	_, rest, ok := strings.Cut(note, "` gave `")
	if !ok {
		return ""
	}
	values, _, ok := strings.Cut(rest, "` (re-evaluated")
	if !ok {
		return ""
	}
	return values
}

// lastNote returns the harness's note on the failed assertion, without
// its prefix, or "".
func lastNote(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], assertionNote) {
			return strings.TrimPrefix(lines[i], harnessNote)
		}
	}
	return ""
}

func nameDraft(in Input, e pyError) draft {
	d := draft{kind: KindName}
	d.add(e.head)
	if in.EntryPoint != "" && strings.Contains(e.head, "'"+in.EntryPoint+"'") {
		d.add(fmt.Sprintf("The tests call %s: define a function with exactly that name.", in.EntryPoint))
	} else {
		d.add("Use only names that exist: the names the task gives, Python's builtins, " +
			"and names the code defines or imports before it uses them.")
	}
	return d
}

// errorDraft is the message of the other exceptions: the type, the trace
// into the code and the exception.
func errorDraft(in Input, e pyError, kind string) draft {
	d := draft{kind: kind}
	d.add("The tests failed with " + e.shortType() + ":")
	d.addCuttable(traceText(e.code()))
	d.add(e.head)
	d.addCuttable(strings.Join(e.detail, "\n"))
	switch e.contextHow {
	case "direct cause":
		d.add("Its direct cause: " + e.context)
	case "during handling":
		d.add("It was raised while handling: " + e.context)
	}
	if kind == KindImport {
		if in.Style == Function {
			d.add("Only the Python standard library is available, and there is no network: do without that module.")
		} else {
			d.add("That module is not installed in the sandbox: use the standard library or what the project already depends on.")
		}
	}
	d.add(hints[e.shortType()])
	d.add(askAllTests)
	return d
}

// plainDraft describes output without a traceback.
func plainDraft(in Input) draft {
	out := strings.TrimSpace(in.output())
	if out == "" {
		d := draft{kind: KindNoOutput}
		d.add(fmt.Sprintf("The run ended with exit status %d and printed nothing.", in.ExitCode))
		if in.ExitCode != 0 {
			d.add(askAllTests)
		}
		return d
	}
	d := draft{kind: KindOther}
	d.add(fmt.Sprintf("The run ended with exit status %d, without a Python traceback. Its output:", in.ExitCode))
	d.addCuttable(out)
	d.add(askAllTests)
	return d
}

// traceText renders frames under Python's traceback header, or "".
func traceText(frames []frame) string {
	if len(frames) == 0 {
		return ""
	}
	return tbHeader + "\n" + renderFrames(frames)
}

// splitLines splits text into lines without their ends.
func splitLines(text string) []string {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}
