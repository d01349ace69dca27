package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestSummarize reads a recorded run with a passing, a failing, a
// skipped, an unbuildable and an untested package.
func TestSummarize(t *testing.T) {
	in, err := os.Open(filepath.Join("testdata", "run.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out strings.Builder
	r, err := summarize(in, &out, func() time.Duration { return 125 * time.Second })
	if err != nil {
		t.Fatal(err)
	}
	if !r.failed() {
		t.Error("the run did not fail")
	}
	goldenfile.Check(t, filepath.Join("testdata", "run.golden"), out.String(), *update)
}
