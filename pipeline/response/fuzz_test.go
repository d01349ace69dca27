package response

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	answers, _ := filepath.Glob("testdata/*.md")
	for _, path := range answers {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(string(data), "")
		}
	}
	for _, seed := range []string{
		"```python\ndef f(): pass\n```",
		"### Requirements\r\n- numpy\r\n### Code\r\n~~~py\r\nx = 1\r\n",
		"### File: a.py\n````\n```\n````\n### File:\n```\n```\n**File:** a.py\n```\n",
		"<think>```python\nx```</think>\ndef f(): pass",
		"    ```\n  # x\n```\n",
	} {
		f.Add(seed, "f")
	}
	f.Fuzz(func(t *testing.T, answer, entry string) {
		parseAnswer := Parse
		if entry != "" {
			parseAnswer = func(a string) (Response, error) { return ParseFunction(a, entry) }
		}
		resp, err := parseAnswer(answer)
		again, errAgain := parseAnswer(answer)
		if !reflect.DeepEqual(resp, again) || (err == nil) != (errAgain == nil) {
			t.Fatal("parsing is not deterministic")
		}
		switch {
		case err == nil && resp.Code == "" && len(resp.Files) == 0:
			t.Fatal("no error, but neither code nor files")
		case err != nil && !errors.Is(err, ErrNoCode) && !errors.Is(err, ErrFileBlock):
			t.Fatalf("unexpected error: %v", err)
		case errors.Is(err, ErrNoCode) && (resp.Code != "" || len(resp.Files) > 0):
			t.Fatal("ErrNoCode with code")
		}
		checkText(t, "Code", resp.Code)
		if strings.Contains(resp.Reasoning, "\r") {
			t.Fatal("carriage return in Reasoning")
		}
		seen := map[string]bool{}
		for _, f := range resp.Files {
			if f.Path == "" || f.Path != strings.Trim(f.Path, " \t`'\"") || seen[f.Path] {
				t.Fatalf("bad or repeated path %q", f.Path)
			}
			seen[f.Path] = true
			checkText(t, "Content of "+f.Path, f.Content)
		}
		for _, r := range resp.Requirements {
			if r == "" || strings.EqualFold(r, "none") || r != strings.TrimSpace(r) {
				t.Fatalf("bad requirement %q", r)
			}
		}
	})
}

// checkText checks that code is empty or ends with exactly one newline, and
// has no carriage returns.
func checkText(t *testing.T, what, s string) {
	t.Helper()
	if s != "" && (!strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\n\n")) {
		t.Fatalf("%s does not end with exactly one newline: %q", what, s)
	}
	if strings.Contains(s, "\r") {
		t.Fatalf("carriage return in %s", what)
	}
}
