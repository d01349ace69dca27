package feedback

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/testsupport/goldenfile"

	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/pipeline/harness/harnesstest"
	"github.com/capsulehq/capsule/sandbox/agent"
)

var update = flag.Bool("update", false, "run the fixtures in the sandbox again and rewrite the captured outputs and golden files in testdata")

// workspace stands for the fixture's directory in captured output, so that
// it reads the same wherever the fixture ran.
const workspace = "/workspace"

// fixture is one real run: a directory under testdata/cases with the code
// and tests, the captured output (run.txt) and the refined message
// (feedback.golden).
type fixture struct {
	name    string
	style   Style
	entry   string        // HumanEval entry point, for the Function style
	timeout time.Duration // the harness's CPU-time limit
	maxLen  int
	argv    []string // command of a project fixture; nil runs the harness
}

var (
	pytestArgv   = []string{harness.Python, "-m", "pytest", "-q", "-p", "no:cacheprovider"}
	unittestArgv = []string{harness.Python, "-m", "unittest"}
)

var fixtures = []fixture{
	{name: "humaneval_assertion", entry: "add"},
	{name: "humaneval_float", entry: "mean_absolute_deviation"},
	{name: "mbpp_assertion"},
	{name: "assertion_message"},
	{name: "assertion_in_solution"},
	{name: "name_error", entry: "count_vowels"},
	{name: "unbound_local", entry: "count_vowels"},
	{name: "missing_entry_point", entry: "count_vowels"},
	{name: "candidate_in_solution", entry: "largest_prime_factor"},
	{name: "recursion", entry: "fib"},
	{name: "timeout", entry: "is_prime", timeout: time.Second},
	{name: "syntax_error", entry: "below_zero"},
	{name: "indentation_error", entry: "truncate_number"},
	{name: "import_error"},
	{name: "type_error", entry: "concatenate"},
	{name: "value_error", entry: "parse_music"},
	{name: "index_error"},
	{name: "key_error"},
	{name: "attribute_error", entry: "sort_words"},
	{name: "zero_division"},
	{name: "stdlib_frames", entry: "load_config"},
	{name: "other_exception"},
	{name: "chained"},
	{name: "exit_called"},
	{name: "early_exit"},
	{name: "long_trace", entry: "walk", maxLen: 900},
	{name: "long_values", entry: "squares", maxLen: 600},
	{name: "noisy_stdout"},
	{name: "pytest_calc", style: Pytest, argv: pytestArgv},
	{name: "pytest_collection_error", style: Pytest, argv: pytestArgv},
	{name: "pytest_conftest_error", style: Pytest, argv: pytestArgv},
	{name: "unittest_calc", style: Unittest, argv: unittestArgv},
	{name: "bigcodebench_unittest", entry: "task_func"},
	{name: "generic_script", style: Generic, argv: []string{harness.Python, "main.py"}},
	{name: "no_output", style: Generic, argv: []string{harness.Python, "quiet.py"}},
}

func (f fixture) dir() string { return filepath.Join("testdata", "cases", f.name) }

// input builds the Input of the captured run as the executor would.
func (f fixture) input(out harnesstest.Output) Input {
	in := Input{Stdout: out.Stdout, Stderr: out.Stderr, ExitCode: out.ExitCode, Style: f.style, MaxLen: f.maxLen}
	if f.style != Function {
		in.Workspace = workspace
		return in
	}
	res := harness.ParseOutput(out.ExitCode, out.Stdout, out.Stderr)
	in.Stdout, in.Stderr, in.TimedOut, in.CPULimited = res.Stdout, res.Stderr, res.TimedOut, res.CPULimited
	in.EntryPoint, in.Timeout = f.entry, f.timeout
	if in.Timeout == 0 {
		in.Timeout = harness.DefaultCPULimit
	}
	return in
}

func TestFixtures(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			if *update {
				out := capture(t, f)
				if err := os.WriteFile(filepath.Join(f.dir(), "run.txt"), formatRun(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(filepath.Join(f.dir(), "run.txt"))
			if err != nil {
				t.Fatalf("%v (run go test -run TestFixtures -update)", err)
			}
			out, err := parseRun(data)
			if err != nil {
				t.Fatal(err)
			}
			fb := Refine(f.input(out))
			got := fmt.Sprintf("kind: %s\n\n%s\n", fb.Kind, fb.Message)
			golden(t, filepath.Join(f.dir(), "feedback.golden"), got)
			if limit := cmp.Or(f.maxLen, DefaultMaxLen); len([]rune(fb.Message)) > limit {
				t.Errorf("message has %d characters, more than %d", len([]rune(fb.Message)), limit)
			}
		})
	}
}

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	goldenfile.Check(t, path, got, *update)
}

// capture runs a fixture in a fresh workspace and returns its output, with
// the workspace's path replaced by workspace and run times made constant.
func capture(t *testing.T, f fixture) harnesstest.Output {
	t.Helper()
	runner := fixtureRunner(t, f)
	dir := t.TempDir()
	if err := copySources(f.dir(), dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var (
		out harnesstest.Output
		err error
	)
	if f.argv != nil {
		out, err = runner.Run(ctx, dir, f.argv)
	} else {
		prog := harness.Program{EntryPoint: f.entry, CPULimit: f.timeout}
		prog.Solution, prog.Tests = readFile(t, dir, harness.SolutionFile), readFile(t, dir, harness.TestsFile)
		out, err = harnesstest.RunProgram(ctx, runner, dir, prog)
	}
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{dir, agent.Workspace}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		paths = append(paths, real)
	}
	for _, p := range paths {
		out.Stdout = strings.ReplaceAll(out.Stdout, p, workspace)
		out.Stderr = strings.ReplaceAll(out.Stderr, p, workspace)
	}
	out.Stdout = durationRe.ReplaceAllString(out.Stdout, "in 0.01s")
	out.Stderr = durationRe.ReplaceAllString(out.Stderr, "in 0.01s")
	return out
}

// durationRe matches the run time pytest and unittest report, which
// capture sets to one value so that fixtures change only with behaviour.
var durationRe = regexp.MustCompile(`\bin \d+\.\d+s\b`)

// fixtureRunner returns the Runner that makes a fixture: the sandbox.
func fixtureRunner(t *testing.T, _ fixture) harnesstest.Runner {
	return sandboxFixtureRunner(t)
}

// copySources copies a fixture's code, not its captured output and golden
// files, into dir.
func copySources(from, dir string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Name() == "run.txt" || strings.HasSuffix(d.Name(), ".golden") {
			return nil
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return fmt.Errorf("copy %s: %w", path, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("copy %s: %w", path, err)
		}
		return harnesstest.WriteFiles(dir, map[string][]byte{filepath.ToSlash(rel): data})
	})
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The captured output of a run is stored as
//
//	exit_code: 1
//	-- stdout --
//	<stdout>
//	-- stderr --
//	<stderr>
//
// with stdout and stderr exactly as captured.
const (
	stdoutMark = "-- stdout --\n"
	stderrMark = "\n-- stderr --\n"
)

func formatRun(out harnesstest.Output) []byte {
	return []byte("exit_code: " + strconv.Itoa(out.ExitCode) + "\n" + stdoutMark + out.Stdout + stderrMark + out.Stderr)
}

func parseRun(data []byte) (harnesstest.Output, error) {
	head, rest, ok := bytes.Cut(data, []byte(stdoutMark))
	if !ok {
		return harnesstest.Output{}, fmt.Errorf("run file: no %q", stdoutMark)
	}
	code, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(head), "exit_code:")))
	if err != nil {
		return harnesstest.Output{}, fmt.Errorf("run file: exit code: %w", err)
	}
	stdout, stderr, ok := bytes.Cut(rest, []byte(stderrMark))
	if !ok {
		return harnesstest.Output{}, fmt.Errorf("run file: no %q", stderrMark)
	}
	return harnesstest.Output{ExitCode: code, Stdout: string(stdout), Stderr: string(stderr)}, nil
}
