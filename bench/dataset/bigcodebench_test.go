package dataset

import (
	"slices"
	"strings"
	"testing"
)

const bigCodeBenchFile = "../../datasets/bigcodebench/BigCodeBench.jsonl.gz"

func TestLoadBigCodeBench(t *testing.T) {
	set, err := Load(bigCodeBenchFile, Auto)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Problems) != 1140 || len(set.Errors) > 0 {
		t.Fatalf("%d problems, %d bad records; want 1140 and none", len(set.Problems), len(set.Errors))
	}
	p := set.Problems[0]
	if p.TaskID != "BigCodeBench/0" || p.EntryPoint != "task_func" || !p.CheckEnvironment ||
		!strings.HasPrefix(p.Signature, "def task_func(") || !strings.HasSuffix(p.Signature, ":") {
		t.Errorf("first problem: %+v", p)
	}
	if !strings.Contains(p.Prompt, "You should write self-contained code starting with") {
		t.Errorf("the default prompt is not the instruct split:\n%s", p.Prompt)
	}
	if !strings.Contains(p.DebugTests.Source, "_capsule_run_tests(True)") || !strings.Contains(p.EvalTests.Source, "_capsule_run_tests(False)") {
		t.Error("debug tests do not run the first test method only, or eval tests not all of them")
	}
	if !strings.HasPrefix(p.Reference, p.Prompts[SplitComplete]) {
		t.Error("the reference does not start with the complete prompt")
	}
	stdlibOnly := 0
	for _, p := range set.Problems {
		if !slices.ContainsFunc(p.Libraries, func(l string) bool { return slices.Contains([]string{"numpy", "pandas", "matplotlib"}, l) }) {
			stdlibOnly++
		}
	}
	if stdlibOnly == len(set.Problems) {
		t.Error("no problem lists numpy, pandas or matplotlib in its libraries")
	}

	complete, err := set.Split(SplitComplete)
	if err != nil {
		t.Fatal(err)
	}
	if got := complete.Problems[0].Prompt; got != p.Prompts[SplitComplete] || got == p.Prompt || set.Problems[0].Prompt != p.Prompt {
		t.Errorf("Split(complete) gave %q and changed the original: %v", got, set.Problems[0].Prompt != p.Prompt)
	}
	if _, err := set.Split("hidden"); err == nil || !strings.Contains(err.Error(), "complete, instruct") {
		t.Errorf("Split(hidden) = %v, want the splits named", err)
	}
	mbpp, err := Load("../../datasets/mbpp/sanitized-mbpp.json.gz", Auto)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mbpp.Split(SplitInstruct); err == nil || !strings.Contains(err.Error(), "no splits") {
		t.Errorf("MBPP Split(instruct) = %v, want no splits", err)
	}
}

func TestPythonStrings(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"['os', \"re\"]", []string{"os", "re"}, false},
		{"[]", nil, false},
		{"", nil, false},
		{"os, re", nil, true},
		{"['os', re]", nil, true},
	}
	for _, tt := range tests {
		got, err := pythonStrings(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("pythonStrings(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
