package programmer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/testsupport/fakeopenai"
)

// completion is a chat completion body whose answer is content.
func completion(content string) string {
	return fmt.Sprintf(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`, content)
}

func TestCompleteOverLimit(t *testing.T) {
	const limit = 64 << 10
	tests := []struct {
		name    string
		handler http.HandlerFunc
		over    bool
	}{
		{"under the limit", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, completion(strings.Repeat("x", limit-500)))
		}, false},
		{"over the limit, chunked", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, completion(strings.Repeat("x", limit+1)))
		}, true},
		{"over the limit, with a length", func(w http.ResponseWriter, _ *http.Request) {
			body := completion(strings.Repeat("x", 2*limit))
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			fmt.Fprint(w, body)
		}, true},
		{"without end", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"id":"x","choices":[{"message":{"role":"assistant","content":"`)
			chunk := []byte(strings.Repeat("x", 4096))
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			c, _ := testClient(t, srv.URL+"/v1", func(c *Config) { c.MaxAnswerBytes = limit })
			got, err := c.Complete(context.Background(), hello)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if tt.over != (got.OverLimit == limit) || tt.over != (got.Content == "") {
				t.Errorf("Complete = OverLimit %d, %d bytes of content; want over the limit: %v", got.OverLimit, len(got.Content), tt.over)
			}
		})
	}
}

// TestCompleteLongErrorBody checks that a long error page is cut, not
// taken for a long answer: the call fails with the endpoint's status.
func TestCompleteLongErrorBody(t *testing.T) {
	srv := fakeopenai.New(t, fakeopenai.Sequence(fakeopenai.Response{Status: http.StatusBadRequest, Body: strings.Repeat("<p>no</p>", 100_000)}))
	c, _ := testClient(t, srv.URL(), func(c *Config) { c.MaxAnswerBytes = 1 << 10 })
	_, err := c.Complete(context.Background(), hello)
	e, ok := errors.AsType[*EndpointError](err)
	if !ok || e.Status != http.StatusBadRequest {
		t.Fatalf("Complete = %v; want an endpoint error with HTTP 400", err)
	}
	if len(err.Error()) > 2*maxDetail {
		t.Errorf("the error quotes %d bytes of the page", len(err.Error()))
	}
}

func TestConfigNegativeAnswerLimit(t *testing.T) {
	_, err := New(Config{BaseURL: "http://localhost:1", Model: "m", MaxAnswerBytes: -1})
	if !errors.Is(err, ErrConfig) {
		t.Errorf("New with a negative answer limit = %v; want ErrConfig", err)
	}
}

// BenchmarkCompleteLongAnswer compares what a 54 MB answer costs the client
// with the default bound and without one (B/op): run both side by side.
func BenchmarkCompleteLongAnswer(b *testing.B) {
	body := completion(strings.Repeat("x", 54<<20))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, body) // no copy, so that B/op is the client's
	}))
	defer srv.Close()
	for _, bc := range []struct {
		name  string
		limit int64
	}{{"bounded", DefaultMaxAnswerBytes}, {"unbounded", 1 << 40}} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := New(Config{BaseURL: srv.URL + "/v1", Model: "m", MaxAnswerBytes: bc.limit})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				reply, err := c.Complete(context.Background(), hello)
				if err != nil || (reply.OverLimit != 0) != (bc.name == "bounded") {
					b.Fatalf("Complete = %d bytes, over %d, %v", len(reply.Content), reply.OverLimit, err)
				}
			}
		})
	}
}
