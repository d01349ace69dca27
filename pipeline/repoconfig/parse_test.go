package repoconfig

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestParse(t *testing.T) {
	full := Config{
		Label:       "fix-me",
		Test:        "make test",
		Setup:       "pip install -e .",
		Network:     true,
		Image:       "python:3.12-slim",
		Timeout:     90 * time.Second,
		MaxAttempts: 3,
		History:     2,
		Reproduce:   ReproduceRequired,

		ReproduceTries: 4,
		Protected:      []string{"spec/**"},
		OnFailure:      OnFailureComment,
		Memory:         2 << 30,
		CPUs:           1.5,
		Disk:           3 << 30,
		Source:         Path,

		AllowTestInfrastructureChanges: true,
		CIRounds:                       5,
	}
	defaults := Default()
	defaults.Source = Path
	with := func(edit func(*Config)) Config {
		c := defaults
		c.Protected = append([]string(nil), c.Protected...)
		edit(&c)
		return c
	}
	tests := []struct {
		name string
		yaml string
		want Config
	}{
		{"empty", "", defaults},
		{"comments only", "# nothing to see\n\n# here\n", defaults},
		{"bare document marker", "---\n", defaults},
		{"every key", `
label: fix-me
test: make test
setup: pip install -e .
network: true
image: python:3.12-slim
timeout: 90s
max_attempts: 3
history: 2
protected: ["spec/**"]
on_failure: comment
reproduce: required
reproduce_tries: 4
memory: 2GiB
cpus: 1.5
disk: 3g
allow_test_infrastructure_changes: true
ci_rounds: 5
`, full},
		{"no CI rounds", "ci_rounds: 0", with(func(c *Config) { c.CIRounds = 0 })},
		{"budgets", "max_tokens_per_job: 200000\nmax_cost_per_job: 1.5", with(func(c *Config) { c.MaxTokensPerJob, c.MaxCostPerJob = 200000, 1.5 })},
		{"whole dollars", "max_cost_per_job: 2", with(func(c *Config) { c.MaxCostPerJob = 2 })},
		{"memory as Docker writes it", "memory: 512m", with(func(c *Config) { c.Memory = 512 << 20 })},
		{"memory in bytes", "memory: 1073741824", with(func(c *Config) { c.Memory = 1 << 30 })},
		{"memory with a space", "memory: 3 GB", with(func(c *Config) { c.Memory = 3 << 30 })},
		{"whole cpus", "cpus: 4", with(func(c *Config) { c.CPUs = 4 })},
		{"timeout in seconds", "timeout: 300", with(func(c *Config) { c.Timeout = 5 * time.Minute })},
		{"timeout in quoted seconds", `timeout: "45"`, with(func(c *Config) { c.Timeout = 45 * time.Second })},
		{"compound timeout", "timeout: 1h30m", with(func(c *Config) { c.Timeout = 90 * time.Minute })},
		{"no fix attempts", "max_attempts: 0\nhistory: 0", with(func(c *Config) { c.MaxAttempts, c.History = 0, 0 })},
		{"nothing protected", "protected: []", with(func(c *Config) { c.Protected = []string{} })},
		{"block list", "protected:\n  - src/**\n  - '**/*.lock'\n", with(func(c *Config) { c.Protected = []string{"src/**", "**/*.lock"} })},
		{"reports", `reports: ["target/surefire-reports/*.xml", "**/junit.xml"]`, with(func(c *Config) { c.Reports = []string{"target/surefire-reports/*.xml", "**/junit.xml"} })},
		{"multi-line setup", "setup: |\n  pip install -r requirements.txt\n  pip install -e .\n",
			with(func(c *Config) { c.Setup = "pip install -r requirements.txt\npip install -e .\n" })},
		{"empty setup", `setup: ""`, defaults},
		{"explicit string tag", "label: !!str 2024", with(func(c *Config) { c.Label = "2024" })},
		{"aliases", "setup: &cmd make deps\ntest: *cmd\n", with(func(c *Config) { c.Setup, c.Test = "make deps", "make deps" })},
		{"flow mapping", "{label: bot, network: false}", with(func(c *Config) { c.Label = "bot" })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(Path, []byte(tt.yaml))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// TestParseGolden parses the invalid files in testdata/*.yml and compares
// the error with testdata/*.golden; run with -update to rewrite those.
func TestParseGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.yml")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs in testdata: %v", err)
	}
	for _, input := range inputs {
		name := strings.TrimSuffix(filepath.Base(input), ".yml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(input)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Parse(Path, data)
			if err == nil {
				t.Fatalf("Parse succeeded with %+v; testdata holds invalid files only", c)
			}
			if !reflect.DeepEqual(c, Config{}) {
				t.Errorf("Parse returned %+v with its error; want the zero Config", c)
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(input, ".yml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("error mismatch\n got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestParseErrorDetails checks the structure behind the messages: one
// *ParseError per problem, in line order, with the key named.
func TestParseErrorDetails(t *testing.T) {
	data := "history: -1\nlabel: ''\ntset: x\n"
	_, err := Parse("capsule.yml", []byte(data))
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("Parse error %T is not a joined error: %v", err, err)
	}
	var got []ParseError
	for _, e := range joined.Unwrap() {
		pe, ok := errors.AsType[*ParseError](e)
		if !ok {
			t.Fatalf("%T is not a *ParseError: %v", e, e)
		}
		got = append(got, *pe)
	}
	want := []ParseError{
		{File: "capsule.yml", Line: 1, Key: "history", Msg: "history: must not be negative, got -1"},
		{File: "capsule.yml", Line: 2, Key: "label", Msg: "label: must not be empty"},
		{File: "capsule.yml", Line: 3, Key: "tset", Msg: `unknown key "tset" (did you mean "test"?)`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems =\n%+v\nwant\n%+v", got, want)
	}
}

// TestParseManyProblems checks that a file of garbage yields a bounded
// report.
func TestParseManyProblems(t *testing.T) {
	var b strings.Builder
	for i := range 50 {
		b.WriteString(strings.Repeat("x", i+1) + ": 1\n")
	}
	_, err := Parse(Path, []byte(b.String()))
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxProblems+1 {
		t.Fatalf("got %d lines, want %d:\n%v", len(lines), maxProblems+1, err)
	}
	if want := Path + ": 30 more problems not shown"; lines[maxProblems] != want {
		t.Errorf("last line = %q; want %q", lines[maxProblems], want)
	}
}

func TestParseTooLarge(t *testing.T) {
	data := []byte("# " + strings.Repeat("x", MaxSize) + "\n")
	_, err := Parse(Path, data)
	if err == nil || !strings.Contains(err.Error(), "larger than the 64 KiB limit") {
		t.Errorf("Parse of %d bytes: %v; want a size error", len(data), err)
	}
}

func TestDefaultIsFresh(t *testing.T) {
	a := Default()
	a.Protected[0] = "changed"
	if b := Default(); b.Protected[0] == "changed" {
		t.Error("Default shares its Protected slice between calls")
	}
}

func TestSuggest(t *testing.T) {
	tests := map[string]string{
		"tset":         `(did you mean "test"?)`,
		"Test":         `(did you mean "test"?)`,
		"maxAttempts":  `(did you mean "max_attempts"?)`,
		"max_attempt":  `(did you mean "max_attempts"?)`,
		"on-failure":   `(did you mean "on_failure"?)`,
		"protect":      `(did you mean "protected"?)`,
		"timout":       `(did you mean "timeout"?)`,
		"retries":      "(known keys: label, test, reports, setup, network, image, devcontainer, timeout, max_attempts, history, protected, on_failure, reproduce, reproduce_tries, memory, cpus, disk, allow_test_infrastructure_changes, ci_rounds, max_tokens_per_job, max_cost_per_job)",
		"ci_round":     `(did you mean "ci_rounds"?)`,
		"cpu":          `(did you mean "cpus"?)`,
		"x":            "(known keys:",
		"labelled_bot": "(known keys:",
	}
	for key, want := range tests {
		if got := suggest(key); !strings.Contains(got, want) {
			t.Errorf("suggest(%q) = %q; want it to contain %q", key, got, want)
		}
	}
}

// FuzzParse checks that Parse never panics and that what it accepts is
// valid.
func FuzzParse(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/*.yml")
	for _, input := range inputs {
		data, err := os.ReadFile(input)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("a: &x [*x]\nprotected: *x\n"))
	f.Add([]byte("protected: &p\n  - *p\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(Path, data)
		if err != nil {
			return
		}
		if c.Label == "" || c.Timeout <= 0 || c.MaxAttempts < 0 || c.History < 0 || c.Memory < 0 || c.CPUs < 0 || c.Disk < 0 || c.CIRounds < 0 {
			t.Errorf("Parse accepted %q as %+v", data, c)
		}
		if c.OnFailure != OnFailureDraft && c.OnFailure != OnFailureComment {
			t.Errorf("Parse accepted on_failure %q", c.OnFailure)
		}
		for _, p := range c.Protected {
			if err := checkPattern(p); err != nil {
				t.Errorf("Parse accepted pattern %q: %v", p, err)
			}
		}
	})
}
