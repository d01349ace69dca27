package fakegithub

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v88/github"
)

func TestTokenAuth(t *testing.T) {
	s := newServer(t)
	s.AddRepo("octo", "calc", map[string]string{"a.txt": "a\n"})
	s.AddRepo("octo", "other", nil)
	s.AddInstallation(7, "octo/other")
	for _, tc := range []struct {
		name, token string
		status      int
		message     string
	}{
		{"missing", "", 401, "Requires authentication"},
		{"unknown", "ghs_nosuchtoken", 401, "Bad credentials"},
		{"static", staticToken, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := do(t, s, "GET", "repos/octo/calc", tc.token, "")
			if status != tc.status {
				t.Errorf("status = %d, want %d", status, tc.status)
			}
			if tc.message != "" && message(t, body) != tc.message {
				t.Errorf("message = %q, want %q", message(t, body), tc.message)
			}
		})
	}
}

// installationClient returns a go-github client authenticating as
// installation id through ghinstallation, as the bot does, and the
// transport. The token options are set because with nil options
// ghinstallation sends a "null" body the description rejects.
func installationClient(t *testing.T, s *Server, id int64) (*github.Client, *ghinstallation.Transport) {
	t.Helper()
	atr := ghinstallation.NewAppsTransportFromPrivateKey(http.DefaultTransport, 42, appKey(t))
	atr.BaseURL = strings.TrimSuffix(s.URL(), "/")
	itr := ghinstallation.NewFromAppsTransport(atr, id)
	itr.InstallationTokenOptions = &github.InstallationTokenOptions{}
	return s.Client(&http.Client{Transport: itr}), itr
}

func TestInstallationTokens(t *testing.T) {
	key := appKey(t)
	s := newServer(t, WithApp(42, &key.PublicKey), WithBotLogin("capsule-test[bot]"))
	s.AddRepo("octo", "calc", map[string]string{"a.txt": "a\n"})
	s.AddRepo("octo", "secret", nil)
	s.AddIssue("octo", "calc", 1, "Bug", "")
	s.AddInstallation(7, "octo/calc")
	gh, itr := installationClient(t, s, 7)
	ctx := context.Background()

	for i := 0; i < 3; i++ {
		if _, _, err := gh.Repositories.Get(ctx, "octo", "calc"); err != nil {
			t.Fatalf("Get %d: %v", i, err)
		}
	}
	if n := s.TokensMinted(7); n != 1 {
		t.Errorf("TokensMinted = %d, want 1: ghinstallation caches its token", n)
	}
	tok, err := itr.Token(ctx)
	if err != nil || !strings.HasPrefix(tok, "ghs_") || len(tok) != 40 {
		t.Errorf("token = %q, %v; want ghs_ and 36 characters", tok, err)
	}
	if exp, _, err := itr.Expiry(); err != nil || time.Until(exp) < 59*time.Minute {
		t.Errorf("expiry = %v, %v; want in an hour", exp, err)
	}

	c, _, err := gh.Issues.CreateComment(ctx, "octo", "calc", 1, &github.IssueComment{Body: github.Ptr("On it.")})
	if err != nil {
		t.Fatalf("CreateComment: %v", err)
	}
	if c.GetUser().GetLogin() != "capsule-test[bot]" || c.GetUser().GetType() != "Bot" {
		t.Errorf("comment by %q (%s), want the bot", c.GetUser().GetLogin(), c.GetUser().GetType())
	}

	var er *github.ErrorResponse
	if _, _, err := gh.Repositories.Get(ctx, "octo", "secret"); !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Errorf("repo outside the installation: %v, want 404", err)
	}

	s.RevokeInstallation(7)
	if _, _, err := gh.Repositories.Get(ctx, "octo", "calc"); !errors.As(err, &er) || er.Response.StatusCode != 401 || er.Message != "Bad credentials" {
		t.Errorf("after revocation: %v, want 401 Bad credentials", err)
	}
	app := tokenClient(s, signJWT(t, key, validClaims()))
	if _, _, err := app.Apps.CreateInstallationToken(ctx, 7, &github.InstallationTokenOptions{}); !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Errorf("minting for a revoked installation: %v, want 404", err)
	}
}

func TestAppEndpoints(t *testing.T) {
	key := appKey(t)
	s := newServer(t, WithApp(42, &key.PublicKey))
	s.AddRepo("octo", "calc", nil)
	s.AddInstallation(7, "octo/calc")
	ctx := context.Background()
	atr := ghinstallation.NewAppsTransportFromPrivateKey(http.DefaultTransport, 42, key)
	app := s.Client(&http.Client{Transport: atr})

	a, _, err := app.Apps.Get(ctx, "")
	if err != nil || a.GetID() != 42 || a.GetSlug() != "capsule-app" {
		t.Errorf("Apps.Get = %+v, %v", a, err)
	}
	inst, _, err := app.Apps.GetRepositoryInstallation(ctx, "octo", "calc")
	if err != nil || inst.GetID() != 7 || inst.GetAccount().GetLogin() != "octo" {
		t.Errorf("GetRepositoryInstallation = %+v, %v", inst, err)
	}
	if _, _, err := app.Apps.GetInstallation(ctx, 7); err != nil {
		t.Errorf("GetInstallation: %v", err)
	}
	var er *github.ErrorResponse
	if _, _, err := app.Apps.GetInstallation(ctx, 8); !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Errorf("GetInstallation(8) = %v, want 404", err)
	}
	if _, _, err := app.Apps.CreateInstallationToken(ctx, 8, &github.InstallationTokenOptions{}); !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Errorf("CreateInstallationToken(8) = %v, want 404", err)
	}
	// A token restricted to some repositories.
	tok, _, err := app.Apps.CreateInstallationToken(ctx, 7, &github.InstallationTokenOptions{Repositories: []string{"calc"}})
	if err != nil || len(tok.Repositories) != 1 {
		t.Fatalf("restricted token = %+v, %v", tok, err)
	}
	repos, _, err := tokenClient(s, tok.GetToken()).Apps.ListRepos(ctx, nil)
	if err != nil || repos.GetTotalCount() != 1 || repos.Repositories[0].GetFullName() != "octo/calc" {
		t.Errorf("ListRepos = %+v, %v", repos, err)
	}
	if n := s.TokensMinted(7); n != 1 {
		t.Errorf("TokensMinted = %d, want 1", n)
	}
}

func TestJWTChecks(t *testing.T) {
	key := appKey(t)
	s := newServer(t, WithApp(42, &key.PublicKey))
	s.AddRepo("octo", "calc", nil)
	s.AddInstallation(7, "octo/calc")
	now := time.Now().Unix()
	other := func() map[string]any { return validClaims() }
	for _, tc := range []struct {
		name   string
		claims map[string]any
		status int
	}{
		{"iss as a string", validClaims(), 201},
		{"iss as a number", map[string]any{"iss": 42, "iat": now - 30, "exp": now + 120}, 201},
		{"wrong iss", map[string]any{"iss": "43", "iat": now - 30, "exp": now + 120}, 401},
		{"expired", map[string]any{"iss": "42", "iat": now - 700, "exp": now - 100}, 401},
		{"exp too far", map[string]any{"iss": "42", "iat": now, "exp": now + 3600}, 401},
		{"iat in the future", map[string]any{"iss": "42", "iat": now + 300, "exp": now + 500}, 401},
		{"fractional exp", map[string]any{"iss": "42", "iat": now, "exp": float64(now) + 120.5}, 401},
		{"no exp", map[string]any{"iss": "42", "iat": now}, 401},
		{"valid", other(), 201},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", s.URL()+"app/installations/7/access_tokens", strings.NewReader("{}"))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+signJWT(t, key, tc.claims))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("status = %d, want %d", resp.StatusCode, tc.status)
			}
		})
	}
	t.Run("tampered payload", func(t *testing.T) {
		s2 := newServer(t, WithApp(42, &appKey(t).PublicKey))
		s2.AddInstallation(7)
		// The signature no longer matches the payload.
		jwt := signJWT(t, key, validClaims())
		parts := strings.Split(jwt, ".")
		tampered := parts[0] + "." + parts[1] + "x." + parts[2]
		status, _ := doBearer(t, s2, "POST", "app/installations/7/access_tokens", tampered)
		if status != 401 {
			t.Errorf("status = %d, want 401", status)
		}
	})
	t.Run("token instead of JWT", func(t *testing.T) {
		status, body := doBearer(t, s, "GET", "app", staticToken)
		if status != 401 || message(t, body) != "A JSON web token could not be decoded" {
			t.Errorf("status = %d %s, want 401", status, body)
		}
	})
}

// doBearer sends a bodiless request with "Authorization: Bearer cred".
func doBearer(t *testing.T, s *Server, method, p, cred string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, s.URL()+p, nil)
	req.Header.Set("Authorization", "Bearer "+cred)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	return resp.StatusCode, b.String()
}
