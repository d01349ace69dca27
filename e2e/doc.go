// Package e2e is Capsule's end-to-end set of real fixed issues: public
// Python projects at the commit before a fix, each issue's text, its real
// test, its real fix, a wrong fix and a no-op, in cases.jsonl and cases/.
// BenchmarkE2E runs `capsule solve` on each case with a scripted model
// whose test designer answers with the real test and whose programmer
// answers with one of the three changes (see make e2e); TestCases checks
// the data. SOURCES.md names each project, its licence and where it is.
package e2e
