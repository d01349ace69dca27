// Package fakeopenai is a scripted OpenAI-compatible server for tests. It
// speaks enough of the API for the real go-openai client:
// POST /v1/chat/completions (non-streaming) and GET /v1/models.
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// Server is a running fake endpoint. It is safe for concurrent use.
type Server struct {
	t      testing.TB // nil outside a test (Start)
	script Script
	apiKey string
	models []string
	srv    *httptest.Server

	mu       sync.Mutex
	requests []openai.ChatCompletionRequest
	usages   map[int]Usage // by call index
}

// Option configures a Server.
type Option func(*Server)

// WithAPIKey makes the server answer 401 to requests that do not carry
// "Authorization: Bearer key".
func WithAPIKey(key string) Option {
	return func(s *Server) { s.apiKey = key }
}

// WithModels serves GET /v1/models listing ids. Without it the server has no
// such route and answers 404, as some OpenAI-compatible servers do.
func WithModels(ids ...string) Option {
	return func(s *Server) { s.models = ids }
}

// New starts a server that answers chat completions with script. It is closed
// when the test ends.
func New(t testing.TB, script Script, opts ...Option) *Server {
	t.Helper()
	s := start(t, script, opts)
	t.Cleanup(s.srv.Close)
	return s
}

// Start is New outside a test, for `capsule demo`: Close stops it.
func Start(script Script, opts ...Option) *Server {
	return start(nil, script, opts)
}

func start(t testing.TB, script Script, opts []Option) *Server {
	s := &Server{t: t, script: script, usages: map[int]Usage{}}
	for _, opt := range opts {
		opt(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	if s.models != nil {
		mux.HandleFunc("GET /v1/models", s.listModels)
	}
	s.srv = httptest.NewServer(s.authorize(mux))
	return s
}

// URL is the base URL for clients, including the /v1 prefix.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Usages returns the usage reported for each request, in the order of
// Requests; a request answered with an error reported none (zero).
func (s *Server) Usages() []Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Usage, len(s.requests))
	for i := range out {
		out[i] = s.usages[i]
	}
	return out
}

// Close shuts the server down: early in a test, e.g. to test an
// unreachable endpoint, or at the end of a Start.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the chat completion requests received so far, in order.
// Requests rejected for a wrong API key are not included.
func (s *Server) Requests() []openai.ChatCompletionRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *Server) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.apiKey {
			writeError(w, Response{
				Status:  http.StatusUnauthorized,
				Message: "Incorrect API key provided.",
				Code:    "invalid_api_key",
			})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req openai.ChatCompletionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		if s.t != nil {
			s.t.Errorf("fakeopenai: decode chat completion request: %v", err)
		}
		writeError(w, Error(http.StatusBadRequest, "malformed request: "+err.Error()))
		return
	}
	if req.Stream {
		writeError(w, Error(http.StatusBadRequest, "fakeopenai does not stream"))
		return
	}
	s.mu.Lock()
	call := len(s.requests)
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	resp := s.script(call, req)
	if resp.Status != 0 {
		writeError(w, resp)
		return
	}
	usage := resp.usage(req)
	s.mu.Lock()
	s.usages[call] = Usage{Prompt: usage.PromptTokens, Completion: usage.CompletionTokens}
	s.mu.Unlock()
	finish := resp.FinishReason
	if finish == "" {
		finish = openai.FinishReasonStop
	}
	writeJSON(w, http.StatusOK, openai.ChatCompletionResponse{
		ID:     fmt.Sprintf("chatcmpl-fake-%d", call),
		Object: "chat.completion",
		Model:  req.Model,
		Choices: []openai.ChatCompletionChoice{{
			Message:      openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: resp.Content},
			FinishReason: finish,
		}},
		Usage: usage,
	})
}

type model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	OwnedBy string `json:"owned_by"`
}

type modelList struct {
	Object string  `json:"object"`
	Data   []model `json:"data"`
}

func (s *Server) listModels(w http.ResponseWriter, _ *http.Request) {
	list := modelList{Object: "list", Data: []model{}}
	for _, id := range s.models {
		list.Data = append(list.Data, model{ID: id, Object: "model", OwnedBy: "fakeopenai"})
	}
	writeJSON(w, http.StatusOK, list)
}

// apiError is the body of an OpenAI error: {"error": {...}}.
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func writeError(w http.ResponseWriter, r Response) {
	if r.RetryAfter != "" {
		w.Header().Set("Retry-After", r.RetryAfter)
	}
	if r.Body != "" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(r.Status)
		fmt.Fprint(w, r.Body)
		return
	}
	e := apiError{Message: r.Message, Type: "invalid_request_error"}
	if r.Status >= 500 {
		e.Type = "server_error"
	}
	if r.Code != "" {
		e.Code = &r.Code
	}
	writeJSON(w, r.Status, map[string]apiError{"error": e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// The client may have gone away; there is no one left to tell.
	_ = json.NewEncoder(w).Encode(v)
}
