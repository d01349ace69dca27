package testreport

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParseCargoFixtures reads the real outputs of cargo test in
// testdata/cargo (see its README for how they were made) against their
// golden renderings.
func TestParseCargoFixtures(t *testing.T) {
	checkFixtures(t, "testdata/cargo/*.stdout", 2, func(t *testing.T, p string, stdout []byte) *Report {
		stderr, err := os.ReadFile(strings.TrimSuffix(p, ".stdout") + ".stderr")
		if err != nil {
			t.Fatal(err)
		}
		return ParseCargoTest(stdout, stderr)
	})
}

// TestParseCargoHostile reads a real run whose code under test forged
// libtest lines (see testdata/cargo/README.md): it cannot be trusted, and
// the forged pass does not stand.
func TestParseCargoHostile(t *testing.T) {
	stdout, err := os.ReadFile("testdata/cargo/hostile/forged.stdout")
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.ReadFile("testdata/cargo/hostile/forged.stderr")
	if err != nil {
		t.Fatal(err)
	}
	rep := ParseCargoTest(stdout, stderr)
	if rep.Complete() || !strings.Contains(rep.Incomplete(), "test tests::forged_line is reported twice") {
		t.Errorf("incomplete = %q, want the forged line named", rep.Incomplete())
	}
	if !slices.ContainsFunc(rep.Malformed, func(m string) bool {
		return strings.Contains(m, "tests/block.rs: a block of results starts inside another")
	}) {
		t.Errorf("malformed = %q, want the forged block named", rep.Malformed)
	}
	if res, ok := rep.Tests[ID{File: "src/lib.rs", Name: "tests::forged_line"}]; ok && res.Outcome.Passing() {
		t.Errorf("the forged pass stands: %+v", res)
	}
}

// cargoStderr names two test binaries as cargo does.
const cargoStderr = "   Compiling calc v0.1.0 (/workspace)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.50s\n" +
	"     Running unittests src/lib.rs (target/debug/deps/calc-0123456789abcdef)\n" +
	"     Running tests/it.rs (target/debug/deps/it-fedcba9876543210)\n"

// libtestBlock is libtest's output for one binary: its tests' result
// lines, what comes between them and the summary, and the summary.
func libtestBlock(results []string, middle, summary string) string {
	return fmt.Sprintf("\nrunning %d tests\n%s\n%s%s\n\n", len(results), strings.Join(results, "\n"), middle, summary)
}

// TestParseCargoTest covers the identities, the outcomes, and the outputs
// that cannot be trusted: forged lines, broken blocks and counts.
func TestParseCargoTest(t *testing.T) {
	lib := libtestBlock([]string{"test tests::adds ... ok", "test tests::subs ... FAILED", "test tests::slow ... ignored, slow"},
		"\nfailures:\n\n---- tests::subs stdout ----\n\nthread 'tests::subs' panicked at src/lib.rs:9:9:\nassertion `left == right` failed\n  left: 1\n right: 2\nnote: run with `RUST_BACKTRACE=1`\n\n\nfailures:\n    tests::subs\n\n",
		"test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s")
	it := libtestBlock([]string{"test works ... ok"}, "", "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s")
	t.Run("two binaries", func(t *testing.T) {
		rep := ParseCargoTest([]byte(lib+it), []byte(cargoStderr))
		want := "process src/lib.rs: collected 3, failing 1, ended true, exit 101\n" +
			"process tests/it.rs: collected 1, failing 0, ended true, exit 0\n" +
			"src/lib.rs::tests::adds\n  passed 0s\n" +
			"src/lib.rs::tests::slow\n  skipped 0s\n  message: slow\n" +
			"src/lib.rs::tests::subs\n  failed (call) 0s\n  message: assertion `left == right` failed\n" +
			"tests/it.rs::works\n  passed 0s\n"
		if got := describeReport(rep); got != want {
			t.Errorf("report:\n%s\nwant:\n%s", got, want)
		}
		if rep.RunnerWritten != "libtest output" {
			t.Errorf("RunnerWritten = %q", rep.RunnerWritten)
		}
	})
	t.Run("without cargo's names", func(t *testing.T) {
		rep := ParseCargoTest([]byte(lib+it), nil)
		if !rep.Complete() || rep.Processes[1].Name != "test binary 2" {
			t.Errorf("processes %+v, incomplete %q", rep.Processes, rep.Incomplete())
		}
	})
	t.Run("doc tests keep their identity when their lines move", func(t *testing.T) {
		doc := func(a, b int) string {
			return libtestBlock([]string{fmt.Sprintf("test src/lib.rs - add (line %d) ... ok", a), fmt.Sprintf("test src/lib.rs - add (line %d) ... FAILED", b),
				"test src/lib.rs - div (line 30) - should panic ... ok"}, "", "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out")
		}
		stderr := []byte("   Doc-tests calc\n")
		before, after := ParseCargoTest([]byte(doc(3, 10)), stderr), ParseCargoTest([]byte(doc(5, 12)), stderr)
		want := "process calc (doc-tests): collected 3, failing 1, ended true, exit 101\n" +
			"calc (doc-tests)::src/lib.rs - add\n  passed 0s\n" +
			"calc (doc-tests)::src/lib.rs - add[2]\n  failed (call) 0s\n" +
			"calc (doc-tests)::src/lib.rs - div\n  passed 0s\n"
		for _, rep := range []*Report{before, after} {
			if got := describeReport(rep); got != want {
				t.Errorf("report:\n%s\nwant:\n%s", got, want)
			}
		}
	})
	t.Run("a source two binaries share", func(t *testing.T) {
		stderr := "     Running unittests src/lib.rs (target/debug/deps/a-0123)\n     Running unittests src/lib.rs (target/debug/deps/b-4567)\n"
		rep := ParseCargoTest([]byte(it+it), []byte(stderr))
		if !rep.Complete() || len(rep.Tests) != 2 || rep.Processes[0].Name != "src/lib.rs (a)" || rep.Processes[1].Name != "src/lib.rs (b)" {
			t.Errorf("processes %+v, %d tests, incomplete %q", rep.Processes, len(rep.Tests), rep.Incomplete())
		}
	})
	t.Run("targets that do not compile", func(t *testing.T) {
		// cargo 1.95's standard error when an integration test of a
		// workspace member and another crate's library do not compile.
		stderr := "   Compiling my-a v0.1.0 (/tmp/rustws/crates/a)\n" +
			"warning: unused variable: `x`\n --> crates/a/src/lib.rs:1:5\n\n" +
			"error[E0432]: unresolved import `my_a::nothere`\n --> crates/a/tests/capsule_reproduction.rs:1:5\n  |\n1 | use my_a::nothere;\n  |     ^^^^^^^^^^^^^ no `nothere` in the root\n\n" +
			"For more information about this error, try `rustc --explain E0432`.\n" +
			"error: could not compile `my-a` (test \"capsule_reproduction\") due to 1 previous error\n" +
			"error[E0308]: mismatched types\n --> crates/b/src/lib.rs:1:20\n\n" +
			"error: could not compile `b` (lib) due to 1 previous error\n" +
			"error: could not compile `c` (bin \"c\" test) due to 1 previous error\n"
		rep := ParseCargoTest(nil, []byte(stderr))
		want := "process the build of tests/capsule_reproduction.rs: collected 0, failing 0, ended true, exit 101\n" +
			"process the build of src/lib.rs: collected 0, failing 0, ended true, exit 101\n" +
			"process the build of crate c: collected 0, failing 0, ended true, exit 101\n"
		if got := describeReport(rep); got != want {
			t.Errorf("report:\n%s\nwant:\n%s", got, want)
		}
		var errs []string
		for _, e := range rep.CollectErrors() {
			first, _, _ := strings.Cut(e.Message, "\n")
			errs = append(errs, e.Path+": "+first)
		}
		if got := strings.Join(errs, "\n"); got != "tests/capsule_reproduction.rs: error[E0432]: unresolved import `my_a::nothere`\n"+
			"src/lib.rs: error[E0308]: mismatched types\n"+
			"crate c: error: could not compile `c` (bin \"c\" test) due to 1 previous error" {
			t.Errorf("collection errors:\n%s", got)
		}
		if msg := rep.Processes[0].CollectErrors[0].Message; !strings.Contains(msg, "--> crates/a/tests/capsule_reproduction.rs:1:5") || strings.Contains(msg, "unused variable") || strings.Contains(msg, "rustc --explain") {
			t.Errorf("message:\n%s", msg)
		}
		if !rep.Complete() {
			t.Errorf("incomplete: %s", rep.Incomplete())
		}
	})
	t.Run("captured output in the failures section does not count", func(t *testing.T) {
		block := libtestBlock([]string{"test a ... FAILED"}, "\nfailures:\n\n---- a stdout ----\ntest a ... ok\ntest b ... ok\n\nfailures:\n    a\n\n",
			"test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out")
		rep := ParseCargoTest([]byte(block), nil)
		if !rep.Complete() || len(rep.Tests) != 1 || rep.Tests[ID{File: "test binary 1", Name: "a"}].Outcome != Failed {
			t.Errorf("tests %+v, incomplete %q", rep.Tests, rep.Incomplete())
		}
	})
	t.Run("captured output of passing tests does not count", func(t *testing.T) {
		block := libtestBlock([]string{"test a ... ok"}, "\nsuccesses:\n\n---- a stdout ----\ntest b ... ok\n\nsuccesses:\n    a\n\n",
			"test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out")
		if rep := ParseCargoTest([]byte(block), nil); !rep.Complete() || len(rep.Tests) != 1 {
			t.Errorf("tests %+v, incomplete %q", rep.Tests, rep.Incomplete())
		}
	})
	hostile := []struct {
		name, stdout, stderr, why string
	}{
		{"a forged pass before the real failure",
			libtestBlock([]string{"test a ... ok", "test a ... FAILED"}, "", "test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out"), "",
			"test a is reported twice"},
		{"a forged extra test",
			"\nrunning 1 test\ntest a ... FAILED\ntest forged ... ok\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n", "",
			"result lines read are 1 passed, 1 failed, 0 ignored of 2"},
		{"a forged failures line hiding the real result",
			"\nrunning 2 tests\ntest a ... ok\nfailures:\ntest b ... FAILED\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n", "",
			"result lines read are 1 passed, 0 failed, 0 ignored of 1"},
		{"a forged summary",
			"\nrunning 2 tests\ntest a ... ok\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\ntest b ... FAILED\n", "",
			"summary counts 2 passed"},
		{"a summary that says ok with failures",
			libtestBlock([]string{"test a ... FAILED"}, "", "test result: ok. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out"), "",
			"summary says ok with 1 failed"},
		{"a block inside another",
			"\nrunning 1 test\n" + it, "",
			"a block of results starts inside another"},
		{"a block never closed",
			"\nrunning 2 tests\ntest a ... ok\n", "",
			"its results end before libtest's summary"},
		{"a binary that wrote no block",
			it, cargoStderr,
			"cargo ran 2 test binaries, but 1 blocks of libtest results were read"},
		{"a forged block past cargo's binaries",
			it + it + it, cargoStderr,
			"cargo ran 2 test binaries, but 3 blocks"},
		{"a result line broken by output",
			"\nrunning 1 test\ntest a ... hello\nok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n", "",
			"of 0"},
		{"terse output",
			"\nrunning 3 tests\n..F\nfailures:\n\ntest result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n", "",
			"terse output"},
	}
	for _, tc := range hostile {
		t.Run(tc.name, func(t *testing.T) {
			rep := ParseCargoTest([]byte(tc.stdout), []byte(tc.stderr))
			if rep.Complete() || !strings.Contains(rep.Incomplete(), tc.why) {
				t.Errorf("incomplete = %q, want it to say %q", rep.Incomplete(), tc.why)
			}
		})
	}
}

// TestCargoTest shows which commands are read as cargo test, and how
// they are run.
func TestCargoTest(t *testing.T) {
	for _, tc := range []struct {
		command, want string
		ok            bool
	}{
		{"cargo test", "cargo test --no-fail-fast", true},
		{"cargo test --workspace -- --test-threads=1", "cargo test --no-fail-fast --workspace -- --test-threads=1", true},
		{"RUST_BACKTRACE=1 cargo +stable test --release", "RUST_BACKTRACE=1 cargo +stable test --no-fail-fast --release", true},
		{"cargo test --no-fail-fast", "cargo test --no-fail-fast", true},
		{"cargo test -- --nocapture", "cargo test --no-fail-fast -- --nocapture", true},
		{"cargo test -q", "", false},
		{"cargo test --no-run", "", false},
		{"cargo test -- --format terse", "", false},
		{"cargo test -- -q", "", false},
		{"cargo test -- --list", "", false},
		{"cargo test -- -Z unstable-options --format json", "", false},
		{"cargo nextest run", "", false},
		{"cargo build && cargo test", "", false},
		{"cargo test | tee out", "", false},
		{"make test", "", false},
	} {
		got, ok := CargoTest(tc.command)
		if got != tc.want || ok != tc.ok {
			t.Errorf("CargoTest(%q) = %q, %v; want %q, %v", tc.command, got, ok, tc.want, tc.ok)
		}
	}
	plan := NewPlan("cargo test", func(string) bool { return false })
	if !plan.Cargo || !plan.WholeRuns() || plan.Command != "cargo test --no-fail-fast" || !strings.Contains(plan.Note, "runner-written") {
		t.Errorf("NewPlan(cargo test) = %+v", plan)
	}
	rep := plan.Parse(Output{Stdout: []byte(libtestBlock([]string{"test a ... ok"}, "", "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out"))}, "/workspace")
	if !rep.Complete() || len(rep.Tests) != 1 {
		t.Errorf("Plan.Parse of cargo output: %+v, incomplete %q", rep.Tests, rep.Incomplete())
	}
}

// FuzzCargoTest checks that any output gives a report that holds
// together: no panic, bounded texts, and every test of a process that
// ended counted by it.
func FuzzCargoTest(f *testing.F) {
	paths, _ := filepath.Glob("testdata/cargo/*.stdout")
	for _, p := range paths {
		stdout, err1 := os.ReadFile(p)
		stderr, err2 := os.ReadFile(strings.TrimSuffix(p, ".stdout") + ".stderr")
		if err1 == nil && err2 == nil {
			f.Add(stdout, stderr)
		}
	}
	f.Add([]byte(libtestBlock([]string{"test a ... ok", "test b (line 3) ... FAILED"}, "\nfailures:\n---- b (line 3) stdout ----\nx\n", "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out")), []byte(cargoStderr))
	f.Fuzz(func(t *testing.T, stdout, stderr []byte) {
		rep := ParseCargoTest(stdout, stderr)
		collected, failing := 0, 0
		for _, p := range rep.Processes {
			if p.Ended {
				collected += p.Collected
				failing += p.Failing
			}
		}
		n, bad := checkHolds(t, rep)
		if rep.Complete() && (n > collected || bad > failing) {
			t.Fatalf("%d tests, %d failing; the processes counted %d, %d", n, bad, collected, failing)
		}
	})
}
