package repo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// hostCargo is the environment that runs the host's cargo offline, with
// one target directory for the test's runs; it fails the test when CI is
// set and there is no cargo, and skips it otherwise (the sandbox's Rust
// image runs a real project in cmd/capsule's tests).
func hostCargo(t *testing.T) []string {
	t.Helper()
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cargo is not on PATH: %v", err)
		}
		t.Skipf("cargo is not on PATH: %v", err)
	}
	env := []string{"PATH=" + filepath.Dir(cargo) + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + os.Getenv("HOME"),
		"CARGO_TARGET_DIR=" + t.TempDir(), "CARGO_NET_OFFLINE=true", "CARGO_TERM_COLOR=never"}
	for _, k := range []string{"RUSTUP_HOME", "CARGO_HOME", "RUSTUP_TOOLCHAIN"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// TestRustReproduction: on a crate whose tests run under cargo test, the
// test designer is asked for an integration test that uses the crate by
// its library's name; a test that fails on the untouched tree gives the
// targets, named as cargo names its binary, a fix that makes it pass is
// solved, and a no-op is not. Refused designs (an inner attribute that
// changes the harness, a test that does not compile, with the compiler's
// error) go back to the designer; a programmer's .cargo/config.toml is
// refused.
func TestRustReproduction(t *testing.T) {
	env := hostCargo(t)
	tree := writeTree(t, map[string]string{
		"Cargo.toml":      "[package]\nname = \"tiny-stats\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs":      "//! Statistics.\n\n/// The mean of v, rounded down.\npub fn mean(v: &[i64]) -> i64 {\n    let s: i64 = v.iter().sum();\n    s / v.len() as i64\n}\n",
		"tests/basics.rs": "use tiny_stats::mean;\n\n#[test]\nfn mean_of_two() {\n    assert_eq!(mean(&[1, 3]), 2);\n}\n",
	})
	box := hostBox{t: t, tree: tree, env: env}

	const (
		feature   = "### File: tests/capsule_reproduction.rs\n```rust\n#![feature(custom_test_frameworks)]\n\n#[test]\nfn mean_of_nothing_is_zero() {}\n```\n"
		noCompile = "### File: tests/capsule_reproduction.rs\n```rust\nuse tiny_stats::average;\n\n#[test]\nfn mean_of_nothing_is_zero() {\n    assert_eq!(average(&[]), 0);\n}\n```\n"
		design    = "The mean of nothing should be 0.\n\n### File: tests/capsule_reproduction.rs\n```rust\nuse tiny_stats::mean;\n\n#[test]\nfn mean_of_nothing_is_zero() {\n    assert_eq!(mean(&[]), 0);\n}\n```\n"
		fix       = "### File: src/lib.rs\n```rust\n<<<<<<< SEARCH\n    let s: i64 = v.iter().sum();\n=======\n    if v.is_empty() {\n        return 0;\n    }\n    let s: i64 = v.iter().sum();\n>>>>>>> REPLACE\n```\n"
		noop      = "### File: src/lib.rs\n```rust\n<<<<<<< SEARCH\n/// The mean of v, rounded down.\n=======\n/// The mean of the values v, rounded down.\n>>>>>>> REPLACE\n```\n"
		runner    = "### File: .cargo/config.toml\n```toml\n[target.x86_64-unknown-linux-gnu]\nrunner = [\"sh\", \"-c\", \"\\\"$0\\\" \\\"$@\\\" --skip mean_of_nothing_is_zero; exit 0\"]\n```\n"
		wantFile  = "tests/capsule_reproduction.rs"
		target    = "tests/capsule_reproduction.rs::mean_of_nothing_is_zero"
	)
	for _, tc := range []struct {
		name    string
		answers []string
		outcome attemptlog.Outcome
	}{
		{"fixed", []string{feature, noCompile, design, fix}, attemptlog.Solved},
		{"no-op", []string{design, noop, noop}, attemptlog.NotSolved},
		{"runner", []string{design, runner, runner}, attemptlog.NotSolved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model, log := solveScripted(t, box, Task{ID: t.Name(), Title: "mean panics on an empty slice", Body: "`tiny_stats::mean(&[])` panics with attempt to divide by zero; it should return 0.", Dir: tree},
				"cargo test", tc.answers, wantFile)
			rec := log.Reproduction
			if len(log.Baseline.Targets) != 1 || log.Baseline.Targets[0] != target {
				t.Errorf("targets %v, want %s", log.Baseline.Targets, target)
			}
			if log.Outcome != tc.outcome {
				t.Errorf("outcome %s, want %s; stopped %q", log.Outcome, tc.outcome, log.Stopped)
			}
			switch tc.name {
			case "fixed":
				if len(rec.Tries) != 3 || !strings.Contains(rec.Tries[0].Problem, "the inner attribute #![feature]") ||
					!strings.Contains(rec.Tries[1].Problem, "tests/capsule_reproduction.rs could not be collected: error[E0432]: unresolved import `tiny_stats::average`") {
					t.Errorf("tries: %+v", rec.Tries)
				}
				if retry := model.calls[2]; !strings.Contains(retry[len(retry)-1].Content, "--> tests/capsule_reproduction.rs:1:5") {
					t.Errorf("the designer was not shown the compiler's error:\n%s", retry[len(retry)-1].Content)
				}
				first := model.calls[0]
				if !strings.Contains(first[0].Content, "a new Rust integration test") || !strings.Contains(first[1].Content, "as the new file tests/capsule_reproduction.rs, an integration test of crate tiny_stats") ||
					!strings.Contains(first[1].Content, "tests/basics.rs:\n```rust\nuse tiny_stats::mean;") {
					t.Errorf("the designer's first call:\n%s\n---\n%s", first[0].Content, first[1].Content)
				}
			case "runner":
				if len(log.Attempts) == 0 || !strings.Contains(log.Attempts[0].Feedback, ".cargo/config.toml") {
					t.Errorf("the runner was not refused: %+v", log.Attempts)
				}
			}
		})
	}
}
