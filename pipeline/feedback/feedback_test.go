package feedback

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/capsulehq/capsule/pipeline/harness/harnesstest"
)

// loadRun returns the captured output of the named fixture.
func loadRun(t testing.TB, name string) harnesstest.Output {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "cases", name, "run.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := parseRun(data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fixtureNamed returns the fixture of that name.
func fixtureNamed(t testing.TB, name string) fixture {
	t.Helper()
	for _, f := range fixtures {
		if f.name == name {
			return f
		}
	}
	t.Fatalf("no fixture %q", name)
	return fixture{}
}

func TestRefineTimeout(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"flag", Input{TimedOut: true, Timeout: 2500 * time.Millisecond, Style: Pytest, Stdout: "..F"}, "the time limit of 2.5 seconds"},
		{"harness exit status", Input{ExitCode: 124, Style: Function}, "ran past the time limit and"},
		{"one second", Input{TimedOut: true, Timeout: time.Second, Style: Generic}, "the time limit of 1 second "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := Refine(tt.in)
			if fb.Kind != KindTimeout || !strings.Contains(fb.Message, tt.want) {
				t.Errorf("Refine = %+v, want kind timeout and %q", fb, tt.want)
			}
		})
	}
	if fb := Refine(Input{ExitCode: 124, Style: Generic}); fb.Kind == KindTimeout {
		t.Errorf("exit status 124 of a generic command read as a timeout: %+v", fb)
	}
}

// TestRefineMaxLen cuts real messages to many lengths.
func TestRefineMaxLen(t *testing.T) {
	tests := []struct {
		fixture string
		maxLen  int
		keep    []string // must survive the cut
	}{
		{"long_trace", 300, []string{"KeyError: 'missing'", "characters cut", `File "tests.py", line 2, in check`}},
		{"long_trace", 200, []string{"KeyError: 'missing'"}},
		{"unittest_calc", 700, []string{"unittest: Ran 5 tests", "ZeroDivisionError: division by zero", "AssertionError: 5 != 4"}},
		{"pytest_calc", 400, []string{"pytest: 5 failed, 3 passed", "E       assert 5 == 4", "(1 more kind of failure not shown.)"}},
		{"humaneval_assertion", 60, nil},
		{"humaneval_assertion", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			f := fixtureNamed(t, tt.fixture)
			f.maxLen = tt.maxLen
			fb := Refine(f.input(loadRun(t, tt.fixture)))
			if n := utf8.RuneCountInString(fb.Message); n > tt.maxLen || n == 0 {
				t.Errorf("message of %d characters with MaxLen %d:\n%s", n, tt.maxLen, fb.Message)
			}
			for _, s := range tt.keep {
				if !strings.Contains(fb.Message, s) {
					t.Errorf("message lacks %q:\n%s", s, fb.Message)
				}
			}
		})
	}
}

func TestRefinePlain(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		kind string
		want string
	}{
		{"nothing", Input{ExitCode: 2, Stdout: "\n", Style: Generic}, KindNoOutput, "exit status 2 and printed nothing"},
		{"passed", Input{Style: Function}, KindNoOutput, "exit status 0 and printed nothing"},
		{"no traceback", Input{ExitCode: 1, Stdout: "make: *** [test] Error 1\n", Style: Generic}, KindOther, "make: *** [test] Error 1"},
		{"pytest without report", Input{ExitCode: 4, Stderr: "ERROR: file or directory not found: tests\n", Style: Pytest}, KindOther, "file or directory not found"},
		{"invalid UTF-8", Input{ExitCode: 1, Stderr: "bad \xff byte\n", Style: Unittest}, KindOther, "bad \uFFFD byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := Refine(tt.in)
			if fb.Kind != tt.kind || !strings.Contains(fb.Message, tt.want) {
				t.Errorf("Refine = %+v, want kind %s and %q", fb, tt.kind, tt.want)
			}
		})
	}
}

// TestRefineNoteOutsideFunction checks that only the Function style
// renames HumanEval's candidate.
func TestRefineNoteOutsideFunction(t *testing.T) {
	out := loadRun(t, "humaneval_assertion")
	fb := Refine(Input{Stderr: out.Stderr, ExitCode: out.ExitCode, Style: Generic, EntryPoint: "add"})
	if fb.Kind != KindAssertion || !strings.Contains(fb.Message, "assert candidate(5, 7) == 12") {
		t.Errorf("Refine = %+v, want the test quoted as it is", fb)
	}
}

func TestRaw(t *testing.T) {
	long := strings.Repeat("line of output\n", 2000) + "ValueError: the end\n"
	tests := []struct {
		name string
		in   Input
		want []string
		max  int
	}{
		{"both streams", Input{Stdout: "out\n", Stderr: "err\n", ExitCode: 1}, []string{"out\nerr"}, 20000},
		{"nothing", Input{ExitCode: 3}, []string{"The run printed nothing (exit status 3)."}, 20000},
		{"timed out", Input{Stderr: "busy\n", TimedOut: true, Timeout: 10 * time.Second}, []string{"busy\nThe run was stopped at the time limit of 10 seconds."}, 20000},
		{"default cap", Input{Stdout: long, MaxLen: 100}, []string{"characters cut", "ValueError: the end"}, 1000},
		{"own cap", Input{Stdout: long, RawMaxLen: 500}, []string{"line of output", "ValueError: the end"}, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := Raw(tt.in)
			if fb.Kind != KindRaw {
				t.Errorf("Kind = %q, want raw", fb.Kind)
			}
			if n := utf8.RuneCountInString(fb.Message); n > tt.max {
				t.Errorf("message of %d characters, want at most %d", n, tt.max)
			}
			for _, s := range tt.want {
				if !strings.Contains(fb.Message, s) {
					t.Errorf("message lacks %q:\n%s", s, fb.Message)
				}
			}
		})
	}
}

func TestStyleString(t *testing.T) {
	for s, want := range map[Style]string{Function: "function", Pytest: "pytest", Unittest: "unittest", Generic: "generic", Style(9): "Style(9)"} {
		if got := s.String(); got != want {
			t.Errorf("Style(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}

// TestRefineHugeOutput reads a traceback at the end of megabytes of output.
func TestRefineHugeOutput(t *testing.T) {
	out := loadRun(t, "key_error")
	noise := strings.Repeat("debug print from the code\n", 200000)
	fb := Refine(Input{Stdout: noise, Stderr: noise + out.Stderr, ExitCode: out.ExitCode, Style: Function})
	if fb.Kind != KindKey || !strings.Contains(fb.Message, "KeyError: 4") {
		t.Errorf("Refine = %+v, want the KeyError", fb)
	}
}
