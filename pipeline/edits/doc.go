// Package edits places, checks, applies and diffs the edits that the
// programmer agent writes in repo mode.
//
// An answer names each file it changes with a "### File: path" header and
// gives SEARCH/REPLACE blocks or the file's whole new content; package
// response parses them. Resolve places the blocks in the files and turns
// the answer into whole-file Edit values, Check decides which of them the
// agent may make and says why in plain words for the ones it may not, Apply
// writes the accepted edits into a copy of the repository, and Diff renders
// them as a patch in git's format that applies with "git apply" to the
// original tree.
//
// # Placing blocks
//
// The blocks of a file apply in answer order, each to the file as the
// blocks before it left it. Blank lines that pad both SEARCH and REPLACE at
// the same end are dropped in pairs. A SEARCH is placed, in this order,
// where it matches:
//
//  1. exactly, line for line;
//  2. up to trailing white space and one indentation offset shared by all
//     its non-blank lines, in which case REPLACE is re-indented by the
//     same offset;
//  3. when it has lines that are only "...", and the literal text is
//     nowhere: each piece between those lines once in the file (by rule 1,
//     else 2, with one offset for all), in order; the lines from the first
//     piece to the last are replaced. A SEARCH may not start or end with
//     "...".
//
// The divider between SEARCH and REPLACE is exactly "=======" alone on a
// line; other lines of "=" (a docstring's underline) are text. A block with
// several such lines (an RST heading, a merge marker) is read at each in
// turn, and the divider is the one whose SEARCH is placed, once, by the
// rules above; when none or several are, the block is refused.
//
// Nothing looser: a SEARCH found nowhere, or more than once by the first
// rule that finds it, is refused, the message showing the file's most
// similar lines (the window of as many lines with the highest sum of
// per-line bigram similarity) or every place it occurs. A REPLACE with a
// "..." line is refused unless the replaced lines have one too (Python's
// Ellipsis). A file that uses CRLF throughout keeps CRLF. Blocks on a
// missing file are refused unless there is one with an empty SEARCH, whose
// REPLACE becomes the file. A whole-file block may replace an existing file
// only up to a size the caller sets. An answer applies all or nothing:
// MatchError lists every block refused and the parts that could be placed.
//
// # Rules
//
// A path must be relative, slash-separated and inside the repository: no
// ".." component, no absolute or Windows-style path, no backslash, no
// control character, nothing inside .git (compared without regard to case,
// as git does). "./a//b" is normalised to "a/b".
//
// Nothing below .github/ may be written or deleted, new files included (a
// workflow added there would run with the repository's secrets); the name
// is compared without regard to case, like .git.
//
// Symbolic links are resolved component by component. A link that leads
// outside the repository, or that cannot be resolved, refuses the edit. A
// link to a directory inside the repository is followed, and the edit is
// rewritten to the resolved path; every rule holds on the path as written
// and again on the resolved path, so a link (or a chain of links) cannot
// smuggle a write into .git, .github, a protected file or the test
// infrastructure, and the patch names the file git tracks. An existing link
// as the last component is always refused: writing through it would change
// another file.
//
// Protection covers existing files only: an edit may not modify or delete an
// existing file that Rules.Protected matches, but it may create a new file
// under a protected pattern, so that the agent can add tests. Paths are
// compared case-sensitively, as on Linux where the sandbox runs.
//
// The test infrastructure decides how the tests run and end, so it is
// protected like the tests, new files included, unless
// Rules.AllowTestInfrastructure is set; Rules.Protected does not lift it.
// It is, anywhere in the repository: conftest.py, sitecustomize.py,
// usercustomize.py and *.pth files; package metadata (anything in a
// *.dist-info or *.egg-info directory, and entry_points.txt), whose entry
// points pytest loads as plugins; pytest.ini, .pytest.ini, pytest.toml
// and .pytest.toml; the [pytest], [tool:pytest], [tox], [tox:tox],
// [testenv] and [testenv:*] sections and the pytest11 entry points of
// tox.ini and setup.cfg; the [tool.pytest], [tool.tox] and pytest11
// entry-point tables of pyproject.toml (a pyproject.toml that does not
// parse cannot be checked, so a change to one is refused); and top-level
// pytest_plugins statements in Python modules. Other edits to those INI and
// TOML files stay allowed: Check compares the parsed sections and tables
// before and after the edit. Rewriting a file with the content it has is
// no change.
//
// The other runners' infrastructure is covered the same way (ecosystems.go):
// Jest, Vitest and Mocha settings and setup files (jest.config.*,
// vitest.config.*, vite.config.*, setupTests.*, .mocharc*, Babel's and the
// package manager's settings, __mocks__ directories, and package.json's
// jest, mocha and babel keys and test scripts), cargo's (build.rs,
// .cargo/config.toml, and Cargo.toml's [[test]] targets, harness and test
// keys and build script), Maven's, Gradle's and the JUnit Platform's
// (pom.xml's Surefire and Failsafe sections, test-phase plugins and test
// properties, build.gradle's test blocks, .mvn/ settings, the platform's
// META-INF/services registrations and junit-platform.properties), and go
// test's (go.mod's replace directives to directories, the TestMain and init
// functions of *_test.go files); package.json, Cargo.toml, pom.xml, go.mod
// and Go files are compared parsed. The files that a Jest or Vitest
// configuration in the edited file's directory or above names as setup
// files, environments, reporters and the like are refused too
// (runnertargets.go).
//
// Two more rules of the test infrastructure look at the answer as a whole.
// No new module may stand in for one the test run imports: a new X.py, or a
// file below a new directory X/, in a top level of Python's import path
// (the repository root, and any directory without an __init__.py: src/,
// the test directories pytest puts on sys.path, PYTHONPATH entries) is
// refused when X is in Rules.Importable, the names the sandbox's Python
// can import (the standard library, installed packages, the test runner
// and Capsule's plugin; see package pynames). Files inside a package stay
// allowed (mypkg/json.py), and so do the repository's own files and
// directories of such names. Deleting an __init__.py that would turn such
// a file into a top-level module is refused too. And no __init__.py may be
// added, changed or deleted in a directory of tests (one called test,
// tests or testing, or holding test_*.py or *_test.py files, the answer's
// and the job's included): pytest runs it before the tests, and it can put
// other modules in their place.
//
// Rules.Reserved names files the job writes itself (the reproducing test):
// an edit may not write one, make a directory of it, or make a file of a
// directory it lies in, whatever the other rules allow.
//
// When several edits name the same file, the last one wins. An edit with
// Delete set deletes the file (an answer asks for it with DeleteMarker as
// the file's whole content, which Resolve reads). Text only: a NUL byte in the old
// or the new content refuses the edit, since a text patch cannot carry it.
package edits
