package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/testsupport/testdata"
)

// referenceFile is one dataset file under datasets/ and what loading it must give.
type referenceFile struct {
	path        string
	loaded      int
	broken      int
	unsupported bool
	// refs names a file whose references fill in problems that have none
	// (matched by task id).
	refs string
}

var referenceFiles = []referenceFile{
	{path: "humaneval/HumanEval.jsonl.gz", loaded: 164},
	{path: "humaneval_et/HumanEvalET.jsonl.gz", loaded: 164, broken: 6},
	{path: "mbpp/mbpp.jsonl.gz", loaded: 974},
	{path: "mbpp/sanitized-mbpp.json.gz", loaded: 427},
	{path: "mbpp_et/MBPP_ET.subset397.teamcoder.jsonl.gz", loaded: 397, broken: 15},
	{path: "mbpp_et/MBPP_ET.sanitized427.chatdev.jsonl.gz", loaded: 427, broken: 16, refs: "mbpp/mbpp.jsonl.gz"},
	{path: "evalplus/HumanEvalPlus.jsonl.gz", loaded: 164},
	{path: "evalplus/HumanEvalPlus-Mini.jsonl.gz", loaded: 164},
	{path: "evalplus/HumanEvalPlus-NoExtreme.jsonl.gz", loaded: 164},
	{path: "evalplus/HumanEvalPlus-OriginFmt.jsonl.gz", loaded: 164, broken: 1, unsupported: true},
	{path: "evalplus/MbppPlus.jsonl.gz", loaded: 378, unsupported: true},
	{path: "evalplus/MbppPlus-NoExtreme.jsonl.gz", loaded: 378, unsupported: true},
	{path: "evalplus/MbppPlus-OriginFmt.jsonl.gz", loaded: 378},
}

const (
	// referenceTimeout bounds one reference run. The slowest (HumanEval-ET
	// HumanEval/39, MBPP+ 599) take 15-25 s of CPU.
	referenceTimeout = 90 * time.Second
	// sampleStride: without CAPSULE_VERIFY_ALL, every broken problem and every
	// sampleStride-th other problem is run, which keeps the test near 15 s.
	sampleStride = 16
)

// slowReferences take minutes against their eval tests; they only run with
// CAPSULE_VERIFY_ALL, with this time limit.
var slowReferences = map[string]time.Duration{
	"mbpp_et/MBPP_ET.subset397.teamcoder.jsonl.gz 123":  10 * time.Minute,
	"mbpp_et/MBPP_ET.sanitized427.chatdev.jsonl.gz 123": 10 * time.Minute,
}

// referenceRun is one reference solution run against one of its test sets.
type referenceRun struct {
	file    string
	p       Problem
	eval    bool
	timeout time.Duration
}

// TestReferenceSolutions loads every dataset file in datasets/ and runs reference
// solutions against their debug and eval tests with python3: non-broken
// problems must pass both, broken ones must fail their eval tests, so the
// Broken lists are exactly right. By default it runs a sample (all broken
// problems and every 16th other one); CAPSULE_VERIFY_ALL=1 runs everything
// (about 5 CPU-minutes).
func TestReferenceSolutions(t *testing.T) {
	dir := testdata.Dataset(t)
	py := python(t)
	all := os.Getenv("CAPSULE_VERIFY_ALL") != ""

	var runs []referenceRun
	for _, rf := range referenceFiles {
		set := loadReferenceFile(t, dir, rf)
		for i, p := range set.Problems {
			key := rf.path + " " + p.TaskID
			timeout, slow := slowReferences[key]
			if !slow {
				timeout = referenceTimeout
			}
			if !all && (slow || p.Broken == "" && i%sampleStride != 0) {
				continue
			}
			if p.DebugTests.Source != "" && p.DebugTests != p.EvalTests {
				runs = append(runs, referenceRun{rf.path, p, false, timeout})
			}
			if p.EvalTests.Source != "" {
				runs = append(runs, referenceRun{rf.path, p, true, timeout})
			}
		}
	}

	tmp := t.TempDir()
	var mu sync.Mutex
	ran, failed := map[string]int{}, map[string]int{}
	work := make(chan referenceRun)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				tests := r.p.DebugTests
				if r.eval {
					tests = r.p.EvalTests
				}
				run := runPython(py, tmp, tests.Program(r.p.Reference), r.timeout)
				mu.Lock()
				ran[r.file]++
				if !run.ok {
					failed[r.file]++
				}
				if msg := judge(r.p, r.eval, run); msg != "" {
					t.Errorf("%s %s: %s", r.file, r.p.TaskID, msg)
				}
				mu.Unlock()
			}
		}()
	}
	for _, r := range runs {
		work <- r
	}
	close(work)
	wg.Wait()
	for _, rf := range referenceFiles {
		t.Logf("%s: %d runs, %d failed", rf.path, ran[rf.path], failed[rf.path])
	}
}

// loadReferenceFile loads a dataset file and checks what Load reports.
func loadReferenceFile(t *testing.T, dir string, rf referenceFile) Set {
	t.Helper()
	set, err := Load(filepath.Join(dir, rf.path), Auto)
	switch {
	case rf.unsupported && !errors.Is(err, ErrEvalUnsupported):
		t.Errorf("%s: Load error = %v, want ErrEvalUnsupported", rf.path, err)
	case !rf.unsupported && err != nil:
		t.Errorf("%s: %v", rf.path, err)
	}
	if len(set.Errors) > 0 {
		t.Errorf("%s: %d bad records, first: %v", rf.path, len(set.Errors), set.Errors[0])
	}
	if rf.refs != "" {
		fillReferences(t, set, filepath.Join(dir, rf.refs))
	}
	broken := 0
	for _, p := range set.Problems {
		if p.Broken != "" {
			broken++
		}
		if p.Broken == "" && p.Reference != "" && !defines(p.Reference, p.EntryPoint) {
			t.Errorf("%s %s: the reference does not define the entry point %s", rf.path, p.TaskID, p.EntryPoint)
		}
	}
	if len(set.Problems) != rf.loaded || broken != rf.broken {
		t.Errorf("%s: loaded %d problems, %d broken; want %d, %d", rf.path, len(set.Problems), broken, rf.loaded, rf.broken)
	}
	t.Logf("%s: loaded %d problems, %d broken", rf.path, len(set.Problems), broken)
	return set
}

// judge returns what is wrong with a reference run, or "".
func judge(p Problem, eval bool, run pyRun) string {
	which := "debug"
	if eval {
		which = "eval"
	}
	switch {
	case p.Broken == "" && !run.ok:
		return fmt.Sprintf("reference fails its %s tests (timed out: %v):\n%s", which, run.timedOut, run.output)
	case p.Broken != "" && eval && run.ok:
		return fmt.Sprintf("marked broken (%s) but the reference passes its eval tests", p.Broken)
	}
	return ""
}

// fillReferences sets the Reference of problems that have none from the
// problems with the same task id in another file.
func fillReferences(t *testing.T, set Set, path string) {
	t.Helper()
	refs, err := Load(path, Auto)
	if err != nil {
		t.Fatal(err)
	}
	set.TakeReferences(refs)
}
