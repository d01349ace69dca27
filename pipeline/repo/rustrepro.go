package repo

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repocontext"
)

// rustReproStem is the Rust reproducing test's file name before ".rs".
const rustReproStem = "capsule_reproduction"

// Bounds of the reading of a cargo workspace: the bytes of a Cargo.toml
// and the members a glob may name.
const (
	maxManifestBytes = 1 << 20
	maxCargoMembers  = 1000
)

// cargoManifest is what the test designer's placement reads of a
// Cargo.toml.
type cargoManifest struct {
	Package *struct {
		Name      string `toml:"name"`
		Autotests *bool  `toml:"autotests"`
		// Edition is a string, or a table (edition.workspace = true).
		Edition any `toml:"edition"`
	} `toml:"package"`
	Lib *struct {
		Name string `toml:"name"`
	} `toml:"lib"`
	Workspace *struct {
		Members        []string `toml:"members"`
		DefaultMembers []string `toml:"default-members"`
		Exclude        []string `toml:"exclude"`
		Package        struct {
			Edition string `toml:"edition"`
		} `toml:"package"`
	} `toml:"workspace"`
}

// readManifest reads the Cargo.toml of the slash-separated directory dir
// of repo.
func readManifest(repo, dir string) (*cargoManifest, error) {
	name := filepath.Join(repo, filepath.FromSlash(dir), "Cargo.toml")
	if !isFileIn(repo)(path.Join(dir, "Cargo.toml")) {
		return nil, fmt.Errorf("no Cargo.toml in %s/", dir)
	}
	text := readBounded(name, maxManifestBytes+1)
	if len(text) > maxManifestBytes {
		return nil, fmt.Errorf("%s is over %d MiB", path.Join(dir, "Cargo.toml"), maxManifestBytes>>20)
	}
	var m cargoManifest
	if _, err := toml.Decode(text, &m); err != nil {
		return nil, fmt.Errorf("%s does not parse: %w", path.Join(dir, "Cargo.toml"), err)
	}
	return &m, nil
}

// rustCrate is a package of a cargo workspace.
type rustCrate struct {
	// dir is its directory, "." for the repository's root.
	dir string
	// pkg is its package's name; lib its library's name as Rust code
	// uses it (hyphens as underscores), "" when it has no library.
	pkg, lib string
	// autotests is false when cargo builds no test it is not told of.
	autotests bool
	// edition is its Rust edition ("2015" when it names none).
	edition string
}

// newRustCrate reads the package of a manifest in dir, whose workspace's
// root manifest is root; ok is false when the manifest declares none (a
// virtual manifest).
func newRustCrate(repo, dir string, m, root *cargoManifest) (c rustCrate, ok bool) {
	if m.Package == nil || m.Package.Name == "" {
		return c, false
	}
	c = rustCrate{dir: dir, pkg: m.Package.Name, autotests: m.Package.Autotests == nil || *m.Package.Autotests, edition: "2015"}
	switch e := m.Package.Edition.(type) {
	case string:
		c.edition = e
	case map[string]any:
		if root.Workspace != nil && root.Workspace.Package.Edition != "" {
			c.edition = root.Workspace.Package.Edition
		}
	}
	switch {
	case m.Lib != nil:
		c.lib = cmp.Or(m.Lib.Name, c.pkg)
	case isFileIn(repo)(path.Join(dir, "src", "lib.rs")):
		c.lib = c.pkg
	}
	c.lib = strings.ReplaceAll(c.lib, "-", "_")
	return c, true
}

// testedCrates lists the packages a `cargo test` command run at the
// repository's root tests, as cargo chooses them: those -p names, every
// member with --workspace, else the workspace's default-members, else
// the root's package, else (a virtual manifest) every member.
func testedCrates(repo, command string) ([]rustCrate, error) {
	root, err := readManifest(repo, ".")
	if err != nil {
		return nil, err
	}
	var all []rustCrate
	rootCrate, hasRoot := newRustCrate(repo, ".", root, root)
	if hasRoot {
		all = append(all, rootCrate)
	}
	if ws := root.Workspace; ws != nil {
		for _, dir := range memberDirs(repo, ws.Members, ws.Exclude) {
			if m, err := readManifest(repo, dir); err == nil {
				if c, ok := newRustCrate(repo, dir, m, root); ok {
					all = append(all, c)
				}
			}
		}
	}
	named, workspace := cargoSelection(command)
	switch {
	case len(named) > 0:
		return slices.DeleteFunc(all, func(c rustCrate) bool { return !slices.Contains(named, c.pkg) }), nil
	case workspace:
		return all, nil
	case root.Workspace != nil && len(root.Workspace.DefaultMembers) > 0:
		dirs := memberDirs(repo, root.Workspace.DefaultMembers, nil)
		return slices.DeleteFunc(all, func(c rustCrate) bool { return !slices.Contains(dirs, c.dir) }), nil
	case hasRoot:
		return []rustCrate{rootCrate}, nil
	}
	return all, nil
}

// memberDirs expands a workspace's member paths and globs to the
// directories, relative to repo, that hold a Cargo.toml, leaving out those
// exclude names.
func memberDirs(repo string, members, exclude []string) []string {
	var dirs []string
	for _, pattern := range members {
		matches, _ := filepath.Glob(filepath.Join(repo, filepath.FromSlash(path.Clean(pattern))))
		for _, m := range matches {
			rel, err := filepath.Rel(repo, m)
			if err != nil || !filepath.IsLocal(rel) && rel != "." {
				continue
			}
			dir := filepath.ToSlash(rel)
			if !slices.Contains(dirs, dir) && !slices.Contains(exclude, dir) && isFileIn(repo)(path.Join(dir, "Cargo.toml")) && len(dirs) < maxCargoMembers {
				dirs = append(dirs, dir)
			}
		}
	}
	return dirs
}

// cargoSelection reads the packages a cargo command names with -p or
// --package, and whether it tests the whole workspace (--workspace,
// --all).
func cargoSelection(command string) (packages []string, workspace bool) {
	fields := strings.Fields(command)
	for i, f := range fields {
		switch {
		case f == "--workspace" || f == "--all":
			workspace = true
		case (f == "-p" || f == "--package") && i+1 < len(fields):
			packages = append(packages, strings.Trim(fields[i+1], `'"`))
		case strings.HasPrefix(f, "--package="):
			packages = append(packages, strings.Trim(strings.TrimPrefix(f, "--package="), `'"`))
		case strings.HasPrefix(f, "-p") && len(f) > 2 && f[2] != '-':
			packages = append(packages, strings.Trim(strings.TrimPrefix(strings.TrimPrefix(f, "-p"), "="), `'"`))
		}
	}
	return packages, workspace
}

// crateOf is the crate, of crates, whose directory holds the file p most
// closely.
func crateOf(crates []rustCrate, p string) (rustCrate, bool) {
	best, found := rustCrate{}, false
	for _, c := range crates {
		if (c.dir == "." || strings.HasPrefix(p, c.dir+"/")) && (!found || len(c.dir) > len(best.dir) || best.dir == ".") {
			best, found = c, true
		}
	}
	return best, found
}

// placeRustRepro chooses where a Rust reproducing test goes: an
// integration test under tests/ of the library crate, among those the
// command tests, that holds the first Rust file the repository context
// ranks for the issue, else of the first such crate. The file is
// tests/capsule_reproduction.rs, with a number when the name is taken; it
// uses the crate by its library's name (declared with extern crate in
// Rust 2015). problem says why no test can be
// placed.
func placeRustRepro(repo, command string, rc repocontext.Context) (pl placement, problem string) {
	pl.lang = programmer.RustTest
	crates, err := testedCrates(repo, command)
	if err != nil {
		return pl, "the test designer writes integration tests of the crates of the Cargo.toml at the repository's root: " + err.Error()
	}
	crates = slices.DeleteFunc(crates, func(c rustCrate) bool { return c.lib == "" || !c.autotests })
	if len(crates) == 0 {
		return pl, "the test designer writes integration tests, which use a library's public API, and `" + command + "` tests no library crate that builds the tests under its tests/ (one with autotests = false does not)"
	}
	var crate rustCrate
	for _, in := range rc.Included {
		if c, ok := crateOf(crates, in.Path); ok && strings.HasSuffix(in.Path, ".rs") {
			crate, pl.Why = c, "in the tests/ of crate "+c.pkg+", which holds "+in.Path+", the first Rust file the repository context ranks for the issue"
			break
		}
	}
	if crate.pkg == "" {
		crate = crates[0]
		pl.Why = "in the tests/ of crate " + crate.pkg + ", the first library crate `" + command + "` tests; the repository context ranks no Rust file of a tested library"
	}
	pl.crate, pl.crateDir, pl.edition = crate.lib, crate.dir, crate.edition
	tests := path.Join(crate.dir, "tests")
	pl.dirs = []string{tests}
	pl.near = firstFile(repo, tests, ".rs")
	name := path.Join(tests, rustReproStem+".rs")
	for n := 2; taken(repo, name); n++ {
		name = path.Join(tests, fmt.Sprintf("%s_%d.rs", rustReproStem, n))
	}
	pl.Path = name
	return pl, ""
}

// firstFile is the first (by name) regular file of dir named with suffix,
// or "".
func firstFile(repo, dir, suffix string) string {
	entries, _ := os.ReadDir(filepath.Join(repo, filepath.FromSlash(dir)))
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), suffix) {
			return path.Join(dir, e.Name())
		}
	}
	return ""
}

// rustBinary is the name cargo's report gives the integration test at
// the slash-separated path p of the crate in dir: its path in the crate.
func rustBinary(dir, p string) string {
	if dir == "." {
		return p
	}
	return strings.TrimPrefix(p, dir+"/")
}

// The parts of a Rust reproducing test that change how its test crate is
// built, linked or run, read from its code without comments and literals.
var (
	rustInner     = regexp.MustCompile(`#\s*!\s*\[\s*([A-Za-z_][\w:]*)`)
	rustAttribute = regexp.MustCompile(`#\s*\[`)
	rustModFile   = regexp.MustCompile(`\bmod\s+(?:r#)?([A-Za-z_]\w*)\s*;`)
	rustMacro     = regexp.MustCompile(`\b(include|global_asm|asm|naked_asm)\s*!`)
	rustExit      = regexp.MustCompile(`\bprocess\s*::\s*(exit|abort)\b`)
	rustExtern    = regexp.MustCompile(`\bextern\s*(?:"[^"]*"\s*)?\{`)
	rustTest      = regexp.MustCompile(`#\s*\[\s*(?:[A-Za-z_]\w*\s*::\s*)*test\s*[\](]`)
	rustIdent     = regexp.MustCompile(`[A-Za-z_]\w*`)
)

// rustLints are the inner attributes a reproducing test may declare.
var rustLints = []string{"allow", "warn", "deny", "forbid", "expect", "doc"}

// rustHooks are the attribute names that run code outside the tests, or
// change how the test binary is linked or which files it is made of.
var rustHooks = []string{"ctor", "dtor", "used", "link_section", "no_mangle", "export_name", "global_allocator",
	"link", "link_name", "linkage", "naked", "path", "unsafe", "test_runner", "no_main", "panic_handler"}

// rustTestProblem says why a Rust reproducing test cannot be one, or
// returns "": it must declare a #[test] function and nothing that changes
// how its test crate is built or run: inner attributes other than lints
// (#![feature], #![no_main], #![test_runner]), attributes that run code
// before main or at exit or change the linking (#[ctor], #[used],
// #[link_section], #[no_mangle], #[global_allocator]), mod declarations
// and include! that pull in other files, #[path], inline assembly,
// foreign blocks and process::exit.
func rustTestProblem(content string) string {
	code := rustCode(content)
	for _, m := range rustInner.FindAllStringSubmatch(code, -1) {
		if !slices.Contains(rustLints, m[1]) {
			return fmt.Sprintf("the file declares the inner attribute #![%s], which changes how its test crate is built or run; declare only lint attributes such as #![allow(...)]", m[1])
		}
	}
	for _, loc := range rustAttribute.FindAllStringIndex(code, -1) {
		body := bracketed(code[loc[1]-1:])
		for _, id := range rustIdent.FindAllString(body, -1) {
			if slices.Contains(rustHooks, id) {
				shown := content[loc[1] : loc[1]+len(body)] // the same bytes, literals kept
				return fmt.Sprintf("the file has the attribute #[%s], which runs code outside the tests or changes how the test binary is built; write plain #[test] functions", strings.Join(strings.Fields(shown), " "))
			}
		}
	}
	if m := rustModFile.FindStringSubmatch(code); m != nil {
		return fmt.Sprintf("the file declares `mod %s;`, which pulls in another file; write the whole test in this file (an inline mod %s { ... } is fine)", m[1], m[1])
	}
	if m := rustMacro.FindStringSubmatch(code); m != nil {
		if m[1] == "include" {
			return "the file uses include!, which pulls in another file; write the whole test in this file"
		}
		return fmt.Sprintf("the file uses %s!, whose assembly can run code outside the tests; write plain #[test] functions", m[1])
	}
	if m := rustExit.FindStringSubmatch(code); m != nil {
		return fmt.Sprintf("the file calls process::%s, which ends the test binary before libtest reports its tests; fail with assert! or a panic", m[1])
	}
	if rustExtern.MatchString(code) {
		return "the file declares foreign functions (an extern block), which a reproducing test may not use; test the crate through its public API"
	}
	if !rustTest.MatchString(code) {
		return "the file declares no test function (#[test] fn ...)"
	}
	return ""
}

// bracketed is the text inside the bracket that opens s, up to its
// matching bracket (or the end of s).
func bracketed(s string) string {
	depth := 0
	for i, c := range s {
		switch c {
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			if depth--; depth == 0 {
				return s[1:i]
			}
		}
	}
	return s[min(1, len(s)):]
}

// rustCode is Rust source with its comments, string and character
// literals blanked (newlines kept), so that what looks like code in them
// is not read as code.
func rustCode(src string) string {
	out := []byte(src)
	blank := func(i, j int) { blankCode(out, i, j) }
	at := func(i int, s string) bool { return strings.HasPrefix(src[min(i, len(src)):], s) }
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case at(i, "//"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			blank(i, i+j)
			i += j
		case at(i, "/*"):
			j, depth := i+2, 1
			for j < len(src) && depth > 0 {
				switch {
				case at(j, "/*"):
					depth, j = depth+1, j+2
				case at(j, "*/"):
					depth, j = depth-1, j+2
				default:
					j++
				}
			}
			blank(i, j)
			i = j
		case c == '"':
			j := quoted(src, i+1, '"')
			blank(i, j)
			i = j
		case c == '\'':
			j := charLiteral(src, i)
			blank(i, j)
			i = max(j, i+1)
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			switch word := src[i:j]; {
			case (word == "r" || word == "br" || word == "cr") && (at(j, "\"") || at(j, "#")):
				if end := rawString(src, j); end > j {
					blank(i, end)
					j = end
				}
			case (word == "b" || word == "c") && at(j, "\""):
				j = quoted(src, j+1, '"')
				blank(i, j)
			case word == "b" && at(j, "'"):
				j = charLiteral(src, j)
				blank(i, j)
			}
			i = j
		default:
			i++
		}
	}
	return string(out)
}

// quoted is the index after the closing quote q of a literal whose text
// starts at i, escapes skipped, or len(s).
func quoted(s string, i int, q byte) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			return i + 1
		}
	}
	return len(s)
}

// charLiteral is the index after the character literal that starts with
// the quote at i, or i when the quote starts a lifetime or label.
func charLiteral(s string, i int) int {
	if i+1 < len(s) && s[i+1] == '\\' {
		return quoted(s, i+1, '\'')
	}
	_, w := utf8.DecodeRuneInString(s[min(i+1, len(s)):])
	if i+1+w < len(s) && s[i+1+w] == '\'' {
		return i + 2 + w
	}
	return i
}

// rawString is the index after the raw string whose hashes or quote
// start at i (r#"..."#), or i when none starts there (a raw identifier).
func rawString(s string, i int) int {
	j := i
	for j < len(s) && s[j] == '#' {
		j++
	}
	if j >= len(s) || s[j] != '"' {
		return i
	}
	end := strings.Index(s[j+1:], "\""+strings.Repeat("#", j-i))
	if end < 0 {
		return len(s)
	}
	return j + 1 + end + 1 + (j - i)
}
