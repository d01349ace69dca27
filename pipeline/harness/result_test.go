package harness

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseOutput(t *testing.T) {
	tests := []struct {
		name           string
		exit           int
		stdout, stderr string
		want           Result
	}{{
		name:   "pass",
		stdout: "hi\n",
		stderr: "##capsule {\"removed\": [[3, 4], [9, 9]], \"syntax_ok\": true}\n",
		want:   Result{Passed: true, SyntaxOK: true, Removed: [][2]int{{3, 4}, {9, 9}}, Stdout: "hi\n"},
	}, {
		name:   "failure",
		exit:   1,
		stderr: "##capsule {\"removed\": [], \"syntax_ok\": true}\nTraceback (most recent call last):\nAssertionError\n",
		want:   Result{ExitCode: 1, SyntaxOK: true, Stderr: "Traceback (most recent call last):\nAssertionError\n"},
	}, {
		name:   "syntax error",
		exit:   1,
		stderr: "##capsule {\"removed\": [], \"syntax_ok\": false}\nSyntaxError: invalid syntax\n",
		want:   Result{ExitCode: 1, Stderr: "SyntaxError: invalid syntax\n"},
	}, {
		name:   "timeout",
		exit:   TimeoutExitCode,
		stderr: "##capsule {\"removed\": [], \"syntax_ok\": true}\nbusy##capsule {\"timeout\": 1.5}\ncapsule: timed out after 1.5 seconds\n",
		want:   Result{ExitCode: TimeoutExitCode, TimedOut: true, SyntaxOK: true, Stderr: "busy\ncapsule: timed out after 1.5 seconds\n"},
	}, {
		name: "timeout line cut off",
		exit: TimeoutExitCode,
		want: Result{ExitCode: TimeoutExitCode, TimedOut: true},
	}, {
		name:   "timeout line with exit 0",
		stderr: "##capsule {\"timeout\": 10}",
		want:   Result{TimedOut: true},
	}, {
		name:   "not a protocol line",
		exit:   1,
		stderr: "##capsule {broken\n##capsule\n",
		want:   Result{ExitCode: 1, Stderr: "##capsule {broken\n##capsule\n"},
	}, {
		name:   "protocol only on stderr",
		stdout: "##capsule {\"timeout\": 1}\n",
		want:   Result{Passed: true, Stdout: "##capsule {\"timeout\": 1}\n"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseOutput(tt.exit, tt.stdout, tt.stderr)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseOutput:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestStripRemoved(t *testing.T) {
	tests := []struct {
		name    string
		code    string
		removed [][2]int
		want    string
	}{
		{"none", "a\r\nb\n", nil, "a\r\nb\n"},
		{"lines", "a\nb\nc\nd\n", [][2]int{{2, 3}}, "a\n\n\nd\n"},
		{"crlf", "a\r\nb\r\nc", [][2]int{{3, 3}}, "a\nb\n"},
		{"out of range", "a\nb", [][2]int{{0, 1}, {2, 9}, {5, 3}}, "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripRemoved(tt.code, tt.removed); got != tt.want {
				t.Errorf("StripRemoved(%q, %v) = %q, want %q", tt.code, tt.removed, got, tt.want)
			}
		})
	}
}

func TestProgram(t *testing.T) {
	// 1.5 s of CPU rounds up to the kernel's whole seconds: 2 s, and a
	// wall-clock backstop of 3 x 2 s + 10 s.
	p := Program{Solution: "s", Tests: "t", EntryPoint: "add", CPULimit: 1500 * time.Millisecond}
	want := []string{"python3", "-B", "-u", "capsule_harness.py", "--cpu-limit", "2", "--timeout", "16", "--hard-timeout", "160",
		"--solution", "solution.py", "--tests", "tests.py", "--entry-point", "add"}
	if got := p.Command(); !slices.Equal(got, want) {
		t.Errorf("Command() = %q, want %q", got, want)
	}
	if got := (Program{}).Command(); !slices.Equal(got[4:10], []string{"--cpu-limit", "10", "--timeout", "40", "--hard-timeout", "400"}) || slices.Contains(got, "--entry-point") {
		t.Errorf("Command() of the zero Program = %q", got)
	}
	files := p.Files()
	if string(files[SolutionFile]) != "s" || string(files[TestsFile]) != "t" ||
		!strings.Contains(string(files[ScriptFile]), "def run_child(") || len(files) != 3 {
		t.Errorf("Files() = %q", files)
	}
	for name, ok := range map[string]bool{"add": true, "_x9": true, "": true, "9x": false, "a-b": false, "a b": false, "é": false} {
		if err := (Program{EntryPoint: name}).Validate(); (err == nil) != ok {
			t.Errorf("Validate(EntryPoint %q) = %v", name, err)
		}
	}
}
