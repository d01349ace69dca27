package fakeopenai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/capsulehq/capsule/testsupport/fakeopenai"
)

func client(s *fakeopenai.Server, key string) *openai.Client {
	cfg := openai.DefaultConfig(key)
	cfg.BaseURL = s.URL()
	return openai.NewClientWithConfig(cfg)
}

func chat(model string, msgs ...string) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: model}
	for _, m := range msgs {
		req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: m})
	}
	return req
}

func TestReply(t *testing.T) {
	tests := []struct {
		name       string
		resp       fakeopenai.Response
		wantUsage  openai.Usage
		wantFinish openai.FinishReason
	}{
		{
			name:       "counted usage",
			resp:       fakeopenai.Reply("two words"),
			wantUsage:  openai.Usage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 7},
			wantFinish: openai.FinishReasonStop,
		},
		{
			name:       "scripted usage",
			resp:       fakeopenai.Response{Content: "x", Usage: &fakeopenai.Usage{Prompt: 100, Completion: 7}, FinishReason: openai.FinishReasonLength},
			wantUsage:  openai.Usage{PromptTokens: 100, CompletionTokens: 7, TotalTokens: 107},
			wantFinish: openai.FinishReasonLength,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeopenai.New(t, fakeopenai.Sequence(tt.resp))
			req := chat("m", "one two three", "four five")
			seed := 7
			req.Seed, req.Temperature = &seed, 0.5

			got, err := client(s, "").CreateChatCompletion(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Choices[0].Message.Content != tt.resp.Content || got.Model != "m" {
				t.Errorf("reply = %q from %q, want %q from m", got.Choices[0].Message.Content, got.Model, tt.resp.Content)
			}
			if got.Usage.PromptTokens != tt.wantUsage.PromptTokens ||
				got.Usage.CompletionTokens != tt.wantUsage.CompletionTokens ||
				got.Usage.TotalTokens != tt.wantUsage.TotalTokens {
				t.Errorf("usage = %+v, want %+v", got.Usage, tt.wantUsage)
			}
			if got.Choices[0].FinishReason != tt.wantFinish {
				t.Errorf("finish reason = %q, want %q", got.Choices[0].FinishReason, tt.wantFinish)
			}
			reqs := s.Requests()
			if len(reqs) != 1 || *reqs[0].Seed != 7 || reqs[0].Temperature != 0.5 || len(reqs[0].Messages) != 2 {
				t.Errorf("recorded %+v, want the request sent", reqs)
			}
		})
	}
}

func TestError(t *testing.T) {
	tests := []struct {
		name       string
		resp       fakeopenai.Response
		wantStatus int
		wantMsg    string
	}{
		{"json", fakeopenai.Response{Status: 404, Message: "no such model", Code: "model_not_found"}, 404, "no such model"},
		{"server error", fakeopenai.Error(503, "overloaded"), 503, "overloaded"},
		{"raw body", fakeopenai.Response{Status: 502, Body: "<html>Bad Gateway</html>"}, 502, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeopenai.New(t, fakeopenai.Sequence(tt.resp))
			_, err := client(s, "").CreateChatCompletion(context.Background(), chat("m", "hi"))

			var apiErr *openai.APIError
			var reqErr *openai.RequestError
			switch {
			case errors.As(err, &apiErr):
				if apiErr.HTTPStatusCode != tt.wantStatus || apiErr.Message != tt.wantMsg {
					t.Errorf("error = %d %q, want %d %q", apiErr.HTTPStatusCode, apiErr.Message, tt.wantStatus, tt.wantMsg)
				}
				if tt.resp.Code != "" && apiErr.Code != tt.resp.Code {
					t.Errorf("code = %v, want %q", apiErr.Code, tt.resp.Code)
				}
			case errors.As(err, &reqErr):
				if reqErr.HTTPStatusCode != tt.wantStatus || string(reqErr.Body) != tt.resp.Body {
					t.Errorf("error = %d %q, want %d %q", reqErr.HTTPStatusCode, reqErr.Body, tt.wantStatus, tt.resp.Body)
				}
			default:
				t.Fatalf("error = %v, want an API error", err)
			}
		})
	}
}

func TestErrorWireFormat(t *testing.T) {
	s := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Response{Status: 429, Message: "slow down", Code: "rate_limit_exceeded", RetryAfter: "3"}))
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("got %d with Retry-After %q, want 429 with 3", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	var body map[string]map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"message": "slow down", "type": "invalid_request_error", "param": nil, "code": "rate_limit_exceeded"}
	if fmt.Sprint(body["error"]) != fmt.Sprint(want) {
		t.Errorf("body = %v, want error %v", body, want)
	}
}

func TestAPIKey(t *testing.T) {
	s := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Reply("ok")), fakeopenai.WithAPIKey("sk-good"))

	_, err := client(s, "sk-bad").CreateChatCompletion(context.Background(), chat("m", "hi"))
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != http.StatusUnauthorized || apiErr.Code != "invalid_api_key" {
		t.Errorf("wrong key: error = %v, want 401 invalid_api_key", err)
	}
	if _, err := client(s, "sk-good").CreateChatCompletion(context.Background(), chat("m", "hi")); err != nil {
		t.Errorf("right key: %v", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("recorded %d requests, want 1 (the rejected one is not recorded)", n)
	}
}

func TestModels(t *testing.T) {
	t.Run("listed", func(t *testing.T) {
		s := fakeopenai.New(t, nil, fakeopenai.WithModels("a", "b"))
		list, err := client(s, "").ListModels(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range list.Models {
			ids = append(ids, m.ID)
		}
		if !slices.Equal(ids, []string{"a", "b"}) {
			t.Errorf("models = %v, want [a b]", ids)
		}
	})
	t.Run("no route", func(t *testing.T) {
		s := fakeopenai.New(t, nil)
		_, err := client(s, "").ListModels(context.Background())
		var reqErr *openai.RequestError
		if !errors.As(err, &reqErr) || reqErr.HTTPStatusCode != http.StatusNotFound {
			t.Errorf("error = %v, want 404", err)
		}
	})
}

func TestSequenceRepeatsLast(t *testing.T) {
	s := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Reply("first"), fakeopenai.Reply("rest")))
	c := client(s, "")
	var got []string
	for range 3 {
		resp, err := c.CreateChatCompletion(context.Background(), chat("m", "hi"))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, resp.Choices[0].Message.Content)
	}
	if want := []string{"first", "rest", "rest"}; !slices.Equal(got, want) {
		t.Errorf("replies = %v, want %v", got, want)
	}
}

func TestConcurrentCalls(t *testing.T) {
	const n = 16
	s := fakeopenai.New(t, func(call int, _ openai.ChatCompletionRequest) fakeopenai.Response {
		return fakeopenai.Reply(strconv.Itoa(call))
	})
	c := client(s, "")

	var wg sync.WaitGroup
	replies := make([]string, n)
	for i := range n {
		wg.Go(func() {
			resp, err := c.CreateChatCompletion(context.Background(), chat("m", "hi"))
			if err != nil {
				t.Error(err)
				return
			}
			replies[i] = resp.Choices[0].Message.Content
		})
	}
	wg.Wait()

	slices.SortFunc(replies, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x - y
	})
	for i, r := range replies {
		if r != strconv.Itoa(i) {
			t.Fatalf("call indices = %v, want each of 0..%d once", replies, n-1)
		}
	}
	if got := len(s.Requests()); got != n {
		t.Errorf("recorded %d requests, want %d", got, n)
	}
}
