package fakeopenai

import (
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Script decides the answer to the call-th chat completion request, counting
// from 0. The server may call it from several goroutines at once.
type Script func(call int, req openai.ChatCompletionRequest) Response

// Response is the scripted answer to one request: a completion, or an HTTP
// error when Status is set.
type Response struct {
	// Content is the assistant message of a completion.
	Content string
	// FinishReason defaults to "stop".
	FinishReason openai.FinishReason
	// Usage is the reported token usage. When nil the server counts words:
	// prompt tokens are the words of all request messages, completion tokens
	// the words of Content (as split by strings.Fields).
	Usage *Usage

	// Status, when non-zero, answers with this HTTP error status instead.
	Status int
	// Message and Code fill OpenAI's error JSON, e.g. Code "model_not_found".
	Message, Code string
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
	// Body, when set, replaces the error JSON, e.g. with a proxy's HTML page.
	Body string
}

// Usage is the token usage a completion reports.
type Usage struct {
	Prompt, Completion int
}

// Reply is a completion with the given content and counted usage.
func Reply(content string) Response {
	return Response{Content: content}
}

// Error is an HTTP error with OpenAI's error JSON.
func Error(status int, message string) Response {
	return Response{Status: status, Message: message}
}

// Sequence answers the i-th request with rs[i] and every later one with the
// last response. It panics when rs is empty.
func Sequence(rs ...Response) Script {
	if len(rs) == 0 {
		panic("fakeopenai: empty sequence")
	}
	return func(call int, _ openai.ChatCompletionRequest) Response {
		return rs[min(call, len(rs)-1)]
	}
}

// usage returns the scripted usage, or the word counts described on Response.
func (r Response) usage(req openai.ChatCompletionRequest) openai.Usage {
	u := Usage{Completion: len(strings.Fields(r.Content))}
	if r.Usage != nil {
		u = *r.Usage
	} else {
		for _, m := range req.Messages {
			u.Prompt += len(strings.Fields(m.Content))
		}
	}
	return openai.Usage{
		PromptTokens:     u.Prompt,
		CompletionTokens: u.Completion,
		TotalTokens:      u.Prompt + u.Completion,
	}
}
