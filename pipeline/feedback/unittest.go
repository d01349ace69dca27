package feedback

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	// unittestTestRe matches the title of one report: "FAIL: test_x (m.C.test_x)".
	unittestTestRe = regexp.MustCompile(`^(?:FAIL|ERROR|UNEXPECTED SUCCESS): .+$`)
	// unittestRanRe matches "Ran 5 tests in 0.001s".
	unittestRanRe = regexp.MustCompile(`^(Ran \d+ tests?)(?: in [\d.]+s)?$`)
	// unittestResultRe matches "FAILED (failures=3, errors=1)".
	unittestResultRe = regexp.MustCompile(`^(?:FAILED|OK)(?: \(.*\))?$`)
)

// maxDescription is how many lines of a test's description may stand
// between its title and its traceback in unittest's report.
const maxDescription = 3

// unittestDraft describes the failures unittest reports, or reports false
// when it finds none.
func unittestDraft(in Input) (draft, bool) {
	fails, summary := unittestReport(in)
	if len(fails) == 0 {
		return draft{}, false
	}
	return reportDraft(KindUnittest, summary, fails, in.MaxLen), true
}

// firstUnittestDraft describes a unittest report the way PyCapsule does
// for BigCodeBench: the report is split into its tracebacks, duplicates
// (the same error type at the same place) are dropped, and only the first
// is sent, framed with its number and error type. It reports false when
// the output holds no unittest report.
func firstUnittestDraft(in Input) (draft, bool) {
	fails, summary := unittestReport(in)
	if len(fails) == 0 {
		return draft{}, false
	}
	kinds := distinct(fails)
	f := kinds[0]
	d := draft{kind: KindUnittest}
	d.add(fmt.Sprintf("%s. %d failing %s, %d distinct; the first:", summary,
		len(fails), plural(len(fails), "test", "tests"), len(kinds)))
	d.add(fmt.Sprintf("\nError 1 of %d: %s in %s (at %s%s)", len(kinds), f.typ, f.title, f.where, sameText(f.same)))
	d.addCuttable(f.trace)
	d.addCuttable(f.errors)
	d.add("\nFix the code so that all the tests pass; do not change the tests.")
	return d, true
}

// unittestReport reads the failures of unittest's report and a summary
// line such as "unittest: Ran 5 tests, FAILED (failures=2)"; it finds no
// failures when the output holds no report.
func unittestReport(in Input) ([]*failure, string) {
	lines := splitLines(in.output())
	var (
		fails        []*failure
		ran, verdict string
	)
	for i, line := range lines {
		line := short(line)
		switch {
		case unittestRanRe.MatchString(line):
			ran = unittestRanRe.FindStringSubmatch(line)[1]
		case unittestResultRe.MatchString(line):
			verdict = line
		case unittestTestRe.MatchString(line) && i > 0 && separatorRe.MatchString(short(lines[i-1])):
			if f, ok := unittestFailure(line, lines[i+1:]); ok {
				fails = append(fails, f)
			}
		}
	}
	summary := "unittest: " + strings.Join(nonEmpty(ran, verdict), ", ")
	return fails, strings.TrimSuffix(summary, ": ")
}

// unittestFailure reads the traceback under the title of a report. The
// test's description (the first line of its docstring), which unittest
// prints under the title, is skipped.
func unittestFailure(title string, lines []string) (*failure, bool) {
	for i := 0; i < len(lines) && i <= maxDescription; i++ {
		if separatorRe.MatchString(short(lines[i])) {
			lines = lines[i+1:]
			break
		}
	}
	if len(lines) == 0 || !strings.Contains(lines[0], tbHeader) {
		return nil, false
	}
	e, _, ok := parseTraceback(lines, 1)
	if !ok {
		return nil, false
	}
	f := &failure{title: title, typ: e.shortType(), where: "?"}
	code := e.code()
	if len(code) > 0 {
		last := code[len(code)-1]
		f.where = last.file + ":" + strconv.Itoa(last.line)
	}
	f.trace = traceText(code)
	f.errors = strings.Join(append([]string{e.head}, e.detail...), "\n")
	return f, true
}

// nonEmpty returns the strings that are not empty.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
