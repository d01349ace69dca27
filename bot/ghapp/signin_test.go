package ghapp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/capsulehq/capsule/testsupport/fakegithub"
)

// TestSignIn tells credentials GitHub refuses from a GitHub that does not
// answer, each after one request.
func TestSignIn(t *testing.T) {
	key, keyPEM := fakegithub.NewAppKey(t)
	_, otherPEM := fakegithub.NewAppKey(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	tests := []struct {
		name        string
		pem         []byte
		down        int  // the fake's outage status; -1 for none
		closed      bool // sign in at a closed port instead
		wantErr     bool
		credentials bool
	}{
		{"right key", keyPEM, -1, false, false, false},
		{"wrong key", otherPEM, -1, false, true, true},
		{"502", keyPEM, http.StatusBadGateway, false, true, false},
		{"no answer", keyPEM, 0, false, true, false},
		{"connection refused", keyPEM, -1, true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := fakegithub.New(t, fakegithub.WithApp(31, &key.PublicKey), fakegithub.WithPrefix("/api/v3"))
			url := gh.URL()
			if tt.closed {
				url = gone.URL + "/api/v3/"
			}
			if tt.down >= 0 {
				gh.Down(tt.down)
			}
			a, err := New(Config{AppID: 31, PrivateKey: tt.pem, BaseURL: url, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			app, err := a.SignIn(context.Background())
			if (err != nil) != tt.wantErr || errors.Is(err, ErrCredentials) != tt.credentials {
				t.Fatalf("SignIn = %v, %v; want an error %v, of credentials %v", app, err, tt.wantErr, tt.credentials)
			}
			if err == nil && app.GetID() != 31 {
				t.Errorf("signed in as App %d, want 31", app.GetID())
			}
			if n := len(gh.Requests()); !tt.closed && n != 1 {
				t.Errorf("%d requests, want 1: SignIn does not retry", n)
			}
		})
	}
}
