package programmer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/capsulehq/capsule/pipeline/chat"
)

// Reply is the model's answer to one call.
type Reply struct {
	// Content is the assistant message.
	Content string
	// PromptTokens and CompletionTokens are the usage the endpoint reported.
	PromptTokens, CompletionTokens int
	// Duration is the wall time of the call, retries included.
	Duration time.Duration
	// Truncated reports that the answer stopped at the token limit.
	Truncated bool
	// OverLimit, when not zero, is the limit in bytes (Config.MaxAnswerBytes)
	// that the response passed: the answer was dropped unread, Content is
	// empty and no usage is known.
	OverLimit int64
}

// Client calls a chat completion endpoint through go-openai. It is safe for
// concurrent use.
type Client struct {
	cfg   Config
	api   *openai.Client
	clock clock
}

// New returns a client for cfg, after checking it and filling in defaults.
func New(cfg Config) (*Client, error) {
	return newClient(cfg, realClock{}, rand.Float64)
}

func newClient(cfg Config, clk clock, jitter func() float64) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	next := http.DefaultTransport
	if t, ok := next.(*http.Transport); ok {
		// Benchmarks run several workers against one endpoint.
		t = t.Clone()
		t.MaxIdleConnsPerHost = 32
		next = t
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = &http.Client{
		Transport: limitTransport{
			next:  retryTransport(next, cfg, clk, jitter),
			limit: cfg.MaxAnswerBytes,
		},
		Timeout: callBudget(cfg),
	}
	return &Client{cfg: cfg, api: openai.NewClientWithConfig(oc), clock: clk}, nil
}

// callBudget bounds a whole call, all attempts and waits included; it is a
// backstop, since each attempt has its own timeout.
func callBudget(cfg Config) time.Duration {
	n := time.Duration(cfg.MaxRetries)
	return (n+1)*cfg.RequestTimeout + n*maxRetryAfter
}

// Config returns the configuration in effect, defaults filled in.
func (c *Client) Config() Config { return c.cfg }

// WithMaxTokens returns a client like c whose answers are bounded to n
// tokens (Config.MaxTokens), sharing c's connections.
func (c *Client) WithMaxTokens(n int) *Client {
	d := *c
	d.cfg.MaxTokens = n
	return &d
}

// Complete sends msgs and returns the first choice of the answer. An
// answer longer than Config.MaxAnswerBytes is not an error: the Reply says
// so (OverLimit), so that the caller can tell the model.
func (c *Client) Complete(ctx context.Context, msgs []chat.Message) (Reply, error) {
	start := c.clock.Now()
	resp, err := c.api.CreateChatCompletion(ctx, c.request(msgs))
	if err != nil && isTooLarge(err) && ctx.Err() == nil {
		return Reply{OverLimit: c.cfg.MaxAnswerBytes, Duration: c.clock.Now().Sub(start)}, nil
	}
	if err != nil {
		return Reply{}, c.classify(ctx, "chat completion", err)
	}
	if len(resp.Choices) == 0 {
		return Reply{}, fmt.Errorf("chat completion at %s: the answer has no choices", c.cfg.BaseURL)
	}
	choice := resp.Choices[0]
	return Reply{
		Content:          choice.Message.Content,
		PromptTokens:     resp.Usage.PromptTokens,
		CompletionTokens: resp.Usage.CompletionTokens,
		Duration:         c.clock.Now().Sub(start),
		Truncated:        choice.FinishReason == openai.FinishReasonLength,
	}, nil
}

// Ping checks that the endpoint answers and accepts the API key, so that a
// long run fails fast. A server without GET /models passes. A model missing
// from the list is only logged: proxies and some servers list models partly.
func (c *Client) Ping(ctx context.Context) error {
	list, err := c.api.ListModels(ctx)
	if err != nil {
		err = c.classify(ctx, "list models", err)
		if e, ok := errors.AsType[*EndpointError](err); ok && e.Status == http.StatusNotFound {
			return nil
		}
		return err
	}
	listed := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		listed = append(listed, m.ID)
	}
	if len(listed) > 0 && !slices.Contains(listed, c.cfg.Model) {
		c.cfg.Logger.WarnContext(ctx, "model endpoint does not list the configured model",
			"url", c.cfg.BaseURL, "model", c.cfg.Model, "listed", listed[:min(len(listed), 10)])
	}
	return nil
}

// request builds the go-openai request for msgs.
func (c *Client) request(msgs []chat.Message) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{
		Model:       c.cfg.Model,
		Messages:    make([]openai.ChatCompletionMessage, len(msgs)),
		Temperature: c.cfg.Temperature,
		Seed:        c.cfg.Seed,
	}
	for i, m := range msgs {
		req.Messages[i] = openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content}
	}
	v := openai.NewReasoningValidator()
	return greedy(withTokenLimit(req, c.cfg.MaxTokens, v), v)
}

// withTokenLimit caps the answer at n tokens (0: no cap). The API has two
// names for the cap. go-openai deprecates max_tokens, and OpenAI's
// reasoning models (o1, o3, o4, gpt-5 and the like) refuse it; but the
// servers users run themselves read max_tokens only: Ollama's OpenAI
// endpoint and llama-cpp-python accept max_completion_tokens and ignore
// it, leaving the answer unbounded. Sending both is no way out: OpenAI
// answers 400 "Setting 'max_tokens' and 'max_completion_tokens' at the
// same time is not supported", and other hosted APIs do the same. So a
// model that go-openai's validator says refuses max_tokens gets
// max_completion_tokens, and every other model max_tokens.
func withTokenLimit(req openai.ChatCompletionRequest, n int, v *openai.ReasoningValidator) openai.ChatCompletionRequest {
	legacy := req
	//lint:ignore SA1019 max_tokens is what Ollama and llama.cpp servers read; reasoning models get max_completion_tokens below.
	legacy.MaxTokens = n
	if errors.Is(v.Validate(legacy), openai.ErrReasoningModelMaxTokensDeprecated) {
		req.MaxCompletionTokens = n
		return req
	}
	return legacy
}

// greedy works around go-openai omitting a zero temperature, so that the
// server would sample at its default (1): it sends the smallest positive
// one instead, which servers treat as greedy, unless the model refuses
// any temperature but its own (reasoning models).
func greedy(req openai.ChatCompletionRequest, v *openai.ReasoningValidator) openai.ChatCompletionRequest {
	if req.Temperature != 0 {
		return req
	}
	g := req
	g.Temperature = math.SmallestNonzeroFloat32
	if v.Validate(g) != nil {
		return req
	}
	return g
}
