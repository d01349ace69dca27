package programmer

import (
	"fmt"
	"github.com/capsulehq/capsule/pipeline/edits"
	"regexp"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/chat"
)

// marker names what a message is: the prompt's mode for a system message,
// else the task or the code/feedback of an attempt (c1 = code1, f2 = feedback2).
var marker = regexp.MustCompile(`TASK|code\d|feedback\d`)

func summarize(msgs []chat.Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		what := marker.FindString(m.Content)
		switch {
		case m.Role == chat.System && m.Content == SystemPrompt(KindFunction, ModeFix):
			what = "fix"
		case m.Role == chat.System && m.Content == SystemPrompt(KindFunction, ModeGenerate):
			what = "generate"
		case strings.HasPrefix(what, "code"):
			what = "c" + what[4:]
		case strings.HasPrefix(what, "feedback"):
			what = "f" + what[8:]
		}
		parts[i] = fmt.Sprintf("%s:%s", m.Role, what)
	}
	return strings.Join(parts, " ")
}

func TestConversationHistory(t *testing.T) {
	const (
		sys  = "system:fix user:TASK "
		c0f1 = "assistant:c0 user:f1"
		c1f2 = "assistant:c1 user:f2"
		c2f3 = "assistant:c2 user:f3"
		c3f4 = "assistant:c3 user:f4"
	)
	tests := []struct {
		history int
		want    []string // the messages of fix rounds 1 to 4
	}{
		{0, []string{
			sys + c0f1,
			sys + c1f2,
			sys + c2f3,
			sys + c3f4,
		}},
		{1, []string{
			sys + c0f1,
			sys + c0f1 + " " + c1f2,
			sys + c1f2 + " " + c2f3,
			sys + c2f3 + " " + c3f4,
		}},
		{2, []string{
			sys + c0f1,
			sys + c0f1 + " " + c1f2,
			sys + c0f1 + " " + c1f2 + " " + c2f3,
			sys + c1f2 + " " + c2f3 + " " + c3f4,
		}},
		{-1, []string{ // treated as 0
			sys + c0f1,
			sys + c1f2,
			sys + c2f3,
			sys + c3f4,
		}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("history=%d", tt.history), func(t *testing.T) {
			conv := NewConversation(KindFunction, "TASK: add two numbers", tt.history)
			if got, want := summarize(conv.GenerationMessages()), "system:generate user:TASK"; got != want {
				t.Errorf("generation = %s, want %s", got, want)
			}
			for round := 1; round <= 4; round++ {
				code := fmt.Sprintf("def add(a, b):\n    return code%d", round-1)
				msgs := conv.FixMessages(fmt.Sprintf("AssertionError: feedback%d", round), code)
				if got := summarize(msgs); got != tt.want[round-1] {
					t.Errorf("fix round %d:\n got %s\nwant %s", round, got, tt.want[round-1])
				}
				if msgs[1].Content != "TASK: add two numbers" {
					t.Errorf("fix round %d: second message = %q, want the original task", round, msgs[1].Content)
				}
				if last := msgs[len(msgs)-2].Content; !strings.Contains(last, code) {
					t.Errorf("fix round %d: the code that failed is missing:\n%s", round, last)
				}
			}
		})
	}
}

func TestConversationAlternates(t *testing.T) {
	conv := NewConversation(KindRepo, "issue", 2)
	for round := range 4 {
		msgs := conv.FixMessages("feedback", "### File: a.py\n```python\nx = 1\n```")
		for i, m := range msgs[1:] {
			want := chat.User
			if i%2 == 1 {
				want = chat.Assistant
			}
			if m.Role != want {
				t.Fatalf("round %d, message %d: role %s, want %s", round+1, i+1, m.Role, want)
			}
		}
		if msgs[len(msgs)-1].Role != chat.User {
			t.Fatalf("round %d: the last message is not the user's", round+1)
		}
	}
}

func TestConversationKinds(t *testing.T) {
	files := FormatFiles([]edits.FileEdit{{Path: "pkg/mod.py", Whole: true, Content: "x = 1\n"}})
	tests := []struct {
		kind       TaskKind
		code       string
		wantAnswer string
	}{
		{KindFunction, "def f():\n    return 1\n", "### Code\n```python\ndef f():\n    return 1\n```"},
		{KindRepo, files + "\n", files},
	}
	for _, tt := range tests {
		t.Run(tt.kind.String(), func(t *testing.T) {
			conv := NewConversation(tt.kind, "task", DefaultHistory)
			gen := conv.GenerationMessages()
			if gen[0].Content != SystemPrompt(tt.kind, ModeGenerate) {
				t.Errorf("generation system prompt is not the %v one", tt.kind)
			}
			fix := conv.FixMessages("boom", tt.code)
			if fix[0].Content != SystemPrompt(tt.kind, ModeFix) {
				t.Errorf("fix system prompt is not the %v one", tt.kind)
			}
			if got := fix[2].Content; got != tt.wantAnswer {
				t.Errorf("previous answer =\n%s\nwant\n%s", got, tt.wantAnswer)
			}
		})
	}
}
