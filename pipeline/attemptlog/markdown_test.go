package attemptlog

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMarkdownOmitted(t *testing.T) {
	trims := func(ts ...AttemptTrim) MarkdownOptions { return MarkdownOptions{Attempts: ts} }
	tests := []struct {
		name string
		log  *Log
		opts MarkdownOptions
		want Omitted
		line string // the line that stands in for what was left out
	}{
		{"nothing", repoLog(), MarkdownOptions{}, Omitted{}, ""},
		{"output", repoLog(), trims(AttemptTrim{}, AttemptTrim{Output: true}), Omitted{Output: []int{1}}, "Test output left out (1 line)."},
		{"output shortened", repoLog(), trims(AttemptTrim{}, AttemptTrim{MaxOutput: 100}), Omitted{Output: []int{1}}, "[... output shortened ...]"},
		{"output at the usual cap", repoLog(), trims(AttemptTrim{}, AttemptTrim{MaxOutput: MarkdownOutputCap}), Omitted{}, "[... output shortened ...]"},
		{"output it does not have", repoLog(), trims(AttemptTrim{Output: true}), Omitted{}, ""},
		{"patch", repoLog(), trims(AttemptTrim{Code: true}, AttemptTrim{Code: true}), Omitted{Code: []int{1}}, "Patch left out (5 lines)."},
		{"code", functionLog(), trims(AttemptTrim{Code: true}), Omitted{Code: []int{0}}, "Code left out (2 lines)."},
		{"feedback", repoLog(), trims(AttemptTrim{Feedback: true}, AttemptTrim{Feedback: true}), Omitted{Feedback: []int{0, 1}}, "Feedback to the model left out (1 line)."},
		{"details", repoLog(), trims(AttemptTrim{Details: true, Feedback: true}), Omitted{Details: []int{0}}, "Details of attempt 0 left out."},
		{"rows", repoLog(), trims(AttemptTrim{Row: true}, AttemptTrim{Row: true, Details: true}), Omitted{Rows: []int{0, 1}}, "Attempts 0, 1 left out of the table."},
		{"context files", repoLog(), MarkdownOptions{NoContextFiles: true}, Omitted{ContextFiles: true}, "The list of files in the context is left out."},
		{"no context", functionLog(), MarkdownOptions{NoContextFiles: true}, Omitted{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			got, err := tt.log.WriteMarkdownWith(&b, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("omitted %+v, want %+v", got, tt.want)
			}
			if tt.line != "" && !strings.Contains(b.String(), tt.line) {
				t.Errorf("no %q in:\n%s", tt.line, b.String())
			}
			var full strings.Builder
			if err := tt.log.WriteMarkdown(&full); err != nil {
				t.Fatal(err)
			}
			// A rendering differs from the full one exactly when it
			// reports something left out.
			if same := b.String() == full.String(); same != reflect.DeepEqual(got, Omitted{}) {
				t.Errorf("rendering equals the full one: %v, but omitted %+v", same, got)
			}
		})
	}
}

func TestMarkdownShortensBetweenCharacters(t *testing.T) {
	l := functionLog()
	l.Attempts[0].Run.Output = "x" + strings.Repeat("é", MarkdownOutputCap)
	var b strings.Builder
	if err := l.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "[... output shortened ...]") || !utf8.ValidString(b.String()) {
		t.Errorf("shortened output is not valid UTF-8, or not shortened:\n%s", b.String())
	}
}

// TestMarkdownReproducingTestLanguage shows the reproducing test in a code
// block of its own language.
func TestMarkdownReproducingTestLanguage(t *testing.T) {
	for _, tc := range []struct{ file, fence string }{
		{"tests/test_capsule_reproduction.py", "```python\n"},
		{"capsule_reproduction_test.go", "```go\n"},
		{"test/capsule-reproduction.test.ts", "```ts\n"},
		{"src/capsule-reproduction.spec.js", "```js\n"},
		{"tests/capsule_reproduction.rs", "```rust\n"},
		{"src/test/java/calc/CapsuleReproductionTest.java", "```java\n"},
	} {
		l := repoLog()
		l.Reproduction = &Reproduction{Mode: "auto", File: tc.file, Accepted: true, Content: "x\n"}
		var b strings.Builder
		if err := l.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "<summary>The reproducing test</summary>\n\n"+tc.fence+"x\n```") {
			t.Errorf("%s: the reproducing test is not in a %q block:\n%s", tc.file, tc.fence, b.String())
		}
	}
}
