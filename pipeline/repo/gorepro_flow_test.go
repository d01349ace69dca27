package repo

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/sandbox"
)

// hostBox runs each command on the host, in a fresh copy of a tree with
// the run's files laid over it: a stand-in for the sandbox where the test
// needs only a real toolchain's real output, not isolation (the real
// sandbox runs Go's tests in cmd/capsule's tests with the Go image).
type hostBox struct {
	t    *testing.T
	tree string
	env  []string
}

func (b hostBox) CutNetwork(context.Context) error { return nil }

func (b hostBox) Run(ctx context.Context, r sandbox.Run) (sandbox.Result, error) {
	dir := b.t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(b.tree)); err != nil {
		return sandbox.Result{}, err
	}
	for name, content := range r.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return sandbox.Result{}, err
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			return sandbox.Result{}, err
		}
	}
	for _, name := range r.Delete {
		os.Remove(filepath.Join(dir, filepath.FromSlash(name)))
	}
	ctx, cancel := context.WithTimeout(ctx, max(r.Timeout, 5*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Cmd[0], r.Cmd[1:]...)
	cmd.Dir = filepath.Join(dir, r.Dir)
	cmd.Env = append(append([]string(nil), b.env...), r.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := sandbox.Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), StdoutBytes: int64(stdout.Len()), StderrBytes: int64(stderr.Len()), Duration: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		return res, err
	}
	return res, nil
}

// solveScripted solves task through box with the test command and the
// scripted answers, in at most two attempts, and checks that the test
// designer's file was accepted at file.
func solveScripted(t *testing.T, box hostBox, task Task, command string, answers []string, file string) (*scripted, *attemptlog.Log) {
	t.Helper()
	model := &scripted{answers: answers}
	s := pipeline.DefaultSettings()
	s.MaxAttempts = 2
	out, err := Solve(context.Background(), model, box, Plan{Task: task, TestCommand: command, Settings: s, Limits: sandbox.Limits{Timeout: 5 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	log := out.Log
	if rec := log.Reproduction; rec == nil || !rec.Accepted || rec.File != file || rec.Skipped != "" {
		t.Fatalf("reproduction: %+v\nbaseline: %+v\nenv: %+v", rec, log.Baseline, log.Environment)
	}
	return model, log
}

// TestGoReproduction: on a Go module whose tests run under go test
// -json, the test designer is asked for a Go test in the package of the
// code the issue concerns; a test that fails on the untouched tree gives
// the targets, a fix that makes it pass is solved, and a no-op is not.
// Refused designs (TestMain, a wrong package) go back to the designer.
func TestGoReproduction(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is not on PATH: %v", err)
	}
	tree := writeTree(t, map[string]string{
		"go.mod":             "module example.com/calc\n\ngo 1.22\n",
		"stats/mean.go":      "// Package stats computes statistics.\npackage stats\n\n// Mean is the mean of v.\nfunc Mean(v []int) int {\n\ts := 0\n\tfor _, x := range v {\n\t\ts += x\n\t}\n\treturn s / len(v)\n}\n",
		"stats/mean_test.go": "package stats\n\nimport \"testing\"\n\nfunc TestMean(t *testing.T) {\n\tif got := Mean([]int{1, 3}); got != 2 {\n\t\tt.Errorf(\"Mean = %d\", got)\n\t}\n}\n",
	})
	cache := t.TempDir()
	box := hostBox{t: t, tree: tree, env: []string{"PATH=" + filepath.Dir(goBin) + ":/usr/bin:/bin", "HOME=" + cache, "GOCACHE=" + filepath.Join(cache, "build"),
		"GOPATH=" + filepath.Join(cache, "path"), "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS="}}

	const (
		testMain  = "### File: stats/capsule_reproduction_test.go\n```go\npackage stats\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n\nfunc TestMeanEmpty(t *testing.T) {}\n```\n"
		wrongPkg  = "### File: stats/capsule_reproduction_test.go\n```go\npackage calc\n\nimport \"testing\"\n\nfunc TestMeanEmpty(t *testing.T) {}\n```\n"
		design    = "The mean of nothing should be 0.\n\n### File: stats/capsule_reproduction_test.go\n```go\npackage stats\n\nimport \"testing\"\n\nfunc TestMeanEmpty(t *testing.T) {\n\tdefer func() {\n\t\tif r := recover(); r != nil {\n\t\t\tt.Fatalf(\"Mean(nil) panicked: %v\", r)\n\t\t}\n\t}()\n\tif got := Mean(nil); got != 0 {\n\t\tt.Errorf(\"Mean(nil) = %d, want 0\", got)\n\t}\n}\n```\n"
		fix       = "### File: stats/mean.go\n```go\n<<<<<<< SEARCH\n\ts := 0\n=======\n\tif len(v) == 0 {\n\t\treturn 0\n\t}\n\ts := 0\n>>>>>>> REPLACE\n```\n"
		noop      = "### File: stats/mean.go\n```go\n<<<<<<< SEARCH\n// Mean is the mean of v.\n=======\n// Mean is the mean of the values v.\n>>>>>>> REPLACE\n```\n"
		wantFile  = "stats/capsule_reproduction_test.go"
		wantFirst = "example.com/calc/stats::TestMeanEmpty"
	)
	for _, tc := range []struct {
		name    string
		answers []string
		outcome attemptlog.Outcome
	}{
		{"fixed", []string{testMain, wrongPkg, design, fix}, attemptlog.Solved},
		{"no-op", []string{design, noop, noop}, attemptlog.NotSolved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model, log := solveScripted(t, box, Task{ID: t.Name(), Title: "Mean panics on an empty slice", Body: "`stats.Mean(nil)` panics with an integer divide by zero; it should return 0.", Dir: tree},
				"go test -json ./...", tc.answers, wantFile)
			rec := log.Reproduction
			if len(log.Baseline.Targets) == 0 || log.Baseline.Targets[0] != wantFirst {
				t.Errorf("targets %v, want %s first", log.Baseline.Targets, wantFirst)
			}
			if log.Outcome != tc.outcome {
				t.Errorf("outcome %s, want %s; stopped %q", log.Outcome, tc.outcome, log.Stopped)
			}
			if tc.name != "fixed" {
				return
			}
			if len(rec.Tries) != 3 || !strings.Contains(rec.Tries[0].Problem, "declares TestMain") || !strings.Contains(rec.Tries[1].Problem, "in package calc") {
				t.Errorf("tries: %+v", rec.Tries)
			}
			first := model.calls[0]
			if !strings.Contains(first[0].Content, "a new Go test file") || !strings.Contains(first[1].Content, "as the new file stats/capsule_reproduction_test.go, in package stats or stats_test") {
				t.Errorf("the designer's first call:\n%s\n---\n%s", first[0].Content, first[1].Content)
			}
		})
	}
}
