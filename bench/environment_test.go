package bench

import (
	"testing"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/harness"
	"github.com/capsulehq/capsule/sandbox"
)

func TestEnvironmentFailure(t *testing.T) {
	nltk := "LookupError: \n**********\n  Resource \x1b[93mstopwords\x1b[0m not found.\n  Please use the NLTK Downloader to obtain the resource:\n\n  >>> import nltk\n  >>> nltk.download('stopwords')\n"
	tests := []struct {
		name   string
		stderr string
		oom    bool
		want   string
	}{
		{"module", "  File \"solution.py\", line 1, in <module>\nModuleNotFoundError: No module named 'tensorflow'\n", false, "missing module: tensorflow"},
		{"submodule", "ModuleNotFoundError: No module named 'sklearn.cluster'\n", false, "missing module: sklearn.cluster"},
		{"nltk data", nltk, false, "missing NLTK data: stopwords"},
		{"program", "/bin/sh: 1: unzip: not found\nAssertionError: 'a' not found in ''\n", false, "missing program: unzip"},
		{"program by subprocess", "FileNotFoundError: [Errno 2] No such file or directory: 'python'\n", false, "missing program: python"},
		{"network", "socket.gaierror: [Errno -3] Temporary failure in name resolution\n", false, "network access: gaierror"},
		{"import", "ImportError: cannot import name 'x' from 'y'\n", false, "missing module: cannot import name 'x' from 'y'"},
		{"version", "FAIL: test_a (solution.TestCases.test_a)\nTraceback (most recent call last):\nAssertionError: 3 != 4\n\nsolution.CapsuleTestsFailed: 1 of 1 tests failed\n", false, "reference fails: AssertionError: 3 != 4"},
		{"memory", "", true, "memory limit: killed past 512 MiB"},
		{"nothing", "", false, "reference fails: exit status 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := pipeline.Outcome{
				Sandbox: sandbox.Result{ExitCode: 1, OOMKilled: tt.oom, Memory: sandbox.DefaultMemory},
				Harness: harness.Result{ExitCode: 1, Stderr: tt.stderr},
			}
			if got := EnvironmentFailure(o); got != tt.want {
				t.Errorf("EnvironmentFailure = %q, want %q", got, tt.want)
			}
		})
	}
}
