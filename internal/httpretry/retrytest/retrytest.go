// Package retrytest holds the fakes that tests of retrying HTTP clients
// share: a server that answers from a script, and a sleep that records
// the waits instead of waiting.
package retrytest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted answer.
type Reply struct {
	Status int
	Header map[string]string
	Body   string
}

// Server answers with its replies in turn, the last one forever, and
// records the bodies of the requests it gets.
type Server struct {
	URL     string
	replies []Reply

	mu     sync.Mutex
	bodies []string
}

// NewServer starts a scripted server, closed when the test ends.
func NewServer(t testing.TB, replies ...Reply) *Server {
	s := &Server{replies: replies}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading the request body: %v", err)
		}
		s.mu.Lock()
		rep := s.replies[min(len(s.bodies), len(s.replies)-1)]
		s.bodies = append(s.bodies, string(body))
		s.mu.Unlock()
		for k, v := range rep.Header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rep.Status)
		io.WriteString(w, rep.Body)
	}))
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	return s
}

// Requests returns the bodies of the requests so far, one per request.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.bodies)
}

// Last returns the reply the server gives to its n-th request (from 1).
func (s *Server) Last(n int) Reply {
	return s.replies[min(n, len(s.replies))-1]
}

// Sleeps is a sleep that records each wait and returns at once (with the
// context's error, if it is done).
type Sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Sleep records d.
func (s *Sleeps) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return ctx.Err()
}

// Got returns the waits so far.
func (s *Sleeps) Got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.waits)
}
