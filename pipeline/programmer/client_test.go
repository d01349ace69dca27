package programmer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/capsulehq/capsule/pipeline/chat"
	"github.com/capsulehq/capsule/testsupport/fakeopenai"
)

// fakeClock advances only when slept on, and records each sleep.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	sleeps  []time.Duration
	onSleep func() // called on each sleep, e.g. to cancel the context
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	hook := c.onSleep
	c.mu.Unlock()
	if hook != nil {
		hook()
	}
	return ctx.Err()
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}

var epoch = time.Date(2025, 2, 5, 12, 0, 0, 0, time.UTC)

// testClient returns a client of srv with a fake clock and no jitter, so
// backoff waits are exactly half the exponential delay.
func testClient(t *testing.T, baseURL string, mutate func(*Config)) (*Client, *fakeClock) {
	t.Helper()
	cfg := Config{
		BaseURL: baseURL,
		APIKey:  "sk-test",
		Model:   "test-model",
		Logger:  slog.New(slog.DiscardHandler),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	clk := &fakeClock{now: epoch}
	c, err := newClient(cfg, clk, func() float64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	return c, clk
}

var hello = []chat.Message{
	{Role: chat.System, Content: "You write code."},
	{Role: chat.User, Content: "Add two numbers."},
}

func TestCompleteSuccess(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Response{
		Content: "def add(a, b): return a + b",
		Usage:   &fakeopenai.Usage{Prompt: 123, Completion: 45},
	}), fakeopenai.WithAPIKey("sk-test"))
	c, _ := testClient(t, srv.URL(), nil)

	got, err := c.Complete(context.Background(), hello)
	if err != nil {
		t.Fatal(err)
	}
	want := Reply{Content: "def add(a, b): return a + b", PromptTokens: 123, CompletionTokens: 45}
	if got != want {
		t.Errorf("Complete() = %+v, want %+v", got, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	var sent []chat.Message
	for _, m := range reqs[0].Messages {
		sent = append(sent, chat.Message{Role: chat.Role(m.Role), Content: m.Content})
	}
	if reqs[0].Model != "test-model" || !slices.Equal(sent, hello) {
		t.Errorf("server got model %q with %+v, want test-model with %+v", reqs[0].Model, sent, hello)
	}
}

func TestCompleteTruncated(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Response{Content: "def f(", FinishReason: openai.FinishReasonLength}))
	c, _ := testClient(t, srv.URL(), nil)
	got, err := c.Complete(context.Background(), hello)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Truncated {
		t.Error("Truncated = false for finish reason length")
	}
}

func TestCompleteConcurrentUsage(t *testing.T) {
	// Counted usage: prompt = words of all messages (6), completion = words of the reply.
	srv := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Reply("one two three")))
	c, _ := testClient(t, srv.URL(), nil)

	const workers = 8
	var mu sync.Mutex
	var prompt, completion int
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			r, err := c.Complete(context.Background(), hello)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			prompt += r.PromptTokens
			completion += r.CompletionTokens
			mu.Unlock()
		})
	}
	wg.Wait()
	if prompt != workers*6 || completion != workers*3 {
		t.Errorf("summed usage = %d prompt, %d completion; want %d, %d", prompt, completion, workers*6, workers*3)
	}
}

func TestRequestParameters(t *testing.T) {
	// greedyTemperature is math.SmallestNonzeroFloat32 as JSON writes a
	// float32.
	const greedyTemperature = 1e-45
	seed := 42
	tests := []struct {
		name   string
		mutate func(*Config)
		// want are the request's fields on the wire, besides the model
		// and the messages.
		want map[string]any
	}{
		{"temperature, seed and max tokens", func(c *Config) {
			c.Temperature, c.Seed, c.MaxTokens = 0.2, &seed, 512
		}, map[string]any{"temperature": 0.2, "seed": 42.0, "max_tokens": 512.0}},
		{"zero temperature is sent", nil, map[string]any{"temperature": greedyTemperature}},
		// Ollama and llama.cpp servers ignore max_completion_tokens, and
		// OpenAI refuses a request with both.
		{"max tokens for other servers", func(c *Config) {
			c.Model, c.MaxTokens = "qwen2.5-coder:7b", 300
		}, map[string]any{"temperature": greedyTemperature, "max_tokens": 300.0}},
		{"reasoning model", func(c *Config) {
			c.Model, c.MaxTokens = "o3-mini", 512
		}, map[string]any{"max_completion_tokens": 512.0}},
		{"reasoning model without a cap", func(c *Config) {
			c.Model = "gpt-5-mini"
		}, map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Reply("ok")))
			c, _ := testClient(t, srv.URL(), tt.mutate)
			if _, err := c.Complete(context.Background(), hello); err != nil {
				t.Fatal(err)
			}
			got := wire(t, srv.Requests()[0])
			for _, k := range []string{"model", "messages", "stream"} {
				delete(got, k)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("request fields = %v, want %v", got, tt.want)
			}
		})
	}
}

// wire is req as JSON, decoded into a map: the fields a server reads.
func wire(t *testing.T, req openai.ChatCompletionRequest) map[string]any {
	t.Helper()
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCompleteRetries(t *testing.T) {
	overloaded := fakeopenai.Error(http.StatusServiceUnavailable, "overloaded")
	tests := []struct {
		name      string
		script    []fakeopenai.Response
		wantSleep []time.Duration
	}{
		{
			name:      "429 with Retry-After seconds",
			script:    []fakeopenai.Response{{Status: 429, Message: "slow down", RetryAfter: "1"}, fakeopenai.Reply("ok")},
			wantSleep: []time.Duration{time.Second},
		},
		{
			name:      "429 with Retry-After date",
			script:    []fakeopenai.Response{{Status: 429, RetryAfter: epoch.Add(3 * time.Second).Format(http.TimeFormat)}, fakeopenai.Reply("ok")},
			wantSleep: []time.Duration{3 * time.Second},
		},
		{
			name:      "429 with a long Retry-After is capped",
			script:    []fakeopenai.Response{{Status: 429, RetryAfter: "3600"}, fakeopenai.Reply("ok")},
			wantSleep: []time.Duration{maxRetryAfter},
		},
		{
			name:      "429 without Retry-After backs off",
			script:    []fakeopenai.Response{{Status: 429}, fakeopenai.Reply("ok")},
			wantSleep: []time.Duration{baseDelay / 2},
		},
		{
			name:      "503 twice",
			script:    []fakeopenai.Response{overloaded, overloaded, fakeopenai.Reply("ok")},
			wantSleep: []time.Duration{baseDelay / 2, baseDelay},
		},
		{
			name:      "502 from a proxy",
			script:    []fakeopenai.Response{{Status: 502, Body: "<html>Bad Gateway</html>"}, fakeopenai.Reply("ok")},
			wantSleep: []time.Duration{baseDelay / 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Sequence(tt.script...))
			c, clk := testClient(t, srv.URL(), nil)

			got, err := c.Complete(context.Background(), hello)
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != "ok" {
				t.Errorf("content = %q, want ok", got.Content)
			}
			if sleeps := clk.Sleeps(); !slices.Equal(sleeps, tt.wantSleep) {
				t.Errorf("waited %v, want %v", sleeps, tt.wantSleep)
			}
			var total time.Duration
			for _, d := range tt.wantSleep {
				total += d
			}
			if got.Duration != total {
				t.Errorf("duration = %v, want the waits, %v", got.Duration, total)
			}
			if n := len(srv.Requests()); n != len(tt.script) {
				t.Errorf("server got %d requests, want %d", n, len(tt.script))
			}
		})
	}
}

func TestCompleteGivesUp(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Error(500, "internal error")))
	c, clk := testClient(t, srv.URL(), func(c *Config) { c.MaxRetries = 3 })

	_, err := c.Complete(context.Background(), hello)
	t.Log(err)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("error = %v, want ErrUnavailable", err)
	}
	for _, s := range []string{srv.URL(), "after 4 attempt", "HTTP 500", "internal error"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("server got %d requests, want 1 + 3 retries", n)
	}
	if want := []time.Duration{baseDelay / 2, baseDelay, 2 * baseDelay}; !slices.Equal(clk.Sleeps(), want) {
		t.Errorf("waited %v, want %v", clk.Sleeps(), want)
	}
}

func TestCompleteNoRetries(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Error(503, "overloaded")))
	c, _ := testClient(t, srv.URL(), func(c *Config) { c.MaxRetries = -1 })
	if _, err := c.Complete(context.Background(), hello); !errors.Is(err, ErrUnavailable) {
		t.Errorf("error = %v, want ErrUnavailable", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server got %d requests, want 1", n)
	}
}

func TestCompleteErrors(t *testing.T) {
	tests := []struct {
		name       string
		resp       fakeopenai.Response
		wantKind   error // nil: no kind
		wantStatus int
		mention    []string
	}{
		{"401", fakeopenai.Error(401, "Incorrect API key provided."), ErrUnauthorized, 401,
			[]string{"rejected the API key", "Incorrect API key provided."}},
		{"403", fakeopenai.Error(403, "not allowed"), ErrUnauthorized, 403, []string{"rejected the API key"}},
		{"404 model not found",
			fakeopenai.Response{Status: 404, Message: "The model `test-model` does not exist.", Code: "model_not_found"},
			ErrModelNotFound, 404, []string{`model "test-model" not found`, "does not exist"}},
		{"404 without JSON", fakeopenai.Response{Status: 404, Body: "404 page not found"}, ErrModelNotFound, 404,
			[]string{`model "test-model" not found`}},
		{"400", fakeopenai.Error(400, "maximum context length is 8192 tokens"), nil, 400,
			[]string{"HTTP 400", "maximum context length"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, fakeopenai.Sequence(tt.resp))
			c, clk := testClient(t, srv.URL(), nil)

			_, err := c.Complete(context.Background(), hello)
			t.Log(err)
			e, ok := errors.AsType[*EndpointError](err)
			if !ok {
				t.Fatalf("error = %v, want an *EndpointError", err)
			}
			if e.Kind != tt.wantKind || e.Status != tt.wantStatus || (tt.wantKind != nil && !errors.Is(err, tt.wantKind)) {
				t.Errorf("error kind %v, status %d; want %v, %d", e.Kind, e.Status, tt.wantKind, tt.wantStatus)
			}
			for _, s := range append(tt.mention, srv.URL()) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
			if len(clk.Sleeps()) != 0 || len(srv.Requests()) != 1 {
				t.Errorf("retried a permanent error: %d requests", len(srv.Requests()))
			}
		})
	}
}

func TestCompleteWrongAPIKey(t *testing.T) {
	srv := fakeopenai.New(t, nil, fakeopenai.WithAPIKey("sk-right"))
	c, _ := testClient(t, srv.URL(), func(c *Config) { c.APIKey = "sk-wrong" })
	_, err := c.Complete(context.Background(), hello)
	if !errors.Is(err, ErrUnauthorized) {
		t.Errorf("error = %v, want ErrUnauthorized", err)
	}
	if _, ok := errors.AsType[*openai.APIError](err); !ok {
		t.Errorf("error = %v, want it to wrap go-openai's *APIError", err)
	}
}

func TestCompleteUnreachable(t *testing.T) {
	srv := fakeopenai.New(t, nil)
	srv.Close()
	c, clk := testClient(t, srv.URL(), func(c *Config) { c.MaxRetries = 2 })

	_, err := c.Complete(context.Background(), hello)
	t.Log(err)
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("error = %v, want ErrUnreachable", err)
	}
	for _, s := range []string{srv.URL(), "after 3 attempt", "refused"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	if n := len(clk.Sleeps()); n != 2 {
		t.Errorf("waited %d times, want 2", n)
	}
}

func TestCompleteCancelledWhileWaiting(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Error(503, "overloaded")))
	c, clk := testClient(t, srv.URL(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clk.onSleep = cancel

	_, err := c.Complete(ctx, hello)
	t.Log(err)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if _, ok := errors.AsType[*EndpointError](err); ok {
		t.Errorf("error = %v, want a cancellation, not an endpoint error", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server got %d requests, want 1", n)
	}
}

func TestPing(t *testing.T) {
	tests := []struct {
		name     string
		opts     []fakeopenai.Option
		key      string
		closed   bool
		wantErr  error
		wantWarn bool
	}{
		{name: "model listed", opts: []fakeopenai.Option{fakeopenai.WithModels("other", "test-model")}},
		{name: "model not listed", opts: []fakeopenai.Option{fakeopenai.WithModels("other")}, wantWarn: true},
		{name: "no models route"},
		{name: "wrong key", opts: []fakeopenai.Option{fakeopenai.WithAPIKey("sk-right")}, key: "sk-wrong", wantErr: ErrUnauthorized},
		{name: "unreachable", closed: true, wantErr: ErrUnreachable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeopenai.New(t, nil, tt.opts...)
			if tt.closed {
				srv.Close()
			}
			var logs bytes.Buffer
			c, _ := testClient(t, srv.URL(), func(c *Config) {
				c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
				if tt.key != "" {
					c.APIKey = tt.key
				}
			})

			err := c.Ping(context.Background())
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Ping() = %v, want %v", err, tt.wantErr)
			}
			warned := strings.Contains(logs.String(), "does not list the configured model")
			if warned != tt.wantWarn {
				t.Errorf("warned = %v, want %v; log: %s", warned, tt.wantWarn, logs.String())
			}
		})
	}
}
