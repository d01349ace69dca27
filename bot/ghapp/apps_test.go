package ghapp

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/capsulehq/capsule/internal/httpretry/retrytest"
)

const testAppID = 42

// testKey is the App's key for all tests (generated once: it is slow).
var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

func pkcs1PEM(k *rsa.PrivateKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
}

func pkcs8PEM(t *testing.T, k any) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// fakeGitHub is the bit of GitHub's API the installation clients use:
// minting installation tokens (checking the App's JWT), /app, and a
// repository that needs an installation token.
type fakeGitHub struct {
	t      *testing.T
	prefix string        // API path prefix, e.g. "/api/v3"
	ttl    time.Duration // lifetime of minted tokens; default 1h

	mu        sync.Mutex
	mints     map[int64]int    // tokens minted per installation
	tokens    map[string]int64 // minted token → installation
	latest    map[int64]string
	tokenHits int   // requests to the token endpoint
	fail      []int // statuses to answer the next token requests with
	suspended map[int64]bool
}

func newFakeGitHub(t *testing.T, prefix string) (*fakeGitHub, *httptest.Server) {
	f := &fakeGitHub{
		t: t, prefix: prefix, ttl: time.Hour,
		mints: map[int64]int{}, tokens: map[string]int64{}, latest: map[int64]string{},
		suspended: map[int64]bool{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+prefix+"/app/installations/{id}/access_tokens", f.accessTokens)
	mux.HandleFunc("GET "+prefix+"/app", f.app)
	mux.HandleFunc("GET "+prefix+"/repos/{owner}/{repo}", f.repo)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeGitHub) accessTokens(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokenHits++
	if len(f.fail) > 0 {
		status := f.fail[0]
		f.fail = f.fail[1:]
		writeJSON(w, status, map[string]string{"message": http.StatusText(status)})
		return
	}
	if err := verifyJWT(r.Header.Get("Authorization"), &testKey().PublicKey); err != nil {
		f.t.Errorf("token request: %v", err)
		writeJSON(w, 401, map[string]string{"message": "A JSON web token could not be decoded"})
		return
	}
	if f.suspended[id] {
		writeJSON(w, 403, map[string]string{"message": "This installation has been suspended"})
		return
	}
	f.mints[id]++
	tok := fmt.Sprintf("ghs_%d_%d", id, f.mints[id])
	f.tokens[tok] = id
	f.latest[id] = tok
	writeJSON(w, 201, map[string]any{"token": tok, "expires_at": time.Now().Add(f.ttl).UTC().Format(time.RFC3339)})
}

func (f *fakeGitHub) app(w http.ResponseWriter, r *http.Request) {
	if err := verifyJWT(r.Header.Get("Authorization"), &testKey().PublicKey); err != nil {
		f.t.Errorf("GET /app: %v", err)
		writeJSON(w, 401, map[string]string{"message": "Bad credentials"})
		return
	}
	writeJSON(w, 200, map[string]any{"id": testAppID, "slug": "capsule"})
}

func (f *fakeGitHub) repo(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "token ")
	f.mu.Lock()
	_, known := f.tokens[tok]
	f.mu.Unlock()
	if !ok || !known {
		writeJSON(w, 401, map[string]string{"message": "Bad credentials"})
		return
	}
	name := r.PathValue("owner") + "/" + r.PathValue("repo")
	writeJSON(w, 200, map[string]any{"id": 1, "full_name": name})
}

func (f *fakeGitHub) counts(id int64) (mints int, latest string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mints[id], f.latest[id]
}

// verifyJWT checks "Bearer <jwt>" by hand: RS256, issued by the App,
// unexpired, signed by the App's key.
func verifyJWT(auth string, pub *rsa.PublicKey) error {
	jwt, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		return fmt.Errorf("authorization %q is not a bearer token", auth)
	}
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return fmt.Errorf("JWT has %d parts, want 3", len(parts))
	}
	var header struct {
		Alg, Typ string
	}
	var claims struct {
		Iss      string
		Iat, Exp int64
	}
	for i, v := range []any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			return fmt.Errorf("JWT part %d: %w", i, err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("JWT part %d: %w", i, err)
		}
	}
	if header.Alg != "RS256" {
		return fmt.Errorf("JWT alg %q, want RS256", header.Alg)
	}
	if claims.Iss != strconv.Itoa(testAppID) {
		return fmt.Errorf("JWT iss %q, want %d", claims.Iss, testAppID)
	}
	if now := time.Now().Unix(); claims.Exp <= now || claims.Iat > now || claims.Exp-claims.Iat > 600 {
		return fmt.Errorf("JWT iat %d exp %d not valid now (%d)", claims.Iat, claims.Exp, now)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return fmt.Errorf("JWT signature: %w", err)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest[:], sig); err != nil {
		return fmt.Errorf("JWT signature: %w", err)
	}
	return nil
}

func newTestApps(t *testing.T, baseURL string, rec *retrytest.Sleeps) *Apps {
	t.Helper()
	p := RetryPolicy{}
	if rec != nil {
		p.Sleep = rec.Sleep
	}
	a, err := New(Config{
		AppID: testAppID, PrivateKey: pkcs1PEM(testKey()), BaseURL: baseURL,
		Retry: p, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return a
}

func getRepo(t *testing.T, a *Apps, id int64) {
	t.Helper()
	c, err := a.Installation(id)
	if err != nil {
		t.Fatalf("Installation(%d): %v", id, err)
	}
	repo, _, err := c.Repositories.Get(context.Background(), "o", "r")
	if err != nil {
		t.Fatalf("installation %d: get repo: %v", id, err)
	}
	if repo.GetFullName() != "o/r" {
		t.Fatalf("got repo %q", repo.GetFullName())
	}
}

func TestInstallationTokens(t *testing.T) {
	f, srv := newFakeGitHub(t, "/api/v3")
	a := newTestApps(t, srv.URL+"/api/v3", nil)
	ctx := context.Background()

	// Two calls through one installation mint one token.
	getRepo(t, a, 7)
	getRepo(t, a, 7)
	if n, _ := f.counts(7); n != 1 {
		t.Errorf("installation 7: %d tokens minted for two calls, want 1", n)
	}
	c1, _ := a.Installation(7)
	c2, _ := a.Installation(7)
	if c1 != c2 {
		t.Error("Installation(7) returned two clients")
	}

	// Token hands out the cached token.
	tok, err := a.Token(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if n, latest := f.counts(7); n != 1 || tok != latest {
		t.Errorf("Token = %q after %d mints; want the cached %q", tok, n, latest)
	}

	// Another installation mints its own.
	getRepo(t, a, 8)
	if n, _ := f.counts(8); n != 1 {
		t.Errorf("installation 8: %d tokens minted, want 1", n)
	}

	// Forget drops client and token.
	a.Forget(7)
	if c3, _ := a.Installation(7); c3 == c1 {
		t.Error("Installation(7) after Forget returned the old client")
	}
	getRepo(t, a, 7)
	tok2, err := a.Token(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if n, latest := f.counts(7); n != 2 || tok2 != latest || tok2 == tok {
		t.Errorf("after Forget: %d mints, Token %q (latest %q, old %q); want a second token", n, tok2, latest, tok)
	}
	if n, _ := f.counts(8); n != 1 {
		t.Errorf("Forget(7) made installation 8 mint again: %d", n)
	}
}

func TestInstallationTokenRefreshedBeforeExpiry(t *testing.T) {
	f, srv := newFakeGitHub(t, "/api/v3")
	f.ttl = 30 * time.Second // within ghinstallation's one-minute margin
	a := newTestApps(t, srv.URL+"/api/v3/", nil)
	for range 3 {
		if _, err := a.Token(context.Background(), 7); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := f.counts(7); n != 3 {
		t.Errorf("%d mints for 3 calls with nearly expired tokens, want 3", n)
	}
}

func TestInstallationTokenMintRetried(t *testing.T) {
	f, srv := newFakeGitHub(t, "/api/v3")
	f.fail = []int{502, 503}
	var rec retrytest.Sleeps
	a := newTestApps(t, srv.URL+"/api/v3/", &rec)
	getRepo(t, a, 7)
	f.mu.Lock()
	hits := f.tokenHits
	f.mu.Unlock()
	if hits != 3 {
		t.Errorf("token endpoint hit %d times, want 3 (502, 503, 201)", hits)
	}
	if got := rec.Got(); len(got) != 2 || got[0] < 500*time.Millisecond || got[0] > time.Second || got[1] < time.Second || got[1] > 2*time.Second {
		t.Errorf("delays %v, want about [1s 2s] with jitter", got)
	}
}

func TestInstallationSuspended(t *testing.T) {
	f, srv := newFakeGitHub(t, "/api/v3")
	f.suspended[9] = true
	var rec retrytest.Sleeps
	a := newTestApps(t, srv.URL+"/api/v3/", &rec)
	_, err := a.Token(context.Background(), 9)
	if err == nil || !strings.Contains(err.Error(), "This installation has been suspended") || !strings.Contains(err.Error(), "403") {
		t.Errorf("Token: %v; want an error with the 403 and GitHub's message", err)
	}
	c, _ := a.Installation(9)
	if _, _, err := c.Repositories.Get(context.Background(), "o", "r"); err == nil {
		t.Error("a suspended installation's client got the repository")
	}
	f.mu.Lock()
	hits := f.tokenHits
	f.mu.Unlock()
	if hits != 2 || len(rec.Got()) != 0 {
		t.Errorf("token endpoint hit %d times with delays %v; want 2 and none (a 403 is not retried)", hits, rec.Got())
	}
	if _, err := a.Token(context.Background(), 0); err == nil {
		t.Error("Token(0) succeeded")
	}
	if _, err := a.Installation(-1); err == nil {
		t.Error("Installation(-1) succeeded")
	}
}

func TestAppClient(t *testing.T) {
	_, srv := newFakeGitHub(t, "/api/v3")
	a := newTestApps(t, srv.URL+"/api/v3/", nil)
	app, _, err := a.App().Apps.Get(context.Background(), "")
	if err != nil {
		t.Fatalf("GET /app: %v", err)
	}
	if app.GetID() != testAppID {
		t.Errorf("app ID %d, want %d", app.GetID(), testAppID)
	}
}

func TestEnterpriseServer(t *testing.T) {
	// The fake answers only under /api/v3/; the base URL has no path,
	// so it is taken to be GitHub Enterprise Server.
	f, srv := newFakeGitHub(t, "/api/v3")
	a := newTestApps(t, srv.URL, nil)
	getRepo(t, a, 7)
	if n, _ := f.counts(7); n != 1 {
		t.Errorf("%d tokens minted on the Enterprise server, want 1", n)
	}
	if _, _, err := a.App().Apps.Get(context.Background(), ""); err != nil {
		t.Errorf("GET /api/v3/app: %v", err)
	}
	c, _ := a.Installation(7)
	if got, want := c.BaseURL(), srv.URL+"/api/v3/"; got != want {
		t.Errorf("BaseURL %s, want %s", got, want)
	}
	if got, want := c.UploadURL(), srv.URL+"/api/uploads/"; got != want {
		t.Errorf("UploadURL %s, want %s", got, want)
	}
}

func TestInstallationsConcurrent(t *testing.T) {
	f, srv := newFakeGitHub(t, "/api/v3")
	a := newTestApps(t, srv.URL+"/api/v3/", nil)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			c, err := a.Installation(7)
			if err != nil {
				t.Error(err)
				return
			}
			if _, _, err := c.Repositories.Get(context.Background(), "o", "r"); err != nil {
				t.Error(err)
			}
			other := int64(100 + i%4)
			if _, err := a.Token(context.Background(), other); err != nil {
				t.Error(err)
			}
			a.Forget(other)
		})
	}
	wg.Wait()
	if n, _ := f.counts(7); n != 1 {
		t.Errorf("%d tokens minted for installation 7 by 16 goroutines, want 1", n)
	}
}

func TestNewErrors(t *testing.T) {
	key := testKey()
	pkcs1 := pkcs1PEM(key)
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	truncated := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)[:100]})
	escaped := []byte(strings.ReplaceAll(string(pkcs1), "\n", `\n`))

	tests := []struct {
		name    string
		appID   int64
		key     []byte
		baseURL string
		wantErr string // "" means success
	}{
		{name: "PKCS#1", appID: 1, key: pkcs1},
		{name: "PKCS#8", appID: 1, key: pkcs8PEM(t, key)},
		{name: "escaped newlines", appID: 1, key: escaped},
		{name: "GHES URL", appID: 1, key: pkcs1, baseURL: "https://ghe.example.com"},
		{name: "zero app ID", appID: 0, key: pkcs1, wantErr: "App ID must be a positive number, got 0"},
		{name: "negative app ID", appID: -3, key: pkcs1, wantErr: "App ID must be a positive number, got -3"},
		{name: "empty key", appID: 1, key: nil, wantErr: "not a PEM RSA private key: it is empty"},
		{name: "not PEM", appID: 1, key: []byte("ghp_notakey0123456789"), wantErr: "not a PEM RSA private key: no PEM block"},
		{name: "public key", appID: 1, key: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), wantErr: `the PEM block is "PUBLIC KEY"`},
		{name: "ECDSA key", appID: 1, key: pkcs8PEM(t, ecKey), wantErr: "ECDSA key; GitHub Apps use RSA"},
		{name: "truncated", appID: 1, key: truncated, wantErr: "bad PKCS#1 data"},
		{name: "bad base URL", appID: 1, key: pkcs1, baseURL: "ghe.example.com/api/v3", wantErr: "not an absolute http(s) URL"},
		{name: "ftp base URL", appID: 1, key: pkcs1, baseURL: "ftp://ghe.example.com/", wantErr: "not an absolute http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := New(Config{AppID: tt.appID, PrivateKey: tt.key, BaseURL: tt.baseURL})
			if tt.wantErr == "" {
				if err != nil || a == nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("New succeeded; want an error with %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q lacks %q", err, tt.wantErr)
			}
			// No line of the key shows in the error.
			for line := range strings.Lines(string(tt.key)) {
				line = strings.TrimSpace(line)
				if len(line) > 16 && !strings.HasPrefix(line, "-----") && strings.Contains(err.Error(), line) {
					t.Errorf("error %q echoes the key", err)
				}
			}
		})
	}
}

func TestNormalizeBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                                   "https://api.github.com/",
		"https://api.github.com":             "https://api.github.com/",
		"https://api.github.com/":            "https://api.github.com/",
		"https://github.com":                 "https://api.github.com/",
		"https://ghe.example.com":            "https://ghe.example.com/api/v3/",
		"https://ghe.example.com/":           "https://ghe.example.com/api/v3/",
		"https://ghe.example.com/api/v3":     "https://ghe.example.com/api/v3/",
		"https://ghe.example.com/api/v3/":    "https://ghe.example.com/api/v3/",
		"http://127.0.0.1:8080":              "http://127.0.0.1:8080/api/v3/",
		"https://api.octocorp.ghe.com":       "https://api.octocorp.ghe.com/",
		"https://proxy.example.com/github":   "https://proxy.example.com/github/",
		" https://ghe.example.com/api/v3 ":   "https://ghe.example.com/api/v3/",
		"https://ghe.example.com/api/v3?x#y": "https://ghe.example.com/api/v3/",
	} {
		u, err := normalizeBaseURL(in)
		if err != nil {
			t.Errorf("normalizeBaseURL(%q): %v", in, err)
			continue
		}
		if u.String() != want {
			t.Errorf("normalizeBaseURL(%q) = %s, want %s", in, u, want)
		}
	}
	for in, want := range map[string]string{
		"https://api.github.com/":         "https://uploads.github.com/",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com/api/uploads/",
		"https://api.octocorp.ghe.com/":   "https://uploads.octocorp.ghe.com/",
	} {
		u, _ := normalizeBaseURL(in)
		if got := uploadURL(u).String(); got != want {
			t.Errorf("uploadURL(%s) = %s, want %s", in, got, want)
		}
	}
}
