package signature

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"testing"

	"github.com/capsulehq/capsule/datasets"
)

// mbppTask is the part of an MBPP record the tests use.
type mbppTask struct {
	TaskID   int      `json:"task_id"`
	Code     string   `json:"code"`
	TestList []string `json:"test_list"`
}

// TestFromTestSanitizedMBPP derives a signature from the first test of every
// sanitized MBPP task and checks its name and arity against the reference
// solution. Every argument in these tests is a literal, so every parameter
// must be typed.
func TestFromTestSanitizedMBPP(t *testing.T) {
	var tasks []mbppTask
	data := readDataset(t, "mbpp")
	if err := json.Unmarshal(data, &tasks); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(tasks) != 427 {
		t.Fatalf("got %d tasks, want 427", len(tasks))
	}
	for _, task := range tasks {
		sig := checkMBPP(t, task)
		for _, p := range sig.Params {
			if !p.Type.Known() {
				t.Errorf("task %d: parameter %s untyped in %s", task.TaskID, p.Name, sig)
			}
		}
	}
}

// TestFromTestFullMBPP does the same over the 974 tasks of the full set,
// where a few tests pass non-literal arguments.
func TestFromTestFullMBPP(t *testing.T) {
	// Tasks whose first test passes something other than a literal, and why.
	untyped := map[int]string{
		367: "root: a tree built in test_setup_code",
		486: "1.0/3: an arithmetic expression",
		533: "int: a type object",
		927: "root: a tree built in test_setup_code",
	}
	data := readDataset(t, "mbpp-full")
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var task mbppTask
		if err := json.Unmarshal(sc.Bytes(), &task); err != nil {
			t.Fatalf("decode line %d: %v", n+1, err)
		}
		n++
		sig := checkMBPP(t, task)
		known := true
		for _, p := range sig.Params {
			known = known && p.Type.Known()
		}
		if _, listed := untyped[task.TaskID]; known == listed {
			t.Errorf("task %d: %s: all parameters typed = %v, want %v", task.TaskID, sig, known, !listed)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 974 {
		t.Fatalf("got %d tasks, want 974", n)
	}
}

// checkMBPP runs FromTest on the task's first test, with and without the
// function name, and checks the name and arity.
func checkMBPP(t *testing.T, task mbppTask) Signature {
	t.Helper()
	test := task.TestList[0]
	want, minArgs, maxArgs := entryPoint(t, task)
	sig, err := FromTest(test, "")
	if err != nil {
		t.Errorf("task %d: FromTest(%q, \"\"): %v", task.TaskID, test, err)
		return sig
	}
	if sig.Name != want {
		t.Errorf("task %d: FromTest(%q, \"\") found %s, want %s", task.TaskID, test, sig.Name, want)
	}
	if n := len(sig.Params); n < minArgs || n > maxArgs {
		t.Errorf("task %d: %s has %d parameters, want %d..%d", task.TaskID, sig, n, minArgs, maxArgs)
	}
	named, err := FromTest(test, want)
	if err != nil || named.String() != sig.String() {
		t.Errorf("task %d: FromTest with name = %s, %v; without = %s", task.TaskID, named, err, sig)
	}
	return sig
}

// entryPoint returns the function of the reference solution that the test
// calls, and how many arguments it accepts.
func entryPoint(t *testing.T, task mbppTask) (name string, minArgs, maxArgs int) {
	t.Helper()
	for _, m := range regexp.MustCompile(`(?m)^def\s+(\w+)\s*\(`).FindAllStringSubmatchIndex(task.Code, -1) {
		name := task.Code[m[2]:m[3]]
		if !regexp.MustCompile(`\b` + name + `\s*\(`).MatchString(task.TestList[0]) {
			continue
		}
		src, err := parseSource(task.Code[m[1]-1:])
		if err != nil {
			t.Fatalf("task %d: reference code: %v", task.TaskID, err)
		}
		maxArgs = 0
		for _, p := range src.split(1, src.match[0], ",") {
			switch {
			case p[0] == p[1]:
			case src.is(p[0], "*") || src.is(p[0], "**"):
				maxArgs = 1 << 30
			case src.find(p[0], p[1], "=") >= 0:
				maxArgs++
			default:
				minArgs++
				maxArgs++
			}
		}
		return name, minArgs, max(maxArgs, minArgs)
	}
	t.Fatalf("task %d: the reference code defines no function the test calls", task.TaskID)
	return "", 0, 0
}

// readDataset returns the file of the shipped dataset called name (see
// datasets/mbpp/SOURCE.txt).
func readDataset(t *testing.T, name string) []byte {
	t.Helper()
	d, ok := datasets.Lookup(name)
	if !ok {
		t.Fatalf("no shipped dataset %q", name)
	}
	r, err := d.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
