package programmer

import (
	"strings"

	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/pipeline/untrusted"
)

// The prompts of requests: the system prompt's section that teaches
// them, and the two replies to one.
var (
	repoAskTmpl        = mustParse("repo_ask")
	requestAnswerTmpl  = mustParse("request_answer")
	requestRefusedTmpl = mustParse("request_refused")
)

// AllowRequests lets the programmer agent of a repository-mode
// conversation answer with a request to see more of the repository
// instead of code, up to max times in a job, each naming at most items
// things: the system prompts then teach the request's syntax. Zero
// allows none, and leaves the system prompts as they are.
func (c *Conversation) AllowRequests(max, items int) {
	c.requests, c.items = max, items
}

// system is the system prompt of mode, with the section on requests when
// they are allowed.
func (c *Conversation) system(mode Mode) string {
	p := SystemPrompt(c.kind, mode)
	if c.kind == KindRepo && c.requests > 0 {
		p += "\n\n" + render(repoAskTmpl, struct{ Max, Items int }{c.requests, c.items})
	}
	return p
}

// Asked continues the messages of a call answered with a request that
// was refused: the request as the assistant's answer, then reply as the
// user's.
func (c *Conversation) Asked(msgs []chat.Message, request, reply string) []chat.Message {
	return c.asked(msgs, request, reply, false)
}

// Answered is Asked for a request that was answered: the exchange is
// also shown in every later fix call, after the task, so that what a
// request showed stays in view.
func (c *Conversation) Answered(msgs []chat.Message, request, reply string) []chat.Message {
	return c.asked(msgs, request, reply, true)
}

func (c *Conversation) asked(msgs []chat.Message, request, reply string, keep bool) []chat.Message {
	pair := []chat.Message{{Role: chat.Assistant, Content: trimBlock(request)}, {Role: chat.User, Content: reply}}
	if keep {
		c.kept = append(c.kept, pair...)
	}
	return append(msgs[:len(msgs):len(msgs)], pair...)
}

// RequestAnswer is what the programmer agent gets back for a request
// that was answered.
type RequestAnswer struct {
	// Number is the request's number in the job, Max the most the job
	// allows.
	Number, Max int
	// Text is the repository's text shown: sections as the context
	// renders files. It goes inside Boundary, exactly as it is.
	Text string
	// Notes say what was not shown, and why: Capsule's words, outside the
	// boundary.
	Notes []string
	// Boundary is the issue's: the text is data, as the issue is.
	Boundary untrusted.Boundary
}

// Render is the answer as the user message that follows the request.
func (r RequestAnswer) Render() string {
	return render(requestAnswerTmpl, struct {
		Number, Max int
		Text, Tag   string
		Notes       []string
	}{r.Number, r.Max, r.Boundary.Enclose(strings.Trim(r.Text, "\n")), r.Boundary.Tag(), oneLines(r.Notes)})
}

// RequestRefused is what the programmer agent gets back for a request
// that was refused as a whole.
type RequestRefused struct {
	// Notes say why.
	Notes []string
	// Retry says that a corrected request may still be answered before
	// the next answer with code.
	Retry bool
}

// Render is the refusal as the user message that follows the request.
func (r RequestRefused) Render() string {
	next := "Answer with code in the required format."
	if r.Retry {
		next = "Answer with code in the required format, or with a corrected request."
	}
	return render(requestRefusedTmpl, struct {
		Notes []string
		Next  string
	}{oneLines(r.Notes), next})
}

// oneLines cleans notes, which quote the model's request, into one line
// each.
func oneLines(notes []string) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = strings.Join(strings.Fields(untrusted.Clean(n)), " ")
	}
	return out
}
