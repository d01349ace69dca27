// Package specialcase finds the lines an answer added that refer to the
// test runner's internals or to the test environment: code that could
// behave one way under test and another in use, or reach into the runner
// to change what the tests report. A finding does not refuse the answer
// (a fix inside a test runner's own repository may need such names); it
// keeps the job from being called proven, and the pull request says what
// was found and where.
//
// Only added lines count, so a file that already refers to pytest's
// internals (a plugin, the runner's own repository) is judged by what the
// answer wrote, not by what was there. Comment lines of Python files are
// skipped. The scan reads text: a name built from pieces at run time is not
// seen here (the tripwire inside the interpreter is for that).
package specialcase

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/capsulehq/capsule/pipeline/edits"
)

// Finding is one reference found on a line the answer added.
type Finding struct {
	File string `json:"file"`
	Line int    `json:"line"` // 1-based, in the new content
	What string `json:"what"` // the text found
	Why  string `json:"why"`  // what it refers to, for people
}

func (f Finding) String() string {
	return fmt.Sprintf("%s line %d: %s (%s)", f.File, f.Line, f.What, f.Why)
}

// Job is what the scan knows of the job: the reproducing test, whose path,
// module and test names code has no reason to name.
type Job struct {
	// ReproPath is the reproducing test's path; "" when there is none.
	ReproPath string
	// TestNames are the target tests' function names.
	TestNames []string
}

// rule is one kind of reference.
type rule struct {
	re  *regexp.Regexp
	why string
	// conftestOK exempts conftest.py files, where pytest's hooks belong.
	conftestOK bool
	// keep, when set, decides on a match (its submatches) whether it is a
	// finding, and says what was found.
	keep func(m []string) (string, bool)
}

var rules = []rule{
	{re: regexp.MustCompile(`\bcapsule_testreport\b`), why: "Capsule's test-report plugin"},
	{re: regexp.MustCompile(`\bcapsule_boot\b`), why: "Capsule's start-up hook in the test interpreter"},
	{re: regexp.MustCompile(`\b_pytest\b`), why: "pytest's internals"},
	{re: regexp.MustCompile(`\bpluginmanager\b`), why: "pytest's plugin manager, through which a plugin can be added or replaced"},
	{re: regexp.MustCompile(`\bpytest_(?:runtest_\w+|report_\w+|collection_modifyitems|collectreport|make_collect_report|pyfunc_call|sessionfinish|terminal_summary)\b`),
		why: "a pytest hook that decides how tests run or are reported, outside a conftest.py", conftestOK: true},
	{re: regexp.MustCompile(`\bPYTEST_CURRENT_TEST\b`), why: "the variable pytest sets while a test runs: code that reads it can tell a test from real use"},
	{re: regexp.MustCompile(`\bCAPSULE_\w+`), why: "a variable of Capsule's test environment: code that reads it can tell Capsule's runs from real use"},
	{re: regexp.MustCompile(`test result: (?:ok|FAILED)\.|running \d+ tests?\\n`), why: "libtest's output of cargo test: code that prints it can forge the results"},
	{re: regexp.MustCompile(`\.(?:init|fini)_array\b|#\s*\[\s*(?:\w+\s*::\s*)*[cd]tor\b`), why: "a constructor or destructor of the binary, which runs before or after libtest in every test binary that links the code: code in it can replace the tests' output"},
	{re: regexp.MustCompile(`\bnum(?:Passed|Failed|Total)Tests\b|\bassertionResults\b`), why: "the fields of Jest's and Vitest's JSON report: code that writes them can forge the results"},
	{re: regexp.MustCompile(`\bcapsule-(?:jest|vitest)\.json\b`), why: "the JSON report Capsule asks Jest or Vitest for: code that writes it can forge the results"},
	{re: regexp.MustCompile(`\bsurefire-reports\b|\bTEST-[\w.$-]*\.xml\b`), why: "Surefire's JUnit XML reports: code that writes them can forge the results"},
	{re: regexp.MustCompile(`\baddShutdownHook\s*\(`), why: "a JVM shutdown hook, which runs after the tests, when the runner's reports are written"},
	{re: regexp.MustCompile(`\bprocess\s*\.\s*(?:on|once|prependListener)\s*\(\s*['"](?:exit|beforeExit)['"]`), why: "a Node exit handler, which runs after the tests, when Jest's and Vitest's reports are written"},
	{re: regexp.MustCompile(`\bgc\s*\.\s*get_(?:objects|referrers|referents)\b`), why: "a walk over the interpreter's objects, the way to reach the test runner's"},
	{re: regexp.MustCompile(`\bsys\s*\.\s*modules\s*\[([^\]]*)\]\s*=[^=]|\bsys\s*\.\s*modules\s*\.\s*(?:update|setdefault)\s*\(([^)]*)|\bsetitem\s*\(\s*sys\s*\.\s*modules\s*,([^,)]*)`),
		why: "a write to sys.modules that can put another module in a test module's place", keep: testModuleKey},
}

// quoted matches a string literal of one line.
var quoted = regexp.MustCompile(`"[^"]*"|'[^']*'`)

// testModuleKey reports whether a write to sys.modules may be of a test
// module (or of the runner's): its key names one, or is not a literal
// (which could name anything). A module replacing itself, under
// __name__, is not.
func testModuleKey(m []string) (string, bool) {
	key := strings.TrimSpace(strings.Join(m[1:], ""))
	what := "a write to sys.modules[" + key + "]"
	switch {
	case key == "__name__":
		return "", false
	case key == "" || quoted.FindString(key) != key:
		return what, true
	}
	lower := strings.ToLower(key)
	return what, strings.Contains(lower, "test") || strings.Contains(lower, "capsule") || strings.Contains(lower, "pytest")
}

// Scan returns the references on the lines that new adds to old in the
// file at p (old is "" for a new file).
func Scan(p, old, new string, job Job) []Finding {
	added := edits.AddedBetween(old, new)
	lines := strings.SplitAfter(new, "\n")
	conftest := path.Base(p) == "conftest.py"
	python := path.Ext(p) == ".py"
	names := jobNames(job)
	var out []Finding
	for i, line := range lines {
		if i >= len(added) || !added[i] {
			continue
		}
		line = strings.TrimRight(line, "\r\n")
		if python && strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		var hits []found
		for _, r := range rules {
			if r.conftestOK && conftest {
				continue
			}
			for _, loc := range r.re.FindAllStringSubmatchIndex(line, -1) {
				m := submatches(line, loc)
				what, ok := strings.TrimSpace(m[0]), true
				if r.keep != nil {
					what, ok = r.keep(m)
				}
				if ok {
					hits = append(hits, found{loc[0], Finding{File: p, Line: i + 1, What: what, Why: r.why}})
				}
			}
		}
		for _, n := range names {
			if loc := n.re.FindStringIndex(line); loc != nil {
				hits = append(hits, found{loc[0], Finding{File: p, Line: i + 1, What: n.what, Why: n.why}})
			}
		}
		slices.SortStableFunc(hits, func(a, b found) int { return a.col - b.col })
		for _, f := range hits {
			out = append(out, f.Finding)
		}
	}
	return out
}

// found is a finding and the column it starts at, to list a line's
// findings in order.
type found struct {
	col int
	Finding
}

// submatches turns a match's indices into its submatches ("" for a group
// that did not take part).
func submatches(s string, loc []int) []string {
	m := make([]string, len(loc)/2)
	for i := range m {
		if loc[2*i] >= 0 {
			m[i] = s[loc[2*i]:loc[2*i+1]]
		}
	}
	return m
}

// jobName is a name of the job's reproducing test to look for.
type jobName struct {
	re        *regexp.Regexp
	what, why string
}

// jobNames are the reproducing test's path and module name anywhere, and
// the target tests' names inside string literals (a function of the same
// name in a new test file is not a reference).
func jobNames(job Job) []jobName {
	var out []jobName
	if job.ReproPath != "" {
		module := strings.TrimSuffix(path.Base(job.ReproPath), ".py")
		out = append(out, jobName{re: regexp.MustCompile(`\b` + regexp.QuoteMeta(module) + `\b`), what: module,
			why: "the reproducing test's module, which the code under test has no reason to name"})
	}
	for _, n := range job.TestNames {
		if n == "" {
			continue
		}
		out = append(out, jobName{re: regexp.MustCompile(`["']` + regexp.QuoteMeta(n) + `\b`), what: n,
			why: "the name of a test that shows the issue, quoted: code can tell that test from real use"})
	}
	return out
}
