package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// exampleRepo copies examples/calculator into a temp dir, with the config
// replaced when config is not empty.
func exampleRepo(t testing.TB, config string) string {
	t.Helper()
	dir := copyTree(t, filepath.Join("..", "..", "examples", "calculator"))
	if config != "" {
		if err := os.WriteFile(filepath.Join(dir, ".github", "capsule.yml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// reproducingRepo is the example without its tests of the empty list, so
// that the test designer is asked, and the designer's honest answer: a
// test that fails on the untouched tree.
func reproducingRepo(t *testing.T) (repo, designer string) {
	t.Helper()
	repo = exampleRepo(t, "")
	if err := os.WriteFile(filepath.Join(repo, "tests", "test_stats.py"), []byte(calculatortest.WithoutEmptyListTests(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	test := "from calc import mean\n\n\ndef test_mean_of_empty_list_is_zero():\n    assert mean([]) == 0.0\n"
	return repo, "It must return 0.0.\n\n### File: tests/test_capsule_reproduction.py\n```python\n" + test + "```\n"
}

type solveRun struct {
	code           int
	stdout, stderr string
	server         *fakeopenai.Server
	out            string
}

func solveWith(t *testing.T, repo string, answers []string, extra ...string) solveRun {
	t.Helper()
	var replies []fakeopenai.Response
	for _, a := range answers {
		replies = append(replies, fakeopenai.Reply(a))
	}
	srv := fakeopenai.New(t, fakeopenai.Sequence(replies...))
	out := t.TempDir()
	args := append([]string{"solve", "--repo", repo, "--issue", filepath.Join("..", "..", "examples", "calculator-issue.md"),
		"--base-url", srv.URL(), "--model", "fake", "--out", out}, extra...)
	code, stdout, stderr := capsule(t, args...)
	return solveRun{code: code, stdout: stdout, stderr: stderr, server: srv, out: out}
}

// noContainersLeft fails t when the engine still lists a container of
// this process.
func noContainersLeft(t *testing.T, eng *sandbox.Engine) {
	t.Helper()
	ids, err := eng.Owned(context.Background())
	if err != nil {
		t.Errorf("listing containers: %v", err)
	}
	if len(ids) > 0 {
		t.Errorf("containers left: %v", ids)
	}
}

func readOut(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestSolve(t *testing.T) {
	eng := sandboxtest.Engine(t)
	outside := func(repo string) []string {
		return []string{filepath.Join(filepath.Dir(repo), "x.py"), "/tmp/capsule-evil.py", filepath.Join(filepath.Dir(repo), "evil.py")}
	}
	tests := []struct {
		name     string
		answers  []string
		prepare  func(t *testing.T, repo string)
		code     int
		calls    int
		feedback string // in the feedback of the first attempt
	}{
		{name: "right first time", answers: []string{calculatortest.Answer("calc/stats.py", calculatortest.RightStats)}, code: exitOK, calls: 1},
		{name: "wrong then right", answers: []string{calculatortest.Answer("calc/stats.py", calculatortest.WrongStats), calculatortest.Answer("calc/stats.py", calculatortest.RightStats)}, code: exitOK, calls: 2,
			feedback: "test_mean_of_nothing_is_zero"},
		{name: "protected test refused then right",
			answers: []string{calculatortest.Answer("tests/test_stats.py", "def test_nothing():\n    pass\n"), calculatortest.Answer("calc/stats.py", calculatortest.RightStats)},
			code:    exitOK, calls: 2, feedback: "you may not modify tests/test_stats.py"},
		{name: "escapes refused",
			prepare: func(t *testing.T, repo string) {
				outside := filepath.Join(filepath.Dir(repo), "outside")
				if err := os.Mkdir(outside, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join("..", "outside"), filepath.Join(repo, "link")); err != nil {
					t.Fatal(err)
				}
			},
			answers: []string{calculatortest.Answer("../x.py", "x = 1\n", "/tmp/capsule-evil.py", "x = 1\n", "link/evil.py", "x = 1\n"), calculatortest.Answer("calc/stats.py", calculatortest.RightStats)},
			code:    exitOK, calls: 2, feedback: "../x.py"},
		{name: "no code then right", answers: []string{"I would add a check for the empty list.", calculatortest.Answer("calc/stats.py", calculatortest.RightStats)}, code: exitOK, calls: 2,
			feedback: "### File:"},
		{name: "example calls removed", answers: []string{calculatortest.Answer("calc/stats.py", calculatortest.RightStats+"\nprint(mean([1, 2]))\nanswer = input()\ninput('press enter')\nif __name__ == '__main__':\n    print(median([3]))\n")},
			code: exitOK, calls: 1},
		{name: "never right", answers: []string{calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)}, code: exitFailure, calls: 6},
		{name: "a no-op on tests that pass, with reproduce off, is unproven",
			prepare: func(t *testing.T, repo string) {
				if err := os.WriteFile(filepath.Join(repo, "tests", "test_stats.py"), []byte(calculatortest.WithoutEmptyListTests(t)), 0o644); err != nil {
					t.Fatal(err)
				}
				config := calculatortest.Files(t)[".github/capsule.yml"] + "reproduce: off\n"
				if err := os.WriteFile(filepath.Join(repo, ".github", "capsule.yml"), []byte(config), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			answers: []string{calculatortest.Answer("calc/ops.py", "# Looked at it.\n"+calculatortest.Files(t)["calc/ops.py"])},
			code:    exitUnproven, calls: 1},
	}
	// The cases run side by side; containers left behind are looked for
	// once they have all ended.
	t.Cleanup(func() { noContainersLeft(t, eng) })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := exampleRepo(t, "")
			if tt.prepare != nil {
				tt.prepare(t, repo)
			}
			r := solveWith(t, repo, tt.answers)
			if r.code != tt.code || len(r.server.Requests()) != tt.calls {
				t.Fatalf("exit %d after %d model calls, want %d after %d\nstderr:\n%s", r.code, len(r.server.Requests()), tt.code, tt.calls, r.stderr)
			}
			for _, p := range outside(repo) {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s was written outside the repository", p)
				}
			}
			if tt.feedback != "" {
				req := r.server.Requests()[1]
				if fb := req.Messages[len(req.Messages)-1].Content; !strings.Contains(fb, tt.feedback) {
					t.Errorf("feedback lacks %q:\n%s", tt.feedback, fb)
				}
			}
			md := readOut(t, r.out, attemptsMDFile)
			verdict := map[int]string{exitOK: "**Solved**", exitUnproven: "**Tests pass, but nothing shows that the issue is fixed**", exitFailure: "**Tests do not pass.**"}[tt.code]
			if !strings.Contains(md, verdict) {
				t.Errorf("attempts.md does not say the outcome plainly:\n%s", md)
			}
			if data, _ := os.ReadFile(filepath.Join(repo, "calc", "stats.py")); strings.Contains(string(data), "if not values") {
				t.Error("the repository was changed without --apply")
			}
		})
	}
}

// TestSolveReproduces: the repository has no test of the empty list, so
// the test designer, on the operator's --test-model, writes one that fails
// on the untouched tree; the fix makes it pass, solve exits 0, and the
// patch carries the test.
func TestSolveReproduces(t *testing.T) {
	sandboxtest.Engine(t)
	repo, designer := reproducingRepo(t)
	r := solveWith(t, repo, []string{designer, calculatortest.Answer("calc/stats.py", calculatortest.RightStats)}, "--test-model", "designer")
	if r.code != exitOK {
		t.Fatalf("exit %d, want 0 (solved)\n%s", r.code, r.stderr)
	}
	reqs := r.server.Requests()
	if len(reqs) != 2 || reqs[0].Model != "designer" || reqs[1].Model != "fake" {
		t.Errorf("%d model calls; want the designer's on its model, then the programmer's", len(reqs))
	}
	if patch := readOut(t, r.out, patchFile); !strings.Contains(patch, "+++ b/tests/test_capsule_reproduction.py") {
		t.Errorf("the patch lacks the reproducing test:\n%s", patch)
	}
	if md := readOut(t, r.out, attemptsMDFile); !strings.Contains(md, "| `tests/test_capsule_reproduction.py::test_mean_of_empty_list_is_zero` | failed | passed |") {
		t.Errorf("attempts.md lacks the proof:\n%s", md)
	}
}

// TestPatchApplies applies patch.diff with git apply to a fresh copy of the
// repository and runs its tests there.
func TestPatchApplies(t *testing.T) {
	eng := sandboxtest.Engine(t)
	r := solveWith(t, exampleRepo(t, ""), []string{calculatortest.Answer("calc/stats.py", calculatortest.RightStats)})
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	fresh := exampleRepo(t, "")
	cmd := exec.Command("git", "apply", "--verbose", filepath.Join(r.out, patchFile))
	cmd.Dir = fresh
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s", err, out)
	}
	spec := sandbox.Spec{Image: image.Default(), Workspace: fresh, Limits: sandbox.DefaultLimits()}
	res, err := eng.Run(context.Background(), spec, sandbox.Run{Cmd: []string{"python3", "-m", "pytest", "-q", "-p", "no:cacheprovider"}})
	if err != nil || !res.Passed() {
		t.Fatalf("tests after git apply: %v\n%s%s", err, res.Stdout, res.Stderr)
	}
}

func TestSolveApply(t *testing.T) {
	sandboxtest.Engine(t)
	repo := exampleRepo(t, "")
	r := solveWith(t, repo, []string{calculatortest.Answer("calc/stats.py", calculatortest.RightStats)}, "--apply")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(repo, "calc", "stats.py")); string(got) != calculatortest.RightStats {
		t.Errorf("--apply did not write the change:\n%s", got)
	}
}

// TestSolveHostileTests checks that suites that hang, flood output or fork
// without end each end with exit 1 and a clear reason within the timeout.
// A flood or a fork bomb must reach its limit before the timeout: theirs
// leaves room for pytest's start, seconds on a busy machine. A hang times
// out after the attempts' time, which the log states: the configured
// timeout, or three times a slow baseline's.
func TestSolveHostileTests(t *testing.T) {
	eng := sandboxtest.Engine(t)
	hanging := strings.Replace(calculatortest.RightStats, "    if not values:\n        return 0.0\n    return divide(sum(values), len(values))", "    while True:\n        pass", 1)
	tests := []struct {
		name, stats, reason string
		timeout             time.Duration
	}{
		{"hangs", hanging, "timed out after ", 4 * time.Second},
		{"prints without end", calculatortest.RightStats + "\nwhile True:\n    print('x' * 1000)\n", "output capped", 15 * time.Second},
		{"forks without end", calculatortest.RightStats + "\nimport os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n", "process limit", 15 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// -s lets output through pytest's capture (a file in /tmp, which
			// a flood fills at once) to the sandbox's capped streams.
			config := fmt.Sprintf("test: python3 -m pytest -q -x -s\ntimeout: %s\nmax_attempts: 0\n", tt.timeout)
			start := time.Now()
			r := solveWith(t, exampleRepo(t, config), []string{calculatortest.Answer("calc/stats.py", tt.stats)})
			took := time.Since(start)
			if r.code != exitFailure {
				t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
			}
			md := readOut(t, r.out, attemptsMDFile)
			reason, timeout := tt.reason, tt.timeout
			if strings.HasPrefix(reason, "timed out") {
				m := attemptTimeRE.FindStringSubmatch(md)
				if m == nil {
					t.Fatalf("the log states no time for the attempts:\n%s", md[:min(len(md), 2000)])
				}
				reason += m[1]
				timeout, _ = time.ParseDuration(m[1])
				if timeout < tt.timeout {
					t.Errorf("the attempts had %s, less than the timeout of %s", timeout, tt.timeout)
				}
			}
			if !strings.Contains(md, reason) && !strings.Contains(r.stderr, reason) {
				t.Errorf("no clear reason %q:\nstderr: %s\n%s", reason, r.stderr, md[:min(len(md), 2000)])
			}
			if took > timeout+30*time.Second {
				t.Errorf("took %s with a %s timeout", took, timeout)
			}
			noContainersLeft(t, eng)
		})
	}
}

// attemptTimeRE finds the time each attempt's run may take in attempts.md.
var attemptTimeRE = regexp.MustCompile(`each later run may take ([0-9hms.]+):`)

func TestSolveUsageErrors(t *testing.T) {
	broken := exampleRepo(t, "label: capsule\ntset: python3 -m pytest\ntimeout: soon\n")
	noTests := t.TempDir()
	os.WriteFile(filepath.Join(noTests, "README.md"), []byte("nothing to test\n"), 0o644)
	issue := filepath.Join("..", "..", "examples", "calculator-issue.md")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"broken config", []string{"solve", "--repo", broken, "--issue", issue, "--model", "m", "--base-url", "http://127.0.0.1:1/v1"},
			[]string{".github/capsule.yml:2", `"tset"`, ".github/capsule.yml:3"}},
		{"no test command", []string{"solve", "--repo", noTests, "--issue", issue, "--model", "m", "--base-url", "http://127.0.0.1:1/v1"},
			[]string{"test:"}},
		{"missing repo", []string{"solve", "--repo", "/no/such/repo", "--issue", issue}, []string{"/no/such/repo"}},
		{"missing issue", []string{"solve", "--repo", broken, "--issue", "/no/such/issue.md"}, []string{"/no/such/issue.md"}},
		{"no flags", []string{"solve"}, []string{"need --repo DIR and --issue"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := capsule(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d\n%s", code, exitUsage, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestReadIssue(t *testing.T) {
	tests := []struct{ in, title, body string }{
		{"# Title\n\nBody text\n", "Title", "Body text"},
		{"Intro\n# Title\nBody", "Title", "Intro\nBody"},
		{"No heading\nsecond line", "No heading", "second line"},
		{"\r\n# T\r\nB\r\n", "T", "B"},
	}
	for _, tt := range tests {
		title, body, err := readIssue("-", strings.NewReader(tt.in))
		if err != nil || title != tt.title || body != tt.body {
			t.Errorf("readIssue(%q) = %q, %q, %v; want %q, %q", tt.in, title, body, err, tt.title, tt.body)
		}
	}
	if _, _, err := readIssue("-", strings.NewReader("  \n")); err == nil {
		t.Error("an empty issue was accepted")
	}
}

// TestSolveSetup runs a set-up command that installs a local package with
// pip; the tests import it in every later run.
func TestSolveSetup(t *testing.T) {
	sandboxtest.Engine(t)
	tests := []struct {
		name, setup string
		code        int
		want        string
	}{
		{"installs for every run", "pip install --user --no-index --no-build-isolation ./vendor/greet", exitOK, "Set-up: `sh -c 'pip install"},
		{"failing set-up", "exit 3", exitFailure, "The set-up failed: exit status 3."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := exampleRepo(t, "test: python3 -m pytest -q\nsetup: "+tt.setup+"\n")
			writeFiles(t, repo, greetPackage(""))
			r := solveWith(t, repo, []string{calculatortest.Answer("calc/stats.py", calculatortest.WrongStats), calculatortest.Answer("calc/stats.py", calculatortest.RightStats)})
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			if md := readOut(t, r.out, attemptsMDFile); !strings.Contains(md, tt.want) {
				t.Errorf("attempts.md lacks %q:\n%s", tt.want, md)
			}
			if n := len(r.server.Requests()); tt.code == exitFailure && n != 0 {
				t.Errorf("the set-up failed, and %d requests reached the model", n)
			}
		})
	}
}
