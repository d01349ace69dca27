package testreport

import (
	"flag"
	"maps"
	"os"
	"os/exec"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/gotest.jsonl by running go test -json on testdata/gomod")

// goFixture returns the output of `go test -json ./...` on the module in
// testdata/gomod; with -update it runs it again, in a copy of the module.
func goFixture(t *testing.T) []byte {
	t.Helper()
	const fixture = "testdata/gotest.jsonl"
	if !*update {
		data, err := os.ReadFile(fixture)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/gomod")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-json", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	out, err := cmd.Output()
	if _, failed := err.(*exec.ExitError); err != nil && !failed {
		t.Fatal(err)
	}
	if err := os.WriteFile(fixture, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestParseGoTest(t *testing.T) {
	rep := ParseGoTest(goFixture(t))
	got := map[string]Outcome{}
	for id, res := range rep.Tests {
		got[id.String()] = res.Outcome
	}
	const pkg = "example.com/tiny/"
	want := map[string]Outcome{
		pkg + "calc::TestAdd":             Passed,
		pkg + "calc::TestWrong":           Failed,
		pkg + "calc::TestTable":           Failed,
		pkg + "calc::TestTable/small":     Passed,
		pkg + "calc::TestTable/wrong_sum": Failed,
		pkg + "calc::TestSkipped":         Skipped,
		pkg + "exits::TestFirst":          Passed,
		pkg + "exits::TestExit":           Failed,
		pkg + "panics::TestOK":            Passed,
		pkg + "panics::TestPanic":         Failed,
	}
	if !maps.Equal(got, want) {
		t.Errorf("tests = %v\nwant %v", got, want)
	}
	if !rep.Complete() {
		t.Errorf("incomplete: %s", rep.Incomplete())
	}
	wrong := rep.Tests[ID{File: pkg + "calc", Name: "TestWrong"}]
	if wrong.Message != "calc_test.go:13: Add(2, 2) = 4, want 5" || !strings.Contains(wrong.Longrepr, "--- FAIL: TestWrong") {
		t.Errorf("TestWrong: message %q, longrepr %q", wrong.Message, wrong.Longrepr)
	}
	if skip := rep.Tests[ID{File: pkg + "calc", Name: "TestSkipped"}]; !strings.Contains(skip.Message, "not today") {
		t.Errorf("TestSkipped: message %q", skip.Message)
	}
	if p := rep.Tests[ID{File: pkg + "panics", Name: "TestPanic"}]; !strings.Contains(p.Longrepr, "panic: boom") {
		t.Errorf("TestPanic: longrepr %q", p.Longrepr)
	}
	byName := map[string]Process{}
	for _, p := range rep.Processes {
		byName[p.Name] = p
	}
	if broken := byName[pkg+"broken"]; !broken.Ended || broken.ExitStatus != 1 || len(broken.CollectErrors) != 1 ||
		broken.CollectErrors[0].Path != pkg+"broken" || !strings.Contains(broken.CollectErrors[0].Message, "undefined: undefined") {
		t.Errorf("broken = %+v", broken)
	}
	if calc := byName[pkg+"calc"]; calc.Collected != 4 || calc.ExitStatus != 1 {
		t.Errorf("calc = %+v", calc)
	}
	if n := byName[pkg+"notests"]; !n.Ended || n.ExitStatus != 0 || n.Collected != 0 {
		t.Errorf("notests = %+v", n)
	}
}

func TestParseGoTestCut(t *testing.T) {
	// The stream ends inside the calc package: it never ends, and the
	// test it was running is not reported. Cut inside a line, that line
	// is malformed too.
	data := string(goFixture(t))
	mid := strings.Index(data, `"Test":"TestSkipped"`)
	lineStart := strings.LastIndex(data[:mid], "\n") + 1
	rep := ParseGoTest([]byte(data[:lineStart]))
	if !strings.Contains(rep.Incomplete(), "example.com/tiny/calc") || rep.MalformedLines != 0 {
		t.Errorf("Incomplete() = %q", rep.Incomplete())
	}
	if _, ok := rep.Tests[ID{File: "example.com/tiny/calc", Name: "TestSkipped"}]; ok {
		t.Error("a test that did not run is reported")
	}
	rep = ParseGoTest([]byte(data[:mid]))
	if rep.MalformedLines != 1 || rep.Complete() {
		t.Errorf("%d malformed lines, want the cut one", rep.MalformedLines)
	}
}

func TestParseGoTestUnfinished(t *testing.T) {
	// A package that ends while a test runs fails that test.
	rep := ParseGoTest([]byte(`go: downloading example.com/x v1.0.0
{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestHang"}
{"Action":"output","Package":"p","Test":"TestHang","Output":"=== RUN   TestHang\n"}
{"Action":"output","Package":"p","Output":"panic: test timed out after 1s\n"}
{"Action":"fail","Package":"p","Elapsed":1}
`))
	res := rep.Tests[ID{File: "p", Name: "TestHang"}]
	if res.Outcome != Failed || !strings.Contains(res.Message, "did not finish") {
		t.Errorf("TestHang = %+v", res)
	}
	if !rep.Complete() {
		t.Errorf("incomplete: %s", rep.Incomplete())
	}
}
