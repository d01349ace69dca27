// Package repocontext builds the repository context of the programmer
// agent's prompt in repo mode: the file tree and the files an issue most
// likely involves, within a token budget.
//
// [Build] walks the repository once, skipping version control, dependency,
// virtual-environment, cache and build directories. It reads what the
// issue names: paths and base names, module paths such as calc.ops, and
// symbols (names in backticks, calls, signatures in code blocks, dotted
// names such as calc.ops.divide, names in quotes as error messages print
// them, frames of a pasted traceback in Python's or pytest's form, an
// installed package's path mapped onto the repository's own), the lines of
// code it quotes, its hyphenated names (a message id, an option), and the
// single names it writes as code (`ALL`, `pass_env`). It then reads the
// head of every source file once, in parallel, for definitions of those
// symbols (Python, Go, JavaScript and TypeScript), for the quoted lines,
// for the hyphenated names and the names written as code as string
// literals, for Python imports, in tests for mentions of the symbols, and
// for the words of the issue (identifier parts, snake_case and camelCase
// split). Names of one or two letters are ignored. Files are ranked in tiers:
//
//  1. files the issue names (a traceback's innermost frame first), files
//     holding lines it quotes or its hyphenated names, and files that are
//     not tests and define a symbol it names (names defined in fewer files
//     first), then files holding as a string literal a name it writes as
//     code that no file but a test defines and that names no top-level
//     module — or, when there are none, source files named like a word of
//     the issue or two in a row ("man page", manpage.py), or else the files
//     retrieval ranks first;
//  2. files named like words of the issue, and the three source files
//     retrieval ranks first: BM25 over the words of the issue, a word in
//     the file's path weighed in, the first 40 files ranked again
//     by that score and their best def's (BM25 over each function and
//     method, a word in its name weighed in), each relative to the best;
//  3. the __init__.py of a top-level package the issue names by its name
//     alone (pytest.skip: mostly the project's own name, re-exporting its
//     API), not a seed; the files the seeds import (six at most a seed,
//     best first by the words: a package that re-exports its
//     modules would give away the budget) and a few files that import
//     them, all in order of the words; the files of the functions
//     that hold the words best in the whole repository (see
//     below); and the next six files retrieval ranks;
//  4. tests that define a symbol the issue names, then tests that
//     mention one or import a file of tier 1;
//  5. the README and setup files at the root, while budget remains.
//
// The functions and methods of the Python files holding at least two
// words of the issue (up to 400 files, best first by retrieval) are
// scored by BM25 over their bodies and names, a word of an identifier the
// issue names counted twice, a name defined in more than four places not
// counted for its name; the six best (at least half the best score, under
// 150 lines) are shown as spans in their files, whatever the files' tier,
// and the budget they need is kept from the files ranked before them.
//
// Each pick carries a reason, shown in the text. Files are placed in rank
// order while they fit. A file of at most [SmallFileTokens] is shown
// whole, and so is a file of tier 1 or 2 whose whole section takes at most
// a third of the budget, or, for the first file placed, when the spans
// chosen in it already take two thirds of its whole section and the whole
// fits. A larger Python file is shown as its outline
// (imports, classes and defs with their line ranges) and the spans that
// matter, each span's exact text in its own fenced block under its line
// range, with a "⋮ lines 120-340 omitted" mark for the lines between: the
// code around the lines the issue quotes and a traceback names, the
// repository's best functions for the words (above), the defs
// the issue names (a long class by its header, its constructor and the three
// blocks of its own lines, docstring paragraphs or class-level statements,
// that hold the words best), the
// callees of those in the file and the defs that use the names, and, in a
// file of tier 1 or 2, its imports (every top-level import up to the
// first top-level def or class, the last 100 lines of a longer head) and
// the defs that hold the words best, by that BM25 over each def.
// The callees, the users and the defs by words are shown while the file's
// section stays within its share of the budget (a third for tier 1 or 2,
// a sixth else, [SmallFileTokens] at least); one whose code mentions a
// name the issue names may also take what the repository's best functions
// took of that share, so that they do not crowd it out. Once every file
// before the tests is placed, a file shown in part is shown whole, in rank
// order, if the budget left has room (a test or the README, once every
// file is). A larger file in
// another language is shown whole if it fits, else by its head and tail.
// A file that does not fit at all, or is binary, over 1 MiB, named like a
// file of credentials (.env, private keys), or a symlink leading outside
// the repository, is listed in [Context.Omitted] with the reason; a span that does not fit is listed in its file's
// [Included.LeftOut]. The file tree takes about a sixteenth of the budget and
// is collapsed to fit, keeping the paths to the files of tier 1.
//
// [Lookup] answers the programmer agent's requests to see more: a file,
// some of its lines, the definitions of a name, the lines holding a
// string, read with the same exclusions and rendered as the context
// renders files.
package repocontext
