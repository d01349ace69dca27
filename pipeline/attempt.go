package pipeline

import (
	"context"
	"fmt"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/feedback"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/response"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/limits"
)

// What function mode's attempt and repository mode's attempt (package
// repo) share: the model call, the feedback on an answer that cannot be
// used, and the feedback on a failed run.

// AnswerForm is what one mode's answers hold, in the words of the
// feedback that asks for another.
type AnswerForm struct {
	Shorter  string // asks for an answer short enough to be read
	Complete string // what a cut-off answer left incomplete
	Reminder string // the answer format
}

// functionAnswer is the form of function mode's answers.
var functionAnswer = AnswerForm{
	Shorter:  "Answer again with only the code of the function.",
	Complete: "the code was",
	Reminder: response.FormatReminder,
}

// KindTooLarge is the feedback kind of an answer longer than the model
// client reads.
const KindTooLarge = "too-large"

// Ask makes an attempt's model call and records the answer. It reports
// false, with the feedback set, when the answer was longer than the model
// client reads.
func (f AnswerForm) Ask(ctx context.Context, model Model, msgs []chat.Message) (attemptlog.Attempt, programmer.Reply, bool, error) {
	a := attemptlog.Attempt{Messages: msgs}
	reply, err := model.Complete(ctx, msgs)
	if err != nil {
		return a, reply, false, fmt.Errorf("model call: %w", err)
	}
	a.Answer = reply.Content
	a.PromptTokens, a.CompletionTokens, a.ModelDuration = reply.PromptTokens, reply.CompletionTokens, reply.Duration
	if reply.OverLimit > 0 {
		a.Feedback, a.FeedbackKind = tooLarge(reply.OverLimit, f.Shorter), KindTooLarge
		return a, reply, false, nil
	}
	return a, reply, true, nil
}

// NoCode sets the feedback on an answer without code: the format, after
// a note when the answer was cut off at the token limit.
func (f AnswerForm) NoCode(a *attemptlog.Attempt, truncated bool) {
	a.Feedback, a.FeedbackKind = f.Reminder, "format"
	if truncated {
		a.Feedback = "Your answer was cut off at the token limit before " + f.Complete + " complete. " + f.Reminder
	}
}

// tooLarge is the feedback on an answer longer than limit bytes, which the
// model client dropped unread; ask says what to send instead.
func tooLarge(limit int64, ask string) string {
	return fmt.Sprintf("Nothing was tested: your answer was longer than %s, the most that is read, so none of it was used. %s", limits.FormatBytes(limit), ask)
}

// RunFeedback sets the feedback on a failed run: refined by the error
// handler, or the raw output (the paper's ablation).
func RunFeedback(a *attemptlog.Attempt, mode FeedbackMode, in feedback.Input) {
	fb := feedback.Refine(in)
	if mode == FeedbackRaw {
		fb = feedback.Raw(in)
	}
	a.Feedback, a.FeedbackKind = fb.Message, fb.Kind
}

// OOMNote is stderr with a line saying the run was killed for memory, when
// it was.
func OOMNote(stderr string, res sandbox.Result) string {
	if !res.OOMKilled {
		return stderr
	}
	return stderr + fmt.Sprintf("\nMemoryError: the tests were killed for using more than %s of memory\n", limits.FormatBytes(res.Memory))
}
