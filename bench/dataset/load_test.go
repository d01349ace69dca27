package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func TestLoad(t *testing.T) {
	tests := []struct {
		file            string
		format          Format
		wantIDs         []string
		wantBroken      []string
		wantErrLines    []int
		wantUnsupported bool
	}{
		{file: "humaneval.jsonl", wantIDs: []string{"HumanEval/0", "HumanEval/2"}, wantErrLines: []int{3, 4, 6, 7}},
		{file: "HumanEvalET.jsonl", wantIDs: []string{"HumanEval/0", "HumanEval/2"}, wantBroken: []string{"HumanEval/2"}},
		{file: "HumanEvalET.jsonl", format: HumanEval, wantIDs: []string{"HumanEval/0", "HumanEval/2"}},
		{file: "mbpp.jsonl", wantIDs: []string{"1", "2"}, wantErrLines: []int{3, 4}},
		{file: "sanitized-mbpp.json", wantIDs: []string{"14", "15"}, wantErrLines: []int{2}},
		{file: "MBPP_ET.jsonl", wantIDs: []string{"3", "75"}, wantBroken: []string{"75"}},
		{file: "MBPP_ET.jsonl", format: MBPP, wantIDs: []string{"3", "75"}},
		{file: "MBPP_ET.chatdev.jsonl", wantIDs: []string{"2"}, wantErrLines: []int{2}},
		{file: "HumanEvalPlus.jsonl", wantIDs: []string{"HumanEval/0", "HumanEval/32"}},
		{file: "MbppPlus.jsonl", wantIDs: []string{"Mbpp/404"}, wantUnsupported: true},
		{file: "MbppPlus-OriginFmt.jsonl", wantIDs: []string{"2"}},
		{file: "HumanEvalPlus-OriginFmt.jsonl", wantIDs: []string{"HumanEval/0"}, wantUnsupported: true},
	}
	for _, tt := range tests {
		name := tt.file
		if tt.format != "" {
			name += "/" + string(tt.format)
		}
		t.Run(name, func(t *testing.T) {
			set, err := Load(filepath.Join("testdata", tt.file), tt.format)
			if tt.wantUnsupported {
				if !errors.Is(err, ErrEvalUnsupported) {
					t.Fatalf("Load error = %v, want ErrEvalUnsupported", err)
				}
			} else if err != nil {
				t.Fatalf("Load: %v", err)
			}
			var ids, broken []string
			for _, p := range set.Problems {
				ids = append(ids, p.TaskID)
				if p.Broken != "" {
					broken = append(broken, p.TaskID)
				}
			}
			var lines []int
			for _, e := range set.Errors {
				lines = append(lines, e.Line)
			}
			if !reflect.DeepEqual(ids, tt.wantIDs) {
				t.Errorf("task ids = %q, want %q", ids, tt.wantIDs)
			}
			if !reflect.DeepEqual(broken, tt.wantBroken) {
				t.Errorf("broken = %q, want %q", broken, tt.wantBroken)
			}
			if !reflect.DeepEqual(lines, tt.wantErrLines) {
				t.Errorf("error lines = %v, want %v (%v)", lines, tt.wantErrLines, set.Errors)
			}
			golden(t, strings.ReplaceAll(name, "/", "_")+".golden", dump(set))
		})
	}
}

func TestLoadGzip(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("testdata", "humaneval.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(plain)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "HumanEval.jsonl.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path, Auto)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Load(filepath.Join("testdata", "humaneval.jsonl"), Auto)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Problems, want.Problems) || len(got.Errors) != len(want.Errors) {
		t.Errorf("gzip load differs from plain load")
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tests := []struct {
		name    string
		path    string
		format  Format
		wantErr string
		wantIs  error
	}{
		{name: "missing file", path: filepath.Join(dir, "nope.jsonl"), wantErr: "nope.jsonl", wantIs: fs.ErrNotExist},
		{name: "unknown format", path: filepath.Join("testdata", "mbpp.jsonl"), format: "apps", wantErr: "valid: auto, humaneval, humaneval-et, mbpp, mbpp-et, evalplus"},
		{name: "format mismatch", path: filepath.Join("testdata", "mbpp.jsonl"), format: HumanEval, wantErr: "does not look like humaneval"},
		{name: "undetectable", path: write("x.jsonl", `{"question": "q", "answer": 1}`+"\n"), wantErr: "cannot detect the dataset format (first record has fields answer, question)"},
		{name: "empty", path: write("empty.jsonl", "\n\n"), wantErr: "no valid records"},
		{name: "all corrupt", path: write("bad.jsonl", "{\n[1]\n"), wantErr: "no valid records (2 bad; first: line 1: invalid JSON"},
		{name: "no valid problem", path: write("he.jsonl", `{"task_id": "a", "prompt": "p", "entry_point": "f", "canonical_solution": "", "test": "t"}`+"\n"), wantErr: `no valid HumanEval records (1 bad; first: line 1: HumanEval record: field "canonical_solution": empty)`},
		{name: "fractional task id", path: write("he1.jsonl", `{"task_id": 1.5, "prompt": "p", "entry_point": "f", "canonical_solution": "c", "test": "t"}`+"\n"), wantErr: `field "task_id": want a string or an integer, got 1.5`},
		{name: "null field", path: write("he2.jsonl", `{"task_id": "a", "prompt": "p", "entry_point": "f", "canonical_solution": null, "test": "t", "test_case_list": []}`+"\n"), wantErr: `field "canonical_solution": missing`},
		{name: "inputs not a list", path: write("hp.jsonl", `{"task_id": "a", "prompt": "p", "entry_point": "f", "canonical_solution": "c", "base_input": {}, "plus_input": [], "atol": 0}`+"\n"), wantErr: `field "base_input": want a list of argument lists`},
		{name: "bad gzip", path: write("x.jsonl.gz", "\x1f\x8bnot gzip"), wantErr: "gunzip"},
		{name: "NaN input", path: write("p.jsonl", `{"task_id": "a", "prompt": "p", "entry_point": "f", "canonical_solution": "c", "base_input": [[NaN]], "plus_input": [], "atol": 0}`+"\n"), wantErr: "NaN literals are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.path, tt.format)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Load error = %v, want it to contain %q", err, tt.wantErr)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Load error = %v, want errors.Is %v", err, tt.wantIs)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in      string
		want    Format
		wantErr bool
	}{
		{"", Auto, false},
		{"auto", Auto, false},
		{"HumanEval", HumanEval, false},
		{" humaneval-et ", HumanEvalET, false},
		{"mbpp", MBPP, false},
		{"MBPP-ET", MBPPET, false},
		{"evalplus", EvalPlus, false},
		{"mbpp_et", "", true},
		{"apps", "", true},
	}
	for _, tt := range tests {
		got, err := ParseFormat(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// dump renders a Set as readable text for golden files.
func dump(s Set) string {
	var b strings.Builder
	for _, p := range s.Problems {
		fmt.Fprintf(&b, "=== %s\nentry point: %s\nsignature: %s\nbroken: %s\n", p.TaskID, p.EntryPoint, p.Signature, p.Broken)
		fmt.Fprintf(&b, "--- prompt\n%s\n", p.Prompt)
		fmt.Fprintf(&b, "--- reference\n%s\n", p.Reference)
		fmt.Fprintf(&b, "--- debug tests (check entry point: %q)\n%s\n", p.DebugTests.EntryPoint, p.DebugTests.Source)
		if p.EvalTests == p.DebugTests {
			b.WriteString("--- eval tests: same as debug\n")
		} else {
			fmt.Fprintf(&b, "--- eval tests (check entry point: %q)\n%s\n", p.EvalTests.EntryPoint, p.EvalTests.Source)
		}
	}
	for _, e := range s.Errors {
		fmt.Fprintf(&b, "=== error\n%v\n", e)
	}
	return strings.ReplaceAll(b.String(), "\r", `\r`)
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden file (run with -update to accept):\n%s", name, firstDiff(string(want), got))
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant: %q\ngot:  %q", i+1, w, g)
		}
	}
	return "(no line differs)"
}
