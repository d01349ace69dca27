// Package repocontext builds the repository context of the programmer
// agent's prompt in repo mode: the file tree and the files an issue most
// likely involves, within a token budget.
//
// [Build] walks the repository once, skipping version control, dependency,
// virtual-environment, cache and build directories. It reads what the
// issue names: paths and base names, module paths such as calc.ops, and
// symbols (names in backticks, calls, signatures in code blocks, dotted
// names such as calc.ops.divide, frames of a pasted traceback). It then
// reads the head of every source file once, in parallel, for definitions
// of those symbols (Python, Go, JavaScript and TypeScript), for Python
// imports, and in tests for mentions of the symbols. Files are ranked in
// tiers:
//
//  1. files the issue names, and files that define a symbol it names (or,
//     when there are none, source files named like a word of the issue);
//  2. the files those import, and a few files that import them;
//  3. tests that mention a named symbol or import a file of tier 1;
//  4. the README and setup files at the root, while budget remains.
//
// Each pick carries a reason, shown in the text. Files are included whole,
// in rank order, while they fit; a file that does not fit, or is binary,
// over 1 MiB, or a symlink leading outside the repository, is listed in
// [Context.Omitted] with the reason, never truncated. The file tree takes
// about a tenth of the budget and is collapsed to fit, keeping the paths
// to the files of tier 1.
package repocontext
