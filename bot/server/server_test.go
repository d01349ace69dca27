package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-github/v88/github"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/testsupport/webhooktest"
)

// recordingClients records the installations forgotten.
type recordingClients struct {
	mu        sync.Mutex
	forgotten []int64
}

func (c *recordingClients) Forget(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgotten = append(c.forgotten, id)
}

func (c *recordingClients) Installation(int64) (*github.Client, error) {
	return nil, errors.New("no installations in this test")
}

func newBareServer(t *testing.T, clients Clients, ready func(context.Context) error) (*Server, *store.Store, *httptest.Server) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "capsule.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := New(Config{Store: st, Clients: clients, Runner: &job.Runner{}, Secret: secret, Logger: quietLogger(), Ready: ready})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, st, srv
}

func TestInstallationEventsDropTokens(t *testing.T) {
	clients := &recordingClients{}
	_, st, srv := newBareServer(t, clients, nil)
	for _, tt := range []struct {
		file string
		want int
	}{
		{"installation__created.payload.json", 0},
		{"installation_repositories__removed.payload.json", 0},
		{"installation__deleted.payload.json", 1},
	} {
		body := webhooktest.Payload(t, tt.file, nil)
		resp, err := http.DefaultClient.Do(webhooktest.Request(t, srv.URL+"/webhook", "installation", tt.file, body, secret))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %s", tt.file, resp.Status)
		}
		clients.mu.Lock()
		n := len(clients.forgotten)
		clients.mu.Unlock()
		if n != tt.want {
			t.Errorf("after %s, %d installations forgotten, want %d", tt.file, n, tt.want)
		}
	}
	if jobs, _ := st.List(context.Background(), 0); len(jobs) != 0 {
		t.Errorf("installation events queued jobs: %+v", jobs)
	}
}

func TestProbes(t *testing.T) {
	tests := []struct {
		name   string
		ready  func(context.Context) error
		path   string
		status int
	}{
		{"healthz", nil, "/healthz", http.StatusOK},
		{"ready", func(context.Context) error { return nil }, "/readyz", http.StatusOK},
		{"engine down", func(context.Context) error { return errors.New("engine unreachable") }, "/readyz", http.StatusServiceUnavailable},
		{"metrics", nil, "/metrics", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, srv := newBareServer(t, noClients{}, tt.ready)
			resp, err := http.Get(srv.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("%s: %s, want %d", tt.path, resp.Status, tt.status)
			}
		})
	}
	t.Run("store closed", func(t *testing.T) {
		_, st, srv := newBareServer(t, noClients{}, nil)
		st.Close()
		resp, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("readyz with the store closed: %s", resp.Status)
		}
	})
}
