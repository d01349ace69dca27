package testreport

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

// describeReport renders a report as text for golden files: its
// processes, then each test in order, then why it is incomplete.
func describeReport(rep *Report) string {
	var b strings.Builder
	for _, p := range rep.Processes {
		fmt.Fprintf(&b, "process %s: collected %d, failing %d, ended %v, exit %d\n", p.Name, p.Collected, p.Failing, p.Ended, p.ExitStatus)
	}
	for _, id := range rep.IDs() {
		res := rep.Tests[id]
		fmt.Fprintf(&b, "%s\n  %s", id, res.Outcome)
		if res.Phase != "" {
			fmt.Fprintf(&b, " (%s)", res.Phase)
		}
		fmt.Fprintf(&b, " %s\n", res.Duration)
		if res.Message != "" {
			fmt.Fprintf(&b, "  message: %s\n", res.Message)
		}
	}
	if why := rep.Incomplete(); why != "" {
		fmt.Fprintf(&b, "incomplete: %s\n", why)
	}
	return b.String()
}

// checkFixtures reads each real output that pattern matches, of which
// there must be at least least, with read, and checks that its report is
// complete and renders as the golden file of the same name.
func checkFixtures(t *testing.T, pattern string, least int, read func(t *testing.T, p string, data []byte) *Report) {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) < least {
		t.Fatalf("want at least %d files matching %s, got %d (%v)", least, pattern, len(paths), err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rep := read(t, p, data)
			if !rep.Complete() {
				t.Errorf("a real report is incomplete: %s", rep.Incomplete())
			}
			goldenfile.Check(t, strings.TrimSuffix(p, filepath.Ext(p))+".golden", describeReport(rep), *update)
		})
	}
}

// checkHolds fails a fuzz target when a report's results do not hold
// together: each under its own identity with a valid outcome and bounded
// texts. It returns how many tests there are, and how many fail.
func checkHolds(t *testing.T, rep *Report) (tests, failing int) {
	t.Helper()
	for id, res := range rep.Tests {
		if res.ID != id || !res.Outcome.Valid() {
			t.Fatalf("result %+v under %v", res, id)
		}
		if len(res.Message) > maxMessage+len(" [...]") || len(res.Longrepr) > maxLongrepr+len(" [...]") {
			t.Fatalf("unbounded texts: %d, %d bytes", len(res.Message), len(res.Longrepr))
		}
		tests++
		if res.Outcome.Failing() {
			failing++
		}
	}
	return tests, failing
}

// TestParseJUnitFixtures reads the real reports of testdata/junit (see its
// README for their sources) against their golden renderings.
func TestParseJUnitFixtures(t *testing.T) {
	checkFixtures(t, "testdata/junit/*.xml", 5, func(t *testing.T, p string, data []byte) *Report {
		return ParseJUnit(filepath.Base(p), data, "/workspace")
	})
}

// TestParseJUnit covers the identities, outcomes and the reports that
// cannot be trusted.
func TestParseJUnit(t *testing.T) {
	for _, tc := range []struct {
		name, xml string
		// want lists "id outcome" for every test, in order.
		want []string
		// incomplete is a part of why the report is incomplete, or empty.
		incomplete string
	}{
		{name: "single suite root",
			xml:  `<testsuite name="a.BTest" tests="2"><testcase classname="a.BTest" name="x"/><testcase classname="a.BTest" name="y"><skipped/></testcase></testsuite>`,
			want: []string{"a.BTest::x passed", "a.BTest::y skipped"}},
		{name: "parameterised names stay distinct",
			xml: `<testsuites><testsuite name="s" file="/workspace/tests/t.py">` +
				`<testcase classname="tests.t" name="test_p[1]"/><testcase classname="tests.t" name="test_p[2]"><failure message="boom"/></testcase>` +
				`</testsuite></testsuites>`,
			want: []string{"tests/t.py::tests.t::test_p[1] passed", "tests/t.py::tests.t::test_p[2] failed"}},
		{name: "nested suites name the test",
			xml: `<testsuites><testsuite name="all"><testsuite name="pkg" tests="1"><testcase name="A"><error message="npe"/></testcase></testsuite>` +
				`<testsuite name="other"><testcase name="A"/></testsuite></testsuite></testsuites>`,
			want: []string{"all/other::A passed", "all/pkg::A error"}},
		{name: "an error outranks a failure",
			xml:  `<testsuite name="s"><testcase name="t"><failure/><error/></testcase></testsuite>`,
			want: []string{"s::t error"}},
		{name: "a test reported twice keeps its worst outcome",
			xml:  `<testsuite name="s"><testcase name="t"><failure/></testcase><testcase name="t"/></testsuite>`,
			want: []string{"s::t failed"}},
		{name: "pytest xfail",
			xml:  `<testsuite name="pytest"><testcase classname="m" name="t"><skipped type="pytest.xfail" message=""/></testcase></testsuite>`,
			want: []string{"pytest::m::t xfailed"}},
		{name: "truncated", xml: `<testsuites><testsuite name="s"><testcase name="t"/>`,
			want: []string{"s::t passed"}, incomplete: "not well-formed XML"},
		{name: "not XML", xml: `{"tests": 3}`, incomplete: "not a JUnit report: no element"},
		{name: "another root", xml: `<html><testcase name="t"/></html>`, incomplete: "its root element is <html>"},
		{name: "a suite's declared counts are not checked",
			xml:  `<testsuite name="s" tests="3"><testcase name="t"/></testsuite>`,
			want: []string{"s::t passed"}},
		{name: "entities are not expanded",
			xml:        `<!DOCTYPE x [<!ENTITY a "aaaa">]><testsuite name="&a;"><testcase name="t"/></testsuite>`,
			incomplete: "invalid character entity &a;"},
		{name: "external entities are not read",
			xml:        `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><testsuite name="s"><testcase name="&e;"/></testsuite>`,
			incomplete: "invalid character entity &e;"},
		{name: "deep nesting", xml: strings.Repeat("<testsuite>", maxJUnitDepth+1), incomplete: "nested more than 64 deep"},
		{name: "other encodings are refused",
			xml:        `<?xml version="1.0" encoding="ISO-8859-1"?><testsuite name="s"/>`,
			incomplete: "not well-formed XML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := ParseJUnit("report.xml", []byte(tc.xml), "/workspace")
			var got []string
			for _, id := range rep.IDs() {
				got = append(got, fmt.Sprintf("%s %s", id, rep.Tests[id].Outcome))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("tests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			why := rep.Incomplete()
			switch {
			case tc.incomplete == "" && why != "":
				t.Errorf("incomplete: %s", why)
			case tc.incomplete != "" && !strings.Contains(why, tc.incomplete):
				t.Errorf("incomplete = %q, want it to say %q", why, tc.incomplete)
			}
		})
	}
}

// TestParseReportFilesBounds shows that reports over the bounds of a run
// are incomplete, and that files are read as processes in order.
func TestParseReportFilesBounds(t *testing.T) {
	ok := []byte(`<testsuite name="s"><testcase name="t"/></testsuite>`)
	t.Run("files in order", func(t *testing.T) {
		rep := ParseReportFiles(map[string][]byte{"b.xml": ok, "a.xml": []byte(`<testsuite name="r"><testcase name="u"><failure/></testcase></testsuite>`)}, "/workspace")
		if len(rep.Processes) != 2 || rep.Processes[0].Name != "a.xml" || rep.Processes[0].ExitStatus != 1 || rep.Processes[1].ExitStatus != 0 {
			t.Errorf("processes = %+v", rep.Processes)
		}
		if !rep.Complete() || len(rep.Tests) != 2 {
			t.Errorf("report = %s", describeReport(rep))
		}
	})
	t.Run("bytes", func(t *testing.T) {
		big := make([]byte, MaxReportBytes/2+1)
		rep := ParseReportFiles(map[string][]byte{"a.xml": ok, "b.xml": big, "c.xml": big}, "/workspace")
		if !rep.Truncated || rep.Complete() {
			t.Errorf("two files over %d bytes are not truncated: %s", MaxReportBytes, describeReport(rep))
		}
	})
	t.Run("files", func(t *testing.T) {
		files := map[string][]byte{}
		for i := range MaxJUnitFiles + 1 {
			files[fmt.Sprintf("r%04d.xml", i)] = ok
		}
		if rep := ParseReportFiles(files, "/workspace"); rep.Complete() || len(rep.Processes) != MaxJUnitFiles {
			t.Errorf("%d files: complete %v, %d processes", len(files), rep.Complete(), len(rep.Processes))
		}
	})
	t.Run("tests", func(t *testing.T) {
		data := "<testsuite name=\"s\">" + strings.Repeat(`<testcase name="t"/>`, MaxJUnitTests+1) + "</testsuite>"
		rep := ParseJUnit("a.xml", []byte(data), "/workspace")
		if !strings.Contains(rep.Incomplete(), fmt.Sprintf("more than %d test cases", MaxJUnitTests)) {
			t.Errorf("incomplete = %q", rep.Incomplete())
		}
	})
}

// FuzzJUnit checks that any input gives a report that holds together:
// no panic, bounded texts, every failing test counted by its process.
func FuzzJUnit(f *testing.F) {
	paths, _ := filepath.Glob("testdata/junit/*.xml")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`<testsuites><testsuite name="s" tests="1"><testcase name="t[1]"><failure message="m">x</failure></testcase></testsuite></testsuites>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep := ParseJUnit("r.xml", data, "/workspace")
		if len(rep.Processes) != 1 {
			t.Fatalf("%d processes for one file", len(rep.Processes))
		}
		p := rep.Processes[0]
		_, failing := checkHolds(t, rep)
		if failing > p.Failing || len(rep.Tests) > p.Collected {
			t.Fatalf("%d failing of %d tests, process counted %d of %d", failing, len(rep.Tests), p.Failing, p.Collected)
		}
		if p.Ended != (rep.MalformedLines == 0) {
			t.Fatalf("ended %v with %d malformed", p.Ended, rep.MalformedLines)
		}
	})
}
