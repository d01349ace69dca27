package testreport

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds of JUnit XML reports, which the process that runs the code under
// test writes. A report over them is incomplete.
const (
	// MaxJUnitFiles is the most report files of one run that are read.
	MaxJUnitFiles = 1000
	// MaxJUnitTests is the most test cases read from a run's reports.
	MaxJUnitTests = 200_000
	// maxJUnitDepth bounds the nesting of elements in one file.
	maxJUnitDepth = 64
)

// ParseReportFiles reads the report files of one run, keyed by their
// path relative to the workspace, into one Report: each file is a
// Process named by its path, read in the order of the paths, as a Jest
// JSON report (ParseJestJSON) when its first character opens a JSON
// object, else as JUnit XML (ParseJUnit). root is the workspace's
// directory as the sandbox saw it: a test's absolute file is named
// relative to it. It never fails: more than MaxJUnitFiles files,
// MaxReportBytes bytes or MaxJUnitTests tests, and a file that does not
// read, are noted in the Report and make it incomplete.
func ParseReportFiles(files map[string][]byte, root string) *Report {
	return parseReportFiles(files, root, nil, nil)
}

// parseReportFiles is ParseReportFiles, with the run's standard output
// and error, on which the runner's summary must agree with a Jest or
// Vitest JSON report (jestReader.summaries).
func parseReportFiles(files map[string][]byte, root string, stdout, stderr []byte) *Report {
	rep := newReport()
	names := slices.Sorted(maps.Keys(files))
	if len(names) > MaxJUnitFiles {
		rep.malformed(0, fmt.Sprintf("%d report files, more than the %d read", len(names), MaxJUnitFiles))
		names = names[:MaxJUnitFiles]
	}
	xmlReader := &junitReader{rep: rep, root: path.Clean(root)}
	jsonReader := &jestReader{rep: rep, root: path.Clean(root)}
	var formats []string
	total := 0
	for _, name := range names {
		data := files[name]
		if total += len(data); total > MaxReportBytes {
			rep.Truncated = true
			break
		}
		format := "JUnit XML"
		if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
			format = "Jest JSON"
			jsonReader.file(name, data)
		} else {
			xmlReader.file(name, data)
		}
		if !slices.Contains(formats, format) {
			formats = append(formats, format)
		}
		if xmlReader.tests+jsonReader.tests > MaxJUnitTests {
			break
		}
	}
	rep.RunnerWritten = strings.Join(formats, " and ")
	if !rep.Truncated && len(names) == 1 {
		jsonReader.summaries(stdout, stderr)
	}
	return rep
}

// ParseJUnit reads one JUnit XML report, named name, into a Report of one
// Process named by name (see ParseReportFiles and junitReader.file).
func ParseJUnit(name string, data []byte, root string) *Report {
	rep := newReport()
	rep.RunnerWritten = "JUnit XML"
	if len(data) > MaxReportBytes {
		rep.Truncated = true
		return rep
	}
	(&junitReader{rep: rep, root: path.Clean(root)}).file(name, data)
	return rep
}

// junitReader builds a Report from JUnit XML files.
type junitReader struct {
	rep  *Report
	root string
	// tests counts the test cases read in all files.
	tests int
}

// suite is an open <testsuite>: its name and its file. The counts it
// declares are not checked: pytest's count subtests, jest-junit's leave
// out a suite that failed to run, and a cut file does not parse anyway.
type suite struct {
	name, file string
}

// testCase is an open <testcase>.
type testCase struct {
	id       ID
	duration time.Duration
	result   Result
	// text gathers the text of its failure, error or skipped element.
	text strings.Builder
	// in is the element among those whose text is gathered.
	in string
}

// file reads one report file as one process.
func (r *junitReader) file(name string, data []byte) {
	r.rep.Processes = append(r.rep.Processes, Process{Name: name})
	p := &r.rep.Processes[len(r.rep.Processes)-1]
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true // the default: only XML's five entities, no DOCTYPE's
	var (
		suites []suite
		tc     *testCase
		depth  int
		root   string
	)
	fail := func(why string) {
		line, _ := dec.InputPos()
		r.rep.malformed(line, name+": "+why)
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fail(fmt.Sprintf("not well-formed XML: %v", err))
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth++; depth > maxJUnitDepth {
				fail(fmt.Sprintf("elements nested more than %d deep", maxJUnitDepth))
				return
			}
			el := t.Name.Local
			if root == "" {
				root = el
				if el != "testsuites" && el != "testsuite" {
					fail(fmt.Sprintf("not a JUnit report: its root element is <%s>", el))
					return
				}
			}
			switch {
			case el == "testsuite" && tc == nil:
				suites = append(suites, suite{name: attr(t, "name"), file: attr(t, "file")})
			case el == "testcase" && tc == nil:
				if r.tests++; r.tests > MaxJUnitTests {
					fail(fmt.Sprintf("more than %d test cases", MaxJUnitTests))
					return
				}
				tc = r.open(t, suites)
			case tc != nil:
				tc.element(t)
			}
		case xml.EndElement:
			depth--
			switch el := t.Name.Local; {
			case el == "testcase" && tc != nil:
				r.finish(p, tc)
				tc = nil
			case el == "testsuite" && tc == nil && len(suites) > 0:
				suites = suites[:len(suites)-1]
			case tc != nil && el == tc.in:
				tc.in = ""
			}
		case xml.CharData:
			if tc != nil && tc.in != "" && tc.text.Len() < maxLongrepr {
				tc.text.Write(t[:min(len(t), maxLongrepr-tc.text.Len())])
			}
		}
	}
	if root == "" {
		fail("not a JUnit report: no element")
		return
	}
	p.Ended = true
	if p.Failing > 0 {
		p.ExitStatus = 1
	}
}

// open starts a test case: its identity is its file (its own, else its
// suite's, else the enclosing suites' names), its class name and its name,
// a trailing [params] split off as the parameters.
func (r *junitReader) open(t xml.StartElement, suites []suite) *testCase {
	file := attr(t, "file")
	for i := len(suites) - 1; i >= 0 && file == ""; i-- {
		file = suites[i].file
	}
	if file != "" {
		file = rebase(r.root, file)
	} else {
		names := make([]string, len(suites))
		for i, s := range suites {
			names[i] = s.name
		}
		file = strings.Join(names, "/")
	}
	class := attr(t, "classname")
	if class == "" {
		class = attr(t, "class")
	}
	if class == file {
		class = ""
	}
	name, params := splitParams(attr(t, "name"))
	tc := &testCase{id: ID{File: file, Class: class, Name: name, Params: params}}
	if secs, err := strconv.ParseFloat(attr(t, "time"), 64); err == nil && secs > 0 && secs < 1e9 {
		tc.duration = time.Duration(secs * float64(time.Second))
	}
	tc.result = Result{ID: tc.id, Outcome: Passed, Duration: tc.duration}
	return tc
}

// element reads an element inside a test case: the first failure, error
// or skipped decides its outcome (an error over a failure).
func (tc *testCase) element(t xml.StartElement) {
	var outcome Outcome
	switch t.Name.Local {
	case "failure":
		outcome = Failed
	case "error":
		outcome = Error
	case "skipped":
		outcome = Skipped
		if attr(t, "type") == "pytest.xfail" {
			outcome = XFailed
		}
	default:
		return
	}
	if rank[outcome] <= rank[tc.result.Outcome] && tc.result.Outcome != Passed {
		return
	}
	tc.result.Outcome = outcome
	tc.result.Message = bound(firstLine(attr(t, "message")), maxMessage)
	tc.result.Phase = ""
	if outcome.Failing() {
		tc.result.Phase = "call"
	}
	tc.text.Reset()
	tc.in = t.Name.Local
}

// finish records a test case's result.
func (r *junitReader) finish(p *Process, tc *testCase) {
	res := tc.result
	text := strings.TrimSpace(tc.text.String())
	if res.Outcome != Passed {
		if res.Message == "" {
			res.Message = bound(firstLine(text), maxMessage)
		}
		res.Longrepr = bound(text, maxLongrepr)
	}
	p.Collected++
	if res.Outcome.Failing() {
		p.Failing++
	}
	r.rep.add(res)
}

// rebase names an absolute path p inside the workspace root relative to
// it.
func rebase(root, p string) string {
	if rel, ok := strings.CutPrefix(path.Clean(p), strings.TrimSuffix(root, "/")+"/"); ok && path.IsAbs(p) {
		return rel
	}
	return p
}

// splitParams splits a test name ending in a bracketed parameter id
// ("test_add[1-2]", "add(int, int)[3]") into the name and the id.
func splitParams(name string) (string, string) {
	if !strings.HasSuffix(name, "]") {
		return name, ""
	}
	i := strings.IndexByte(name, '[')
	if i <= 0 {
		return name, ""
	}
	return name[:i], name[i+1 : len(name)-1]
}

// attr returns the value of an element's attribute called name (any
// namespace), or "".
func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
