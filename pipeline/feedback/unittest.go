package feedback

import (
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

// unittestDraft describes the failures unittest reports, or reports false
// when it finds none.
func unittestDraft(in Input) (draft, bool) {
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
	if len(fails) == 0 {
		return draft{}, false
	}
	summary := "unittest: " + strings.Join(nonEmpty(ran, verdict), ", ")
	return reportDraft(KindUnittest, strings.TrimSuffix(summary, ": "), fails, in.MaxLen), true
}

// unittestFailure reads the traceback under the title of a report.
func unittestFailure(title string, lines []string) (*failure, bool) {
	if len(lines) > 0 && separatorRe.MatchString(short(lines[0])) {
		lines = lines[1:]
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
