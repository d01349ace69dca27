package feedback

import (
	"testing"
	"unicode/utf8"
)

// FuzzRefine checks that Refine and Raw never panic, never return an empty
// message and keep to their caps, on any output.
func FuzzRefine(f *testing.F) {
	for i, fx := range fixtures {
		out := loadRun(f, fx.name)
		f.Add(out.Stdout, out.Stderr, out.ExitCode, uint8(fx.style), 50+i*40, "add")
	}
	f.Add("", "Traceback (most recent call last):\n  File \"x\", line 1\n", 1, uint8(0), 0, "")
	f.Fuzz(func(t *testing.T, stdout, stderr string, exit int, style uint8, maxLen int, entry string) {
		in := Input{Stdout: stdout, Stderr: stderr, ExitCode: exit, Style: Style(style % 5),
			MaxLen: maxLen % 5000, EntryPoint: entry, Workspace: "/workspace"}
		limit := in.MaxLen
		if limit <= 0 {
			limit = DefaultMaxLen
		}
		fb := Refine(in)
		if fb.Kind == "" || fb.Message == "" || !utf8.ValidString(fb.Message) {
			t.Fatalf("Refine = %+v", fb)
		}
		if n := utf8.RuneCountInString(fb.Message); n > limit {
			t.Fatalf("message of %d characters over MaxLen %d", n, limit)
		}
		raw := Raw(in)
		if raw.Kind != KindRaw || raw.Message == "" || !utf8.ValidString(raw.Message) || utf8.RuneCountInString(raw.Message) > 10*limit {
			t.Fatalf("Raw = %+v", raw)
		}
	})
}
