package repo

import (
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repocontext"
)

func TestPlaceRustRepro(t *testing.T) {
	const lib = "pub fn f() {}\n"
	single := map[string]string{
		"Cargo.toml":          "[package]\nname = \"tiny-stats\"\nversion = \"0.1.0\"\n",
		"src/lib.rs":          lib,
		"tests/basics.rs":     "use tiny_stats::f;\n",
		"tests/a_helper.txt":  "not a test\n",
		"benches/bench.rs":    "",
		"tests/data/input.rs": "",
	}
	with := func(base map[string]string, more ...string) map[string]string {
		tree := map[string]string{}
		for k, v := range base {
			tree[k] = v
		}
		for i := 0; i+1 < len(more); i += 2 {
			tree[more[i]] = more[i+1]
		}
		return tree
	}
	workspace := map[string]string{
		"Cargo.toml":                "[workspace]\nmembers = [\"crates/*\", \"tools/cli\"]\nexclude = [\"crates/old\"]\n",
		"crates/core/Cargo.toml":    "[package]\nname = \"calc-core\"\nversion = \"0.1.0\"\n\n[lib]\nname = \"calc\"\n",
		"crates/core/src/lib.rs":    lib,
		"crates/core/src/ops.rs":    lib,
		"crates/fmt/Cargo.toml":     "[package]\nname = \"calc-fmt\"\nversion = \"0.1.0\"\n",
		"crates/fmt/src/lib.rs":     lib,
		"crates/fmt/tests/it.rs":    "",
		"crates/old/Cargo.toml":     "[package]\nname = \"old\"\n",
		"crates/old/src/lib.rs":     lib,
		"crates/notes.md":           "",
		"tools/cli/Cargo.toml":      "[package]\nname = \"calc-cli\"\n",
		"tools/cli/src/main.rs":     "fn main() {}\n",
		"tools/cli/src/commands.rs": "",
	}
	for _, tc := range []struct {
		name    string
		tree    map[string]string
		command string
		rc      repocontext.Context
		// path and crate are the placement; binary the name cargo's
		// report gives the file; problem why there is none.
		path, crate, binary, near, why, problem string
	}{
		{name: "a crate, hyphens as underscores", tree: single, command: "cargo test --no-fail-fast", rc: ranked("src/lib.rs"),
			path: "tests/capsule_reproduction.rs", crate: "tiny_stats", binary: "tests/capsule_reproduction.rs", near: "tests/basics.rs", why: "holds src/lib.rs, the first Rust file"},
		{name: "the name taken", tree: with(single, "tests/capsule_reproduction.rs", ""), command: "cargo test", rc: ranked(),
			path: "tests/capsule_reproduction_2.rs", crate: "tiny_stats", binary: "tests/capsule_reproduction_2.rs", near: "tests/basics.rs", why: "the first library crate `cargo test` tests"},
		{name: "the library's own name", tree: with(single, "Cargo.toml", "[package]\nname = \"tiny-stats\"\n[lib]\nname = \"stats\"\npath = \"src/lib.rs\"\n"), command: "cargo test",
			path: "tests/capsule_reproduction.rs", crate: "stats", binary: "tests/capsule_reproduction.rs", near: "tests/basics.rs"},
		{name: "no tests yet", tree: map[string]string{"Cargo.toml": "[package]\nname = \"solo\"\n", "src/lib.rs": lib}, command: "cargo test",
			path: "tests/capsule_reproduction.rs", crate: "solo", binary: "tests/capsule_reproduction.rs"},
		{name: "the member the context ranks first", tree: workspace, command: "cargo test --no-fail-fast", rc: ranked("README.md", "tools/cli/src/commands.rs", "crates/fmt/src/lib.rs", "crates/core/src/ops.rs"),
			path: "crates/fmt/tests/capsule_reproduction.rs", crate: "calc_fmt", binary: "tests/capsule_reproduction.rs", near: "crates/fmt/tests/it.rs", why: "crate calc-fmt, which holds crates/fmt/src/lib.rs"},
		{name: "a member's library by its name", tree: workspace, command: "cargo test", rc: ranked("crates/core/src/ops.rs"),
			path: "crates/core/tests/capsule_reproduction.rs", crate: "calc", binary: "tests/capsule_reproduction.rs", why: "crate calc-core"},
		{name: "an excluded member is not tested", tree: workspace, command: "cargo test", rc: ranked("crates/old/src/lib.rs"),
			path: "crates/core/tests/capsule_reproduction.rs", crate: "calc", binary: "tests/capsule_reproduction.rs", why: "ranks no Rust file of a tested library"},
		{name: "the package -p names", tree: workspace, command: "cargo test -p calc-fmt", rc: ranked("crates/core/src/ops.rs"),
			path: "crates/fmt/tests/capsule_reproduction.rs", crate: "calc_fmt", binary: "tests/capsule_reproduction.rs", near: "crates/fmt/tests/it.rs"},
		{name: "default-members", tree: with(workspace, "Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\ndefault-members = [\"crates/fmt\"]\n"), command: "cargo test", rc: ranked("crates/core/src/ops.rs"),
			path: "crates/fmt/tests/capsule_reproduction.rs", crate: "calc_fmt", binary: "tests/capsule_reproduction.rs", near: "crates/fmt/tests/it.rs"},
		{name: "a root package tests only itself", tree: with(single, "Cargo.toml", "[package]\nname = \"app\"\n[workspace]\nmembers = [\"crates/*\"]\n", "crates/core/Cargo.toml", "[package]\nname = \"core\"\n", "crates/core/src/lib.rs", lib),
			command: "cargo test", rc: ranked("crates/core/src/lib.rs"), path: "tests/capsule_reproduction.rs", crate: "app", binary: "tests/capsule_reproduction.rs", near: "tests/basics.rs"},
		{name: "--workspace tests the members too", tree: with(single, "Cargo.toml", "[package]\nname = \"app\"\n[workspace]\nmembers = [\"crates/*\"]\n", "crates/core/Cargo.toml", "[package]\nname = \"core\"\n", "crates/core/src/lib.rs", lib),
			command: "cargo test --workspace", rc: ranked("crates/core/src/lib.rs"), path: "crates/core/tests/capsule_reproduction.rs", crate: "core", binary: "tests/capsule_reproduction.rs"},
		{name: "a binary crate", tree: map[string]string{"Cargo.toml": "[package]\nname = \"app\"\n", "src/main.rs": "fn main() {}\n"}, command: "cargo test",
			problem: "tests no library crate"},
		{name: "autotests off", tree: with(single, "Cargo.toml", "[package]\nname = \"tiny\"\nautotests = false\n"), command: "cargo test",
			problem: "autotests = false"},
		{name: "no Cargo.toml at the root", tree: map[string]string{"sub/Cargo.toml": "[package]\nname = \"x\"\n"}, command: "cargo test",
			problem: "no Cargo.toml in ./"},
		{name: "a Cargo.toml that does not parse", tree: map[string]string{"Cargo.toml": "[package\nname = 1\n"}, command: "cargo test",
			problem: "Cargo.toml does not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := writeTree(t, tc.tree)
			pl, problem := placeRustRepro(repo, tc.command, tc.rc)
			if tc.problem != "" || problem != "" {
				if !strings.Contains(problem, tc.problem) || tc.problem == "" {
					t.Fatalf("problem %q, want one with %q", problem, tc.problem)
				}
				return
			}
			if pl.Path != tc.path || pl.crate != tc.crate || pl.near != tc.near || !strings.Contains(pl.Why, tc.why) || pl.lang != programmer.RustTest {
				t.Errorf("placeRustRepro = %+v; want %s of crate %s beside %q, %q", pl, tc.path, tc.crate, tc.near, tc.why)
			}
			if why := pl.check(repo, pl.Path); why != "" {
				t.Errorf("check(%s) = %q", pl.Path, why)
			}
			tf, why := pl.testFile(pl.Path, "use x::f;\n#[test]\nfn t() { f(); }\n")
			if why != "" || tf.Path != pl.Path || tf.Binary != tc.binary || tf.Package != "" {
				t.Errorf("testFile = %+v, %q; want binary %s", tf, why, tc.binary)
			}
		})
	}

	repo := writeTree(t, workspace)
	pl, _ := placeRustRepro(repo, "cargo test", ranked("crates/fmt/src/lib.rs"))
	for p, want := range map[string]string{
		"crates/fmt/tests/jaro.rs":               "",
		"crates/fmt/tests/it.rs":                 "already exists",
		"crates/fmt/tests/sub/it.rs":             "is a .rs file directly in crates/fmt/tests/",
		"crates/core/tests/capsule_x.rs":         "is a .rs file directly in crates/fmt/tests/",
		"crates/fmt/tests/x.txt":                 "is a .rs file directly in crates/fmt/tests/",
		"crates/fmt/build.rs":                    "is test infrastructure",
		"crates/fmt/.cargo/config.toml":          "is test infrastructure",
		"crates/fmt/tests/../../core/tests/x.rs": "not a clean path",
	} {
		if got := pl.check(repo, p); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("check(%s) = %q, want %q", p, got, want)
		}
	}
	if got := pl.nearby(repo, ranked()); !strings.Contains(got, "An integration test of crate calc_fmt") || !strings.Contains(got, "crates/fmt/tests/it.rs:\n```rust\n") {
		t.Errorf("nearby:\n%s", got)
	}
}

func TestRustTestProblem(t *testing.T) {
	const test = "\n#[test]\nfn jaro_counts_transpositions() {\n    assert_eq!(0.6, strsim::jaro(\"a jke\", \"jane a k\"));\n}\n"
	for _, tc := range []struct {
		name, content, problem string
	}{
		{"plain", "use strsim::jaro;" + test, ""},
		{"lints, an inline module, should_panic", "#![allow(clippy::float_cmp)]\n#![doc = \"x\"]\nmod helpers { pub fn two() -> u8 { 2 } }\n#[test]\n#[should_panic(expected = \"empty\")]\nfn panics() { panic!(\"empty\") }\n", ""},
		{"another runner's test attribute", "#[tokio::test]\nasync fn t() {}\n", ""},
		{"what looks like code in comments and literals", "// #![feature(test)] mod x; include!(\"a\")\n/* nested /* #[ctor] */ process::exit(0) */\nconst A: &str = \"#![no_main] mod y;\";\nconst B: &str = r#\"include!(\"x\") \"# ;\nconst C: &[u8] = br##\"#[used]\"##;\nconst D: char = '\"';\nconst E: u8 = b'\\'';\nfn f<'a>(s: &'a str) -> &'a str { s }\nconst F: &str = \"esc \\\" mod z; \";" + test, ""},
		{"a raw identifier", "fn r#match() {}" + test, ""},
		{"#![feature]", "#![feature(custom_test_frameworks)]" + test, "the inner attribute #![feature]"},
		{"#![test_runner]", "#![test_runner(crate::run)]" + test, "the inner attribute #![test_runner]"},
		{"#![no_main]", "#![no_main]" + test, "#![no_main]"},
		{"#![cfg_attr] around a feature", "#![cfg_attr(all(), feature(test))]" + test, "#![cfg_attr]"},
		{"a constructor", "#[ctor::ctor]\nfn forge() {}" + test, "the attribute #[ctor::ctor]"},
		{"a constructor through cfg_attr", "#[cfg_attr(all(), ctor)]\nfn forge() {}" + test, "the attribute #[cfg_attr(all(), ctor)]"},
		{"an init_array entry", "#[used]\n#[link_section = \".init_array\"]\nstatic INIT: extern \"C\" fn() = forge;" + test, "the attribute #[used]"},
		{"no_mangle", "#[unsafe(no_mangle)]\npub extern \"C\" fn main() {}" + test, "the attribute #[unsafe(no_mangle)]"},
		{"a global allocator", "#[global_allocator]\nstatic A: std::alloc::System = std::alloc::System;" + test, "#[global_allocator]"},
		{"a module from another file", "mod helpers;" + test, "`mod helpers;`"},
		{"#[path]", "#[path = \"../src/lib.rs\"]\nmod inner { }" + test, "#[path = \"../src/lib.rs\"]"},
		{"include!", "include!(\"../src/forge.rs\");" + test, "include!"},
		{"global_asm!", "std::arch::global_asm!(\".section .init_array\");" + test, "global_asm!"},
		{"process::exit", "#[test]\nfn t() { std::process::exit(0) }\n", "process::exit"},
		{"an extern block", "extern \"C\" { fn _exit(code: i32) -> !; }" + test, "an extern block"},
		{"no test", "use strsim::jaro;\nfn helper() {}\n", "no test function"},
		{"a test only in a comment", "// #[test]\nfn helper() {}\n", "no test function"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rustTestProblem(tc.content)
			if tc.problem == "" && got != "" || !strings.Contains(got, tc.problem) {
				t.Errorf("rustTestProblem = %q, want %q", got, tc.problem)
			}
		})
	}
}

func TestCargoSelection(t *testing.T) {
	for _, tc := range []struct {
		command   string
		packages  string
		workspace bool
	}{
		{"cargo test --no-fail-fast", "", false},
		{"cargo test --workspace", "", true},
		{"cargo test --all -q", "", true},
		{"cargo test -p a --package b --package=c -pd -p=e", "a b c d e", false},
	} {
		packages, workspace := cargoSelection(tc.command)
		if strings.Join(packages, " ") != tc.packages || workspace != tc.workspace {
			t.Errorf("cargoSelection(%q) = %q, %v", tc.command, packages, workspace)
		}
	}
}

func TestRustEdition(t *testing.T) {
	for _, tc := range []struct {
		name string
		tree map[string]string
		want string
	}{
		{"none named", map[string]string{"Cargo.toml": "[package]\nname = \"a\"\n", "src/lib.rs": ""}, "2015"},
		{"its own", map[string]string{"Cargo.toml": "[package]\nname = \"a\"\nedition = \"2021\"\n", "src/lib.rs": ""}, "2021"},
		{"the workspace's", map[string]string{"Cargo.toml": "[workspace]\nmembers = [\"a\"]\n\n[workspace.package]\nedition = \"2024\"\n",
			"a/Cargo.toml": "[package]\nname = \"a\"\nedition.workspace = true\n", "a/src/lib.rs": ""}, "2024"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, problem := placeRustRepro(writeTree(t, tc.tree), "cargo test", ranked())
			if problem != "" || pl.edition != tc.want {
				t.Errorf("edition %q (%s), want %q", pl.edition, problem, tc.want)
			}
		})
	}
}
