// Package calculatortest holds the example repository examples/calculator
// and scripted model answers for it, for tests of repo mode and the bot,
// and for the stand-in model of `capsule demo`. Its issue: the statistics
// functions fail on an empty list.
package calculatortest

import (
	"strings"
	"testing"

	"github.com/capsulehq/capsule/examples"
	"github.com/capsulehq/capsule/pipeline/edits"
	"github.com/capsulehq/capsule/pipeline/programmer"
)

// RightStats is a calc/stats.py that passes the example's tests.
const RightStats = `"""Statistics over lists of numbers."""

from calc.ops import divide


def mean(values):
    """Return the arithmetic mean of values, 0.0 for no values."""
    if not values:
        return 0.0
    return divide(sum(values), len(values))


def median(values):
    """Return the middle value of values (the mean of the two middle ones
    when there is an even number of them), 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return mean(ordered[middle - 1 : middle + 1])
`

// WrongStats returns None for an empty list instead of 0.0, which the
// tests catch.
var WrongStats = strings.Replace(RightStats, "return 0.0\n    return divide", "return None\n    return divide", 1)

// Answer is a model answer in the repo-mode format, with files given as
// path, new content pairs: a file of the example repository as the
// SEARCH/REPLACE blocks that change it (edits.BlocksFor), any other path
// whole. A file given unchanged is a whole-file block.
func Answer(pairs ...string) string {
	example := examples.Calculator()
	var files []edits.FileEdit
	for i := 0; i+1 < len(pairs); i += 2 {
		f := edits.FileEdit{Path: pairs[i], Whole: true, Content: pairs[i+1]}
		if old, ok := example[pairs[i]]; ok {
			if blocks := edits.BlocksFor(old, pairs[i+1]); len(blocks) > 0 {
				f = edits.FileEdit{Path: pairs[i], Blocks: blocks}
			}
		}
		files = append(files, f)
	}
	return "The empty list must be handled before dividing.\n\n" + programmer.FormatFiles(files) + "\n"
}

// Issue is the example's issue.
const (
	IssueTitle = "mean() and median() fail on an empty list"
	IssueBody  = "Calling `mean([])` raises ZeroDivisionError; it should return 0.0, and so should `median([])`, as the tests in `tests/test_stats.py` expect."
)

// Files returns the example repository's files by slash-separated path
// (examples.Calculator).
func Files(t testing.TB) map[string]string {
	t.Helper()
	return examples.Calculator()
}

// WithoutEmptyListTests is tests/test_stats.py without its two tests of
// the empty list: the repository as it is when the issue is filed, with
// nothing that shows the issue.
func WithoutEmptyListTests(t testing.TB) string {
	t.Helper()
	src := Files(t)["tests/test_stats.py"]
	for _, name := range []string{"test_mean_of_nothing_is_zero", "test_median_of_nothing_is_zero"} {
		i := strings.Index(src, "def "+name)
		if i < 0 {
			t.Fatalf("tests/test_stats.py has no %s", name)
		}
		if j := strings.Index(src[i:], "\n\n\n"); j < 0 {
			src = src[:i]
		} else {
			src = src[:i] + src[i+j+3:]
		}
	}
	return strings.TrimRight(src, "\n") + "\n"
}
