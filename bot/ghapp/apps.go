// Package ghapp builds GitHub API clients for Capsule: clients for the
// GitHub App's installations (Apps) and for a plain token
// (NewTokenClient), all retrying failed requests (httpretry, with
// GitHub's policy: RetryPolicy).
//
// An installation client is layered as
//
//	github.Client → ghinstallation.Transport → httpretry.Transport → base
//
// so the requests that mint installation tokens are retried too.
package ghapp

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v88/github"
)

// Config describes a GitHub App.
type Config struct {
	AppID int64 // the App's ID, from its settings page; must be positive
	// PrivateKey is the App's private key in PEM: PKCS#1 ("RSA PRIVATE
	// KEY", what GitHub generates) or PKCS#8 ("PRIVATE KEY"). Literal
	// "\n" escapes, as left by some secret stores, are tolerated.
	PrivateKey []byte
	// BaseURL is the API base; "" means DefaultBaseURL. For GitHub
	// Enterprise Server it is https://HOST/api/v3/. A trailing slash is
	// added if missing, and a URL with no path whose host is not an
	// api.* host (api.github.com, api.SUBDOMAIN.ghe.com) is taken to be
	// GitHub Enterprise Server: https://HOST becomes https://HOST/api/v3/.
	BaseURL string
	// HTTPClient supplies the base transport and client settings (its
	// Timeout, if set, bounds a whole call including retry waits). Nil
	// means a client with dial, TLS, response-header and per-attempt
	// timeouts but no overall timeout.
	HTTPClient *http.Client
	// Retry says how failed requests are retried; zero fields take
	// the defaults of DefaultRetryPolicy.
	Retry RetryPolicy
	// Logger receives retry warnings; nil means slog.Default().
	Logger *slog.Logger
}

// Apps creates and caches GitHub API clients per installation of a
// GitHub App. It is safe for concurrent use.
type Apps struct {
	appID int64
	key   *rsa.PrivateKey
	base  *url.URL          // normalised API base, trailing slash
	hc    http.Client       // template for the clients' settings
	retry http.RoundTripper // the retrying transport over the base transport
	app   *github.Client
	// signIn is a client as the App whose requests are never retried,
	// for SignIn.
	signIn *github.Client
	tokens string // base URL as ghinstallation wants it: no trailing slash

	mu       sync.Mutex
	installs map[int64]*installation
}

// installation is one installation's cached client and token source.
type installation struct {
	tr     *ghinstallation.Transport
	client *github.Client
}

// New checks c and returns an Apps for it. It fails if the App ID is
// not positive, the private key is not a PEM RSA private key, or the
// base URL is not an absolute http(s) URL.
func New(c Config) (*Apps, error) {
	if c.AppID <= 0 {
		return nil, fmt.Errorf("ghapp: the GitHub App ID must be a positive number, got %d", c.AppID)
	}
	key, err := parsePrivateKey(c.PrivateKey)
	if err != nil {
		return nil, err
	}
	base, err := normalizeBaseURL(c.BaseURL)
	if err != nil {
		return nil, err
	}
	hc, baseTr, timeout := transports(c.HTTPClient)
	a := &Apps{
		appID:    c.AppID,
		key:      key,
		base:     base,
		hc:       hc,
		retry:    c.Retry.transport(baseTr, timeout, c.Logger),
		tokens:   strings.TrimSuffix(base.String(), "/"),
		installs: make(map[int64]*installation),
	}
	app, err := a.client(a.appsTransport())
	if err != nil {
		return nil, err
	}
	a.app = app
	once := ghinstallation.NewAppsTransportFromPrivateKey(RetryPolicy{MaxRetries: -1}.transport(baseTr, timeout, c.Logger), a.appID, a.key)
	once.BaseURL = a.tokens
	if a.signIn, err = a.client(once); err != nil {
		return nil, err
	}
	return a, nil
}

// Installation returns the client for installation id, creating it on
// first use. The client's transport mints an installation token when
// needed, caches it and refreshes it a minute before it expires.
func (a *Apps) Installation(id int64) (*github.Client, error) {
	in, err := a.installation(id)
	if err != nil {
		return nil, err
	}
	return in.client, nil
}

// Forget drops the cached client and token of installation id, as when
// the installation is deleted or suspended. Clients already handed out
// keep working with their own token.
func (a *Apps) Forget(id int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.installs, id)
}

// App returns a client authenticated as the App itself (a JWT), for
// the /app endpoints such as listing installations.
func (a *Apps) App() *github.Client {
	return a.app
}

// ErrCredentials is wrapped by SignIn's error when GitHub refuses the
// App's credentials: its id or private key is wrong, or the key was
// revoked.
var ErrCredentials = errors.New("GitHub refuses the App's credentials")

// SignIn signs in as the App, once and without retries: a JWT against
// GET /app, which needs no installation. It returns the App. Its error
// wraps ErrCredentials when GitHub answers 401, 403 or 404 (no App with
// that id and key); any other error is GitHub failing or out of reach
// (DNS, connection refused, a timeout, a 5xx), which says nothing of the
// credentials.
func (a *Apps) SignIn(ctx context.Context) (*github.App, error) {
	app, _, err := a.signIn.Apps.Get(ctx, "")
	if err == nil {
		return app, nil
	}
	var e *github.ErrorResponse
	if errors.As(err, &e) && e.Response != nil {
		switch e.Response.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
			return nil, fmt.Errorf("ghapp: signing in as App %d at %s: %w: %w", a.appID, a.base.Redacted(), ErrCredentials, err)
		}
	}
	return nil, fmt.Errorf("ghapp: signing in as App %d at %s: %w", a.appID, a.base.Redacted(), err)
}

// Token returns installation id's current access token, minting or
// refreshing it if needed, for git over HTTPS (user "x-access-token").
// It shares the token cache of the client from Installation.
func (a *Apps) Token(ctx context.Context, id int64) (string, error) {
	in, err := a.installation(id)
	if err != nil {
		return "", err
	}
	tok, err := in.tr.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("ghapp: installation %d: %w", id, tokenError(err))
	}
	return tok, nil
}

// installation returns the cached installation, creating it if needed.
func (a *Apps) installation(id int64) (*installation, error) {
	if id <= 0 {
		return nil, fmt.Errorf("ghapp: installation ID must be a positive number, got %d", id)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if in, ok := a.installs[id]; ok {
		return in, nil
	}
	// Each installation gets its own AppsTransport: ghinstallation
	// writes to it while refreshing a token, under the installation's
	// lock only, so sharing one would race.
	tr := ghinstallation.NewFromAppsTransport(a.appsTransport(), id)
	// Without options ghinstallation sends the JSON body null, which
	// GitHub's description of the endpoint does not allow: send {}.
	tr.InstallationTokenOptions = &github.InstallationTokenOptions{}
	client, err := a.client(&installTransport{tr})
	if err != nil {
		return nil, err
	}
	in := &installation{tr: tr, client: client}
	a.installs[id] = in
	return in, nil
}

// appsTransport returns a transport that signs requests with a JWT as
// the App, sending them through the retrying transport.
func (a *Apps) appsTransport() *ghinstallation.AppsTransport {
	atr := ghinstallation.NewAppsTransportFromPrivateKey(a.retry, a.appID, a.key)
	atr.BaseURL = a.tokens
	return atr
}

// client returns a go-github client over rt with the configured
// client settings and base URL.
func (a *Apps) client(rt http.RoundTripper) (*github.Client, error) {
	hc := a.hc
	hc.Transport = rt
	return newGitHubClient(&hc, a.base)
}

// installTransport is a ghinstallation.Transport whose token errors
// have their response body read and closed (ghinstallation leaves it
// open) and GitHub's message added.
type installTransport struct {
	tr *ghinstallation.Transport
}

// RoundTrip implements http.RoundTripper.
func (t *installTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.tr.RoundTrip(r)
	if err != nil {
		return nil, tokenError(err)
	}
	return resp, nil
}

// tokenError releases the response held by a *ghinstallation.HTTPError
// in err, replacing its body with an in-memory copy, and adds GitHub's
// message (e.g. "This installation has been suspended") to err.
func tokenError(err error) error {
	var he *ghinstallation.HTTPError
	if !errors.As(err, &he) || he.Response == nil || he.Response.Body == nil {
		return err
	}
	if _, done := he.Response.Body.(*releasedBody); done {
		return err
	}
	b, _ := io.ReadAll(io.LimitReader(he.Response.Body, peekLimit))
	_ = he.Response.Body.Close()
	he.Response.Body = &releasedBody{bytes.NewReader(b)}
	var msg struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(b, &msg) == nil && msg.Message != "" {
		return fmt.Errorf("%w: GitHub says %q", err, msg.Message)
	}
	return err
}

// releasedBody is a response body already read into memory.
type releasedBody struct{ *bytes.Reader }

// Close implements io.Closer.
func (releasedBody) Close() error { return nil }

// parsePrivateKey parses a PEM RSA private key, in errors naming what
// is wrong without echoing the key.
func parsePrivateKey(pemBytes []byte) (*rsa.PrivateKey, error) {
	const what = "ghapp: the GitHub App private key is not a PEM RSA private key"
	if len(bytes.TrimSpace(pemBytes)) == 0 {
		return nil, fmt.Errorf("%s: it is empty", what)
	}
	block, _ := pem.Decode(pemBytes)
	if block == nil && bytes.Contains(pemBytes, []byte(`\n`)) {
		block, _ = pem.Decode(bytes.ReplaceAll(pemBytes, []byte(`\n`), []byte("\n")))
	}
	if block == nil {
		return nil, fmt.Errorf("%s: no PEM block (-----BEGIN RSA PRIVATE KEY-----) found", what)
	}
	var key *rsa.PrivateKey
	switch block.Type {
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: bad PKCS#1 data: %w", what, err)
		}
		key = k
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: bad PKCS#8 data: %w", what, err)
		}
		switch k := k.(type) {
		case *rsa.PrivateKey:
			key = k
		case *ecdsa.PrivateKey:
			return nil, fmt.Errorf("%s: it is an ECDSA key; GitHub Apps use RSA", what)
		case ed25519.PrivateKey:
			return nil, fmt.Errorf("%s: it is an Ed25519 key; GitHub Apps use RSA", what)
		default:
			return nil, fmt.Errorf("%s: it is a %T; GitHub Apps use RSA", what, k)
		}
	default:
		return nil, fmt.Errorf("%s: the PEM block is %q, want \"RSA PRIVATE KEY\" or \"PRIVATE KEY\"", what, block.Type)
	}
	if err := key.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return key, nil
}
