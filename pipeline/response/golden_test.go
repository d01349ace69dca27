package response

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// entryPoints names the function each function-level answer in testdata was
// asked for.
var entryPoints = map[string]string{
	"fix_mode":         "remove_Occ",
	"gpt4_chatty":      "length_of_longest_substring",
	"no_header_blocks": "prime_factors",
	"qwen_think":       "fib",
	"truncated":        "rotate",
	"bare":             "most_common_word",
	"refusal":          "parse_date",
	"repo_mode":        "",
	"repo_mode_sloppy": "",
	"repo_mode_edits":  "",
}

// golden is what a golden file holds: the parse result and the error text.
type golden struct {
	Response
	Error string `json:",omitempty"`
}

// TestGolden parses the realistic answers in testdata/*.md, with Parse for
// repository-mode answers and ParseFunction for the others, and compares
// the results with testdata/*.golden.json; run with -update to rewrite
// them.
func TestGolden(t *testing.T) {
	answers, err := filepath.Glob("testdata/*.md")
	if err != nil || len(answers) == 0 {
		t.Fatalf("no answers in testdata: %v", err)
	}
	for _, path := range answers {
		name := strings.TrimSuffix(filepath.Base(path), ".md")
		t.Run(name, func(t *testing.T) {
			entry, ok := entryPoints[name]
			if !ok {
				t.Fatalf("add %s to entryPoints", name)
			}
			answer, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			parseAnswer := Parse
			if entry != "" {
				parseAnswer = func(a string) (Response, error) { return ParseFunction(a, entry) }
			}
			resp, err := parseAnswer(string(answer))
			got := golden{Response: resp}
			if err != nil {
				got.Error = err.Error()
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(got); err != nil {
				t.Fatal(err)
			}
			data := buf.Bytes()
			goldenPath := strings.TrimSuffix(path, ".md") + ".golden.json"
			if *update {
				if err := os.WriteFile(goldenPath, data, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if string(data) != string(want) {
				t.Errorf("parse %s (entry point %q) =\n%s\nwant\n%s", path, entry, data, want)
			}
		})
	}
}
