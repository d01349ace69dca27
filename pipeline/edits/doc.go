// Package edits checks, applies and diffs the whole-file edits that the
// programmer agent writes in repo mode.
//
// An answer names each file it changes with a "### File: path" header and
// gives the file's whole new content; package response turns those blocks
// into Edit values. Check decides which of them the agent may make and says
// why in plain words for the ones it may not, Apply writes the accepted edits
// into a copy of the repository, and Diff renders them as a patch in git's
// format that applies with "git apply" to the original tree.
//
// # Rules
//
// A path must be relative, slash-separated and inside the repository: no
// ".." component, no absolute or Windows-style path, no backslash, no
// control character, nothing inside .git (compared without regard to case,
// as git does). "./a//b" is normalised to "a/b".
//
// Symbolic links are resolved component by component. A link that leads
// outside the repository, or that cannot be resolved, refuses the edit. A
// link to a directory inside the repository is followed, and the edit is
// rewritten to the resolved path, which is then checked like any other (so a
// link cannot smuggle a write into .git or into a protected file, and the
// patch names the file git tracks). An existing link as the last component
// is always refused: writing through it would change another file.
//
// Protection covers existing files only: an edit may not modify or delete an
// existing file that the protected callback matches, but it may create a new
// file under a protected pattern, so that the agent can add tests. A caller
// that must forbid new files too (say below .github/workflows) filters the
// accepted edits itself. Paths are compared case-sensitively, as on Linux
// where the sandbox runs.
//
// When several edits name the same file, the last one wins. An edit whose
// content is DeleteMarker deletes the file. Text only: a NUL byte in the old
// or the new content refuses the edit, since a text patch cannot carry it.
package edits
