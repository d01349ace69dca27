// Package feedback is the error handler of the loop: it turns the raw
// output of a failed test run into a short, typed message for the
// programmer agent.
//
// [Refine] keeps only the frames of a traceback that point into the code
// under test, and shapes the message by the kind of failure: the failing
// test for an assertion, the last line for a NameError, a fixed message for
// a RecursionError or a timeout, the first failure of each kind for pytest
// and unittest. [Raw] is the unrefined output, for the paper's ablation.
package feedback

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/capsulehq/capsule/pipeline/harness"
)

// Style says which program printed the output.
type Style int

const (
	// Function is the output of the case-testing harness (package harness).
	Function Style = iota
	// Pytest is the output of pytest.
	Pytest
	// Unittest is the output of python -m unittest.
	Unittest
	// Generic is any other command's output.
	Generic
)

// String returns the name of the style.
func (s Style) String() string {
	switch s {
	case Function:
		return "function"
	case Pytest:
		return "pytest"
	case Unittest:
		return "unittest"
	case Generic:
		return "generic"
	}
	return fmt.Sprintf("Style(%d)", int(s))
}

// Kinds of feedback.
const (
	KindAssertion    = "assertion"
	KindName         = "name"
	KindRecursion    = "recursion"
	KindTimeout      = "timeout"
	KindSyntax       = "syntax"
	KindImport       = "import"
	KindType         = "type"
	KindValue        = "value"
	KindIndex        = "index"
	KindKey          = "key"
	KindAttribute    = "attribute"
	KindZeroDivision = "zero_division"
	KindPytest       = "pytest"
	KindUnittest     = "unittest"
	KindOther        = "other"
	KindNoOutput     = "no_output"
	KindRaw          = "raw"
)

// DefaultMaxLen is the length cap of a message, in characters, when
// Input.MaxLen is zero or less.
const DefaultMaxLen = 2000

// rawFactor sets the default cap of Raw, as a multiple of MaxLen.
const rawFactor = 10

// Input is the outcome of one test run.
type Input struct {
	// Stdout and Stderr are the output of the run. For the Function style
	// they are best taken from harness.ParseOutput, without protocol lines.
	Stdout, Stderr string
	// ExitCode is the exit status of the run.
	ExitCode int
	// TimedOut reports that the run was stopped at its time limit.
	TimedOut bool
	// CPULimited reports that the run used up its CPU time; Timeout is
	// then the CPU-time limit rather than the wall clock's.
	CPULimited bool
	// Timeout is the time limit of the run; zero when unknown.
	Timeout time.Duration
	// EntryPoint is the function under test of a HumanEval task: quoted
	// tests show it in place of `candidate`.
	EntryPoint string
	// Style says which program printed the output.
	Style Style
	// Workspace is the path of the workspace in the sandbox, cut from the
	// front of file names so that they read as in the repository.
	Workspace string
	// MaxLen caps the message, in characters; DefaultMaxLen when zero or
	// less.
	MaxLen int
	// RawMaxLen caps the message of Raw; ten times MaxLen when zero or less.
	RawMaxLen int
}

// Feedback is the message for the model.
type Feedback struct {
	// Kind is the kind of failure, one of the Kind constants.
	Kind string
	// Message is the text for the model; never empty.
	Message string
}

// Refine turns the output of a failed run into a short, typed message.
// It does not judge success: given the output of a run that passed, it
// still describes that output.
func Refine(in Input) Feedback {
	in = in.normalized()
	d := refine(in)
	return Feedback{Kind: d.kind, Message: d.render(in.MaxLen)}
}

// refine picks the message by what the output holds; the reports of
// pytest and unittest fall back on their last traceback.
func refine(in Input) draft {
	if in.TimedOut || (in.Style == Function && in.ExitCode == harness.TimeoutExitCode) {
		return timeoutDraft(in)
	}
	switch in.Style {
	case Pytest:
		if d, ok := pytestDraft(in); ok {
			return d
		}
	case Unittest:
		if d, ok := unittestDraft(in); ok {
			return d
		}
	case Function:
		// Tests written as a unittest.TestCase (BigCodeBench) print
		// unittest's report.
		if d, ok := firstUnittestDraft(in); ok {
			return d
		}
	}
	return tracebackDraft(in)
}

// Raw returns the whole output of the run, capped at RawMaxLen by a cut in
// the middle, as the paper's ablation without error refinement.
func Raw(in Input) Feedback {
	in = in.normalized()
	limit := in.RawMaxLen
	if limit <= 0 {
		limit = rawFactor * in.MaxLen
	}
	var d draft
	d.addCuttable(strings.Trim(in.output(), "\n"))
	if len(d.parts) == 0 {
		d.add(fmt.Sprintf("The run printed nothing (exit status %d).", in.ExitCode))
	}
	if in.TimedOut {
		d.add("The run was stopped at " + limitText(in.Timeout, in.CPULimited) + ".")
	}
	return Feedback{Kind: KindRaw, Message: d.render(limit)}
}

// Output beyond maxInput bytes a stream is cut in the middle before it is
// read: reports and tracebacks are at its ends.
const (
	maxInput  = 1 << 20
	inputHead = maxInput / 4
)

// normalized returns in with valid UTF-8, "\n" line ends, file names
// relative to the workspace, output of a bounded size, a length cap, and
// no entry point unless it is an identifier.
func (in Input) normalized() Input {
	clean := func(s string) string {
		if len(s) > maxInput {
			s = s[:inputHead] + "\n" + cutMarker("", len(s)-maxInput) + "\n" + s[len(s)-(maxInput-inputHead):]
		}
		s = strings.ToValidUTF8(s, "\uFFFD")
		s = strings.ReplaceAll(s, "\r\n", "\n")
		if ws := strings.TrimRight(in.Workspace, "/"); ws != "" {
			s = strings.ReplaceAll(s, ws+"/", "")
		}
		return s
	}
	in.Stdout, in.Stderr = clean(in.Stdout), clean(in.Stderr)
	if (harness.Program{EntryPoint: in.EntryPoint}).Validate() != nil {
		in.EntryPoint = ""
	}
	if in.MaxLen <= 0 {
		in.MaxLen = DefaultMaxLen
	}
	return in
}

// output returns stdout and stderr, one after the other.
func (in Input) output() string {
	out := strings.TrimRight(in.Stdout, "\n")
	if err := strings.TrimRight(in.Stderr, "\n"); err != "" {
		if out != "" {
			out += "\n"
		}
		out += err
	}
	return out
}

// limitText describes a time limit: "the time limit of 10 seconds".
func limitText(d time.Duration, cpu bool) string {
	what := "the time limit"
	if cpu {
		what = "the CPU-time limit"
	}
	if d <= 0 {
		return what
	}
	s := d.Seconds()
	unit := "seconds"
	if s == 1 {
		unit = "second"
	}
	return what + " of " + strconv.FormatFloat(s, 'f', -1, 64) + " " + unit
}
