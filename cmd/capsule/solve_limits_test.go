package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/testsupport/calculatortest"
	"github.com/capsulehq/capsule/testsupport/sandboxtest"
)

// limitsTest is a test file the model may add: it passes only when the
// sandbox has the given cores (quota over period), a memory limit in
// [low, high) bytes, on cgroup v1 or v2, and a workspace of disk bytes.
func limitsTest(cpus float64, low, high, disk int64) string {
	return fmt.Sprintf(`def read(*names):
    for name in names:
        try:
            with open(name) as f:
                return f.read().split()
        except OSError:
            pass
    raise AssertionError("none of %%s" %% (names,))


def test_cpus():
    try:
        quota, period = read("/sys/fs/cgroup/cpu.max")
    except AssertionError:
        quota = read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us")[0]
        period = read("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us")[0]
    assert int(quota) / int(period) == %g, (quota, period)


def test_memory():
    limit = int(read("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")[0])
    assert %d <= limit < %d, limit


def test_disk():
    import os
    st = os.statvfs(".")
    assert st.f_blocks * st.f_frsize == %d, st
`, cpus, low, high, disk)
}

// TestSolveCapsRepositoryLimits runs a repository whose configuration asks
// for far more than the operator allows: every value is cut, the cuts are
// said, and the sandbox gets the capped memory and cores.
func TestSolveCapsRepositoryLimits(t *testing.T) {
	sandboxtest.Engine(t)
	config := "test: python3 -m pytest -q -p no:cacheprovider\nmax_attempts: 1000000\ntimeout: 10000h\nhistory: 40\nmemory: 64g\ncpus: 64\ndisk: 64g\n"
	t.Setenv("CAPSULE_MAX_ATTEMPTS", "2")
	t.Setenv("CAPSULE_MAX_TIMEOUT", "2m")
	t.Setenv("CAPSULE_MAX_MEMORY", "1g")
	t.Setenv("CAPSULE_MAX_CPUS", "1.5")
	t.Setenv("CAPSULE_MAX_DISK", "256m")
	notes := []string{
		"capsule solve: max_attempts 1000000 in .github/capsule.yml capped to 2 by the operator\n",
		"capsule solve: timeout 10000h0m0s in .github/capsule.yml capped to 2m0s by the operator\n",
		"capsule solve: history 40 in .github/capsule.yml capped to 5 by the operator\n",
		"capsule solve: memory 64 GiB in .github/capsule.yml capped to 1 GiB by the operator\n",
		"capsule solve: cpus 64 in .github/capsule.yml capped to 1.5 by the operator\n",
		"capsule solve: disk 64 GiB in .github/capsule.yml capped to 256 MiB by the operator\n",
	}

	t.Run("attempts", func(t *testing.T) {
		r := solveWith(t, exampleRepo(t, config), []string{calculatortest.Answer("calc/stats.py", calculatortest.WrongStats)})
		if r.code != exitFailure || len(r.server.Requests()) != 3 {
			t.Fatalf("exit %d after %d model calls, want 1 after 3 (1 + the capped 2)\n%s", r.code, len(r.server.Requests()), r.stderr)
		}
		for _, n := range notes {
			if !strings.Contains(r.stderr, n) {
				t.Errorf("stderr lacks %q:\n%s", n, r.stderr)
			}
		}
	})
	t.Run("sandbox", func(t *testing.T) {
		// The container may hold more than the tests' memory (its tmpfs
		// mounts count too), but far less than the 64 GiB asked for.
		answer := calculatortest.Answer("calc/stats.py", calculatortest.RightStats, "tests/test_limits.py", limitsTest(1.5, 1<<30, 8<<30, 256<<20))
		r := solveWith(t, exampleRepo(t, config), []string{answer})
		if r.code != exitOK {
			t.Fatalf("exit %d, want 0: the sandbox does not have the capped limits\n%s\n%s", r.code, r.stderr, readOut(t, r.out, attemptsMDFile))
		}
	})
}

// TestSolveBoundsAnswers checks that an answer too long to read, or one
// that changes too many files, is a failed attempt with feedback, and that
// the next attempt runs.
func TestSolveBoundsAnswers(t *testing.T) {
	sandboxtest.Engine(t)
	right := calculatortest.Answer("calc/stats.py", calculatortest.RightStats)
	many := calculatortest.Answer("calc/stats.py", calculatortest.RightStats, "calc/a.py", "A = 1\n", "calc/b.py", "B = 1\n", "calc/c.py", "C = 1\n")
	tests := []struct {
		name, env, value string
		first            string
		feedback         string
	}{
		{"too long", "CAPSULE_MAX_ANSWER_BYTES", "64k", right + strings.Repeat("padding ", 10_000),
			"Nothing was tested: your answer was longer than 64 KiB, the most that is read"},
		{"54 MB", "CAPSULE_MAX_ANSWER_BYTES", "4m", right + strings.Repeat("x", 54<<20),
			"Nothing was tested: your answer was longer than 4 MiB, the most that is read"},
		{"too many files", "CAPSULE_MAX_ANSWER_FILES", "3", many,
			"Nothing was tested: your answer gives 4 files, and one answer may change at most 3."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(tt.env, tt.value)
			r := solveWith(t, exampleRepo(t, ""), []string{tt.first, right})
			if r.code != exitOK || len(r.server.Requests()) != 2 {
				t.Fatalf("exit %d after %d model calls, want 0 after 2\n%s", r.code, len(r.server.Requests()), r.stderr)
			}
			req := r.server.Requests()[1]
			if fb := req.Messages[len(req.Messages)-1].Content; !strings.Contains(fb, tt.feedback) {
				t.Errorf("feedback lacks %q:\n%s", tt.feedback, fb)
			}
			if _, err := os.Stat(filepath.Join(r.out, attemptsJSONFile)); err != nil {
				t.Error(err)
			}
		})
	}
}

// forcePass is a conftest.py that turns every test outcome into a pass.
const forcePass = `import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None
`

// TestSolveRefusesForbiddenPaths checks, end to end, that an answer cannot
// write below .github/ through a symbolic link, even with --apply, nor
// change the test infrastructure unless the repository allows it.
func TestSolveRefusesForbiddenPaths(t *testing.T) {
	sandboxtest.Engine(t)
	right := calculatortest.Answer("calc/stats.py", calculatortest.RightStats)

	t.Run("symlinked .github", func(t *testing.T) {
		repo := exampleRepo(t, "")
		if err := os.Symlink(".github", filepath.Join(repo, "ghlink")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("ghlink", filepath.Join(repo, "chain")); err != nil {
			t.Fatal(err)
		}
		evil := calculatortest.Answer("calc/stats.py", calculatortest.RightStats,
			"ghlink/workflows/evil.yml", "on: push\n", "chain/workflows/evil2.yml", "on: push\n")
		r := solveWith(t, repo, []string{evil, right}, "--apply")
		if r.code != exitOK || len(r.server.Requests()) != 2 {
			t.Fatalf("exit %d after %d model calls, want 0 after 2\n%s", r.code, len(r.server.Requests()), r.stderr)
		}
		req := r.server.Requests()[1]
		fb := req.Messages[len(req.Messages)-1].Content
		for _, want := range []string{
			"ghlink/workflows/evil.yml leads to .github/workflows/evil.yml through a symbolic link",
			"chain/workflows/evil2.yml leads to .github/workflows/evil2.yml through a symbolic link",
		} {
			if !strings.Contains(fb, want) {
				t.Errorf("feedback lacks %q:\n%s", want, fb)
			}
		}
		if _, err := os.Lstat(filepath.Join(repo, ".github", "workflows")); err == nil {
			t.Error("--apply wrote below .github/")
		}
	})

	wrongWithConftest := calculatortest.Answer("calc/stats.py", calculatortest.WrongStats, "tests/conftest.py", forcePass)
	t.Run("conftest that passes everything", func(t *testing.T) {
		r := solveWith(t, exampleRepo(t, ""), []string{wrongWithConftest, right})
		if r.code != exitOK || len(r.server.Requests()) != 2 {
			t.Fatalf("exit %d after %d model calls, want 0 after 2\n%s", r.code, len(r.server.Requests()), r.stderr)
		}
		req := r.server.Requests()[1]
		if fb := req.Messages[len(req.Messages)-1].Content; !strings.Contains(fb, "you may not add tests/conftest.py, which is test infrastructure") {
			t.Errorf("feedback does not refuse the conftest.py:\n%s", fb)
		}
	})
	t.Run("conftest allowed by the repository", func(t *testing.T) {
		// The opt-out works, and shows what the rule prevents: the wrong
		// code passes at once.
		config := "test: python3 -m pytest -q -p no:cacheprovider\nallow_test_infrastructure_changes: true\n"
		r := solveWith(t, exampleRepo(t, config), []string{wrongWithConftest})
		if r.code != exitOK || len(r.server.Requests()) != 1 {
			t.Fatalf("exit %d after %d model calls, want 0 after 1\n%s", r.code, len(r.server.Requests()), r.stderr)
		}
	})
}
