package programmer

import (
	"slices"

	"github.com/capsulehq/capsule/pipeline/chat"
)

// DefaultHistory is how many earlier failed attempts a fix call retains by
// default; PyCapsule's ablation found one better than two or three.
const DefaultHistory = 1

// Conversation builds the messages of one problem's calls: the system prompt
// of the current mode, the original task (always kept), and of the failed
// attempts only the latest ones. It is not safe for concurrent use.
type Conversation struct {
	kind    TaskKind
	task    string
	history int
	// failed holds the attempts still shown, oldest first: the current one
	// and at most history earlier ones.
	failed []attempt
	// requests and items are the requests a job allows and the items one
	// may name (AllowRequests); kept are the answered requests' exchanges,
	// shown after the task in every fix call.
	requests, items int
	kept            []chat.Message
}

// attempt is code that ran and the feedback it earned.
type attempt struct {
	code, feedback string
}

// NewConversation starts a conversation about task, the rendered user
// message of a FunctionTask or RepoTask. Fix calls retain the last history
// earlier (code, feedback) pairs besides the current one; history 0 retains
// none.
func NewConversation(kind TaskKind, task string, history int) *Conversation {
	return &Conversation{kind: kind, task: task, history: max(history, 0)}
}

// GenerationMessages returns the messages of the generation call.
func (c *Conversation) GenerationMessages() []chat.Message {
	return []chat.Message{
		{Role: chat.System, Content: c.system(ModeGenerate)},
		{Role: chat.User, Content: c.task},
	}
}

// FixMessages records that previousCode failed with feedback, and returns
// the messages of the next fix call: the fix system prompt, the task, the
// exchanges of the answered requests (Answered), then for each retained
// earlier attempt and finally for this one, the code as
// the assistant's answer followed by the feedback as the user's reply.
//
// previousCode is the code as it ran: for KindFunction the Python source,
// for KindRepo the changed files rendered by FormatFiles.
//
// Showing the code as an assistant turn keeps user and assistant turns
// alternating, which some servers' chat templates require, and each piece
// of code appears once.
func (c *Conversation) FixMessages(feedback, previousCode string) []chat.Message {
	c.failed = append(c.failed, attempt{code: previousCode, feedback: feedback})
	if extra := len(c.failed) - (c.history + 1); extra > 0 {
		c.failed = slices.Delete(c.failed, 0, extra)
	}
	msgs := []chat.Message{
		{Role: chat.System, Content: c.system(ModeFix)},
		{Role: chat.User, Content: c.task},
	}
	msgs = append(msgs, c.kept...)
	for _, a := range c.failed {
		msgs = append(msgs,
			chat.Message{Role: chat.Assistant, Content: c.answer(a.code)},
			chat.Message{Role: chat.User, Content: render(feedbackTmpl, trimBlock(a.feedback))},
		)
	}
	return msgs
}

// answer renders code in the answer format of the task kind.
func (c *Conversation) answer(code string) string {
	if c.kind == KindRepo {
		return trimBlock(code)
	}
	return formatCode(code)
}
