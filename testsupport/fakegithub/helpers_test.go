package fakegithub

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v88/github"
)

// staticToken is the WithToken token of newServer's fakes.
const staticToken = "ghp_statictesttoken"

// newServer starts a fake that also checks its own responses against the
// description, with staticToken registered.
func newServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	return New(t, append([]Option{WithToken(staticToken), WithResponseValidation()}, opts...)...)
}

// collecting returns an option that collects violations instead of failing
// the test, and a function returning them.
func collecting() (Option, func() []Violation) {
	var mu sync.Mutex
	var got []Violation
	return WithViolationHandler(func(v Violation) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, v)
		}), func() []Violation {
			mu.Lock()
			defer mu.Unlock()
			return append([]Violation(nil), got...)
		}
}

// tokenClient is a go-github client for s authenticating with token.
func tokenClient(s *Server, token string) *github.Client {
	c, err := s.Client(nil).Clone(github.WithAuthToken(token))
	if err != nil {
		panic(err) // a token option cannot fail
	}
	return c
}

// do sends a raw request to the API path p (no leading slash) and returns
// the status and body.
func do(t *testing.T, s *Server, method, p, token, body string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL()+p, r)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

// message is the "message" of a GitHub error body.
func message(t *testing.T, body string) string {
	t.Helper()
	var e struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("error body %q: %v", body, err)
	}
	return e.Message
}

var (
	keyOnce sync.Once
	testKey *rsa.PrivateKey
)

// appKey is an RSA key made once per test binary.
func appKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	keyOnce.Do(func() {
		var err error
		if testKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	})
	return testKey
}

// signJWT makes an RS256 JWT with claims.
func signJWT(t *testing.T, key *rsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`))
	body, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	signed := head + "." + enc.EncodeToString(body)
	digest := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed + "." + enc.EncodeToString(sig)
}

// validClaims are the claims of a JWT the fake accepts for App 42.
func validClaims() map[string]any {
	now := time.Now().Unix()
	return map[string]any{"iss": "42", "iat": now - 30, "exp": now + 120}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
