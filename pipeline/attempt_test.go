package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/feedback"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/response"
	"github.com/capsulehq/capsule/sandbox"
)

// replies is a Model that answers with one reply, or fails.
type replies struct {
	reply programmer.Reply
	err   error
}

func (r replies) Complete(context.Context, []chat.Message) (programmer.Reply, error) {
	return r.reply, r.err
}

// TestAnswerForms: an answer is recorded with its usage, and the feedback
// on an answer that cannot be used is worded for the mode's answers
// (repository mode's: package repo).
func TestAnswerForms(t *testing.T) {
	msgs := []chat.Message{{Role: "user", Content: "fix it"}}
	tests := []struct {
		name     string
		form     AnswerForm
		reply    programmer.Reply
		err      error
		ok       bool
		feedback string // what the feedback starts with, after NoCode when ok
		kind     string
	}{
		{name: "function, too large", form: functionAnswer, reply: programmer.Reply{OverLimit: 4 << 20},
			feedback: "Nothing was tested: your answer was longer than 4 MiB, the most that is read, so none of it was used. Answer again with only the code of the function.", kind: KindTooLarge},
		{name: "function, no code", form: functionAnswer, reply: programmer.Reply{Content: "I would check it."}, ok: true,
			feedback: response.FormatReminder, kind: "format"},
		{name: "function, cut off", form: functionAnswer, reply: programmer.Reply{Content: "```python\ndef f(", Truncated: true}, ok: true,
			feedback: "Your answer was cut off at the token limit before the code was complete. " + response.FormatReminder, kind: "format"},
		{name: "the model fails", form: functionAnswer, err: errors.New("connection refused")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.reply.PromptTokens, tt.reply.CompletionTokens, tt.reply.Duration = 100, 20, time.Second
			a, reply, ok, err := tt.form.Ask(context.Background(), replies{tt.reply, tt.err}, msgs)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || ok || !strings.HasPrefix(err.Error(), "model call: ") {
					t.Fatalf("ask = %v, %v; want the model's error", ok, err)
				}
				return
			}
			if err != nil || ok != tt.ok {
				t.Fatalf("ask = %v, %v; want %v", ok, err, tt.ok)
			}
			if a.Answer != tt.reply.Content || a.PromptTokens != 100 || a.CompletionTokens != 20 || a.ModelDuration != time.Second || len(a.Messages) != 1 || reply != tt.reply {
				t.Errorf("attempt = %+v, reply %+v; want the answer and its usage recorded", a, reply)
			}
			if ok {
				tt.form.NoCode(&a, reply.Truncated)
			}
			if a.Feedback != tt.feedback || a.FeedbackKind != tt.kind {
				t.Errorf("feedback = %q (%s)\nwant %q (%s)", a.Feedback, a.FeedbackKind, tt.feedback, tt.kind)
			}
		})
	}
}

// TestRunFeedback: the mode picks the refined or the raw feedback, and a
// run killed for memory says so in what either sees.
func TestRunFeedback(t *testing.T) {
	killed := sandbox.Result{OOMKilled: true, Memory: 512 << 20}
	in := feedback.Input{Stdout: "collected 1 item\n", Stderr: OOMNote("Traceback (most recent call last):\n", killed), ExitCode: 137, Style: feedback.Pytest}
	if !strings.HasSuffix(in.Stderr, "\nMemoryError: the tests were killed for using more than 512 MiB of memory\n") {
		t.Errorf("OOMNote = %q", in.Stderr)
	}
	if got := OOMNote("out\n", sandbox.Result{Memory: 512 << 20}); got != "out\n" {
		t.Errorf("OOMNote of a run not killed = %q", got)
	}
	for _, mode := range []FeedbackMode{FeedbackRefined, FeedbackRaw} {
		var a attemptlog.Attempt
		RunFeedback(&a, mode, in)
		want := feedback.Refine(in)
		if mode == FeedbackRaw {
			want = feedback.Raw(in)
		}
		if a.Feedback != want.Message || a.FeedbackKind != want.Kind {
			t.Errorf("%s: feedback = %q (%s), want %q (%s)", mode, a.Feedback, a.FeedbackKind, want.Message, want.Kind)
		}
		if !strings.Contains(a.Feedback, "MemoryError") {
			t.Errorf("%s: feedback %q does not say the tests ran out of memory", mode, a.Feedback)
		}
	}
}
