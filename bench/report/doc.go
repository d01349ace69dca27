// Package report turns benchmark results into the figures the PyCapsule
// paper reports: pass rate, model calls per problem, and per attempt the
// number of problems solved, the relative success ratio and the normalized
// influence. It writes them as JSON (Summary), a plain-text table and an SVG
// chart.
package report
