package feedback

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	// pytestSectionRe matches the rule that opens a section of the report.
	pytestSectionRe = regexp.MustCompile(`^={3,} ?(.*?) ?={3,}$`)
	// pytestTestRe matches the title of one failure in a section.
	pytestTestRe = regexp.MustCompile(`^_{3,} (.+?) _{3,}$`)
	// pytestEntrySepRe matches the rule between the entries of a failure.
	pytestEntrySepRe = regexp.MustCompile(`^(?:_ )+_\s*$`)
	// pytestLocRe matches an entry's location: "path:12: in func" for a
	// short entry, "path:12: ValueError" or "path:12: " for a long one.
	pytestLocRe = regexp.MustCompile(`^([^\s>].*?):(\d+): ?(.*)$`)
	// pytestExcRe matches an exception line among the "E" lines.
	pytestExcRe = regexp.MustCompile(`^E\s+([A-Za-z_][\w.]*)(?::|$)`)
	// pytestErrFileRe matches the location Python gives a syntax error
	// among the "E" lines: `E     File "pkg/mod.py", line 12`.
	pytestErrFileRe = regexp.MustCompile(`^E\s+File "(.+)", line (\d+)`)
	// pytestConftestRe matches the line pytest prints when a conftest.py
	// cannot be imported (exit status 4), before its short traceback.
	pytestConftestRe = regexp.MustCompile(`^(?:ImportError|[A-Za-z]+Error) while loading conftest '(.+)'\.$`)
	// pytestSummaryRe matches the final counts, e.g. "3 failed, 5 passed in 0.1s".
	pytestSummaryRe = regexp.MustCompile(`^[=\s]*(\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)\b.*?)(?: in [\d.]+s\b.*?)?[=\s]*$`)
)

// Limits on what a pytest or unittest message lists.
const (
	maxKinds   = 5   // failures of distinct kinds shown
	maxSame    = 5   // other tests named for a kind
	minKindLen = 300 // characters of MaxLen a shown kind needs to be useful
)

// failure is the first failure of one kind in a pytest or unittest report.
type failure struct {
	title  string // test name, as the report gives it
	typ    string // exception type
	where  string // where it was raised: path:line
	trace  string // the frames in the code under test
	errors string // the exception and what the tool shows of its values
	same   []string
}

// key identifies the kind of a failure.
func (f *failure) key() string { return f.typ + " at " + f.where }

// pytestDraft describes the FAILURES and ERRORS sections of pytest's
// report, or reports false when it finds none.
func pytestDraft(in Input) (draft, bool) {
	var (
		fails   []*failure
		current []string
		title   string
		section bool
		summary string
	)
	flush := func() {
		if title != "" {
			fails = append(fails, pytestFailure(title, current))
		}
		title, current = "", nil
	}
	for _, line := range splitLines(in.output()) {
		if m := pytestSummaryRe.FindStringSubmatch(short(line)); m != nil {
			summary = m[1]
		}
		if m := pytestSectionRe.FindStringSubmatch(short(line)); m != nil {
			flush()
			section = m[1] == "FAILURES" || m[1] == "ERRORS"
			continue
		}
		if !section {
			continue
		}
		if m := pytestTestRe.FindStringSubmatch(short(line)); m != nil {
			flush()
			title = m[1]
			continue
		}
		current = append(current, line)
	}
	flush()
	if len(fails) == 0 {
		return conftestDraft(in)
	}
	if summary == "" {
		summary = "tests failed"
	}
	return reportDraft(KindPytest, "pytest: "+summary, fails, in.MaxLen), true
}

// conftestDraft describes a conftest.py that pytest could not import, which
// ends the run before any test (exit status 4) with a short traceback and
// no report sections; it reports false when the output shows none.
func conftestDraft(in Input) (draft, bool) {
	lines := splitLines(in.output())
	for i, line := range lines {
		m := pytestConftestRe.FindStringSubmatch(short(line))
		if m == nil {
			continue
		}
		f := pytestFailure("loading "+m[1], lines[i+1:])
		d := draft{kind: KindPytest}
		d.add("pytest could not import " + m[1] + ", so no test ran (" + f.key() + "):")
		d.addCuttable(f.trace)
		d.addCuttable(f.errors)
		d.add("\nFix the code that " + m[1] + " imports; do not change the tests or their configuration.")
		return d, true
	}
	return draft{}, false
}

// pytestFailure reads the lines of one failure of pytest's default
// ("auto") traceback format. A syntax error is placed in the file that
// has it, not in the test that imported that file.
func pytestFailure(title string, lines []string) *failure {
	f := &failure{title: title}
	var trace, errs, pending []string
	var syntaxAt string // where Python places a syntax error
	inShort := false    // in a short entry whose source lines are kept
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "E ") || line == "E":
			errs = append(errs, line)
			if m := pytestExcRe.FindStringSubmatch(prefix(line)); m != nil {
				f.typ = m[1]
			}
			if m := pytestErrFileRe.FindStringSubmatch(line); m != nil {
				syntaxAt = m[1] + ":" + m[2]
			}
		case strings.HasPrefix(line, ">"):
			pending = append(pending, line)
		case pytestEntrySepRe.MatchString(short(line)):
			inShort = false
		case pytestLocRe.MatchString(short(line)):
			m := pytestLocRe.FindStringSubmatch(line)
			file, where, rest := m[1], m[1]+":"+m[2], m[3]
			inShort = strings.HasPrefix(rest, "in ")
			if library(file) {
				inShort, pending = false, nil
				continue
			}
			f.where = where
			if inShort {
				trace = append(trace, line)
				continue
			}
			trace = append(trace, where)
			trace = append(trace, pending...)
			pending = nil
			if rest != "" {
				f.typ = rest
			}
		case inShort && strings.HasPrefix(line, "    ") && strings.TrimSpace(line) != "???":
			trace = append(trace, line)
		}
	}
	trace = append(trace, pending...)
	if f.typ == "" {
		f.typ = "failure"
	}
	if syntaxAt != "" && (f.typ == "SyntaxError" || f.typ == "IndentationError" || f.typ == "TabError") {
		f.where = syntaxAt
	}
	f.trace, f.errors = strings.Join(trace, "\n"), strings.Join(errs, "\n")
	return f
}

// reportDraft lists the first failure of each kind, de-duplicated, as many
// kinds as fit in maxLen.
func reportDraft(kind, summary string, fails []*failure, maxLen int) draft {
	kinds := distinct(fails)
	d := draft{kind: kind}
	if len(kinds) == 1 {
		d.add(summary + ". The failure:")
	} else {
		d.add(fmt.Sprintf("%s. The first failure of each of %d kinds:", summary, len(kinds)))
	}
	shown := min(maxKinds, max(1, maxLen/minKindLen))
	for i, f := range kinds {
		if i == shown {
			d.add(fmt.Sprintf("\n(%d more %s not shown.)", len(kinds)-shown, plural(len(kinds)-shown, "kind", "kinds")+" of failure"))
			break
		}
		d.add("\n" + f.title + " (" + f.key() + sameText(f.same) + ")")
		d.addCuttable(f.trace)
		d.addCuttable(f.errors)
	}
	d.add("\nFix the code so that all the tests pass; do not change the tests.")
	return d
}

// distinct returns the first failure of each kind, in order; each lists
// the titles of the later ones of its kind in same.
func distinct(fails []*failure) []*failure {
	var kinds []*failure
	byKey := map[string]*failure{}
	for _, f := range fails {
		if first, ok := byKey[f.key()]; ok {
			first.same = append(first.same, f.title)
			continue
		}
		byKey[f.key()] = f
		kinds = append(kinds, f)
	}
	return kinds
}

// plural returns one or many by the count n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sameText names the other tests that failed the same way.
func sameText(same []string) string {
	switch {
	case len(same) == 0:
		return ""
	case len(same) > maxSame:
		return fmt.Sprintf("; also in %s and %d more", strings.Join(same[:maxSame], ", "), len(same)-maxSame)
	}
	return "; also in " + strings.Join(same, ", ")
}
