package ghapp

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"
)

// DefaultBaseURL is GitHub.com's API.
const DefaultBaseURL = "https://api.github.com/"

// Timeouts of the default HTTP client. There is no overall client
// timeout, because it would also cut short the waits for rate limits;
// bound a whole call with its context instead.
const (
	dialTimeout           = 30 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	responseHeaderTimeout = 60 * time.Second
	idleConnTimeout       = 90 * time.Second
	// attemptTimeout bounds one attempt, from sending the request to
	// closing the response body, so a stalled body cannot hang forever.
	attemptTimeout = 5 * time.Minute
)

// normalizeBaseURL checks and normalises a GitHub API base URL:
//
//   - "" means DefaultBaseURL; https://github.com means it too.
//   - It must be an absolute http or https URL.
//   - A missing trailing slash is added.
//   - A URL with no path whose host is neither api.github.com nor
//     another api.* host (GHE.com's api.SUBDOMAIN.ghe.com) is taken to
//     be GitHub Enterprise Server, whose API lives under /api/v3/:
//     https://ghe.example.com becomes https://ghe.example.com/api/v3/.
//   - Any other path is kept as it is (a proxy, say).
func normalizeBaseURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultBaseURL
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("ghapp: GitHub API base URL: %w", err)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("ghapp: GitHub API base URL %q is not an absolute http(s) URL such as %s or https://ghe.example.com/api/v3/", u.Redacted(), DefaultBaseURL)
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	host := strings.ToLower(u.Hostname())
	if host == "github.com" || host == "www.github.com" {
		return url.Parse(DefaultBaseURL)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/"
		if !strings.HasPrefix(host, "api.") {
			u.Path = "/api/v3/"
		}
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawPath = ""
	return u, nil
}

// uploadURL derives the uploads URL from a normalised API base URL.
func uploadURL(base *url.URL) *url.URL {
	u := *base
	switch {
	case strings.HasSuffix(u.Path, "/api/v3/"):
		u.Path = strings.TrimSuffix(u.Path, "v3/") + "uploads/"
	case strings.HasPrefix(u.Host, "api."):
		u.Host = "uploads." + strings.TrimPrefix(u.Host, "api.")
	}
	return &u
}

// newGitHubClient returns a go-github client over hc for the normalised
// base URL. It sets the URLs with WithURLs rather than
// WithEnterpriseURLs because the latter would append /api/v3/ to a
// deliberate custom path; normalizeBaseURL has already added it where
// it belongs.
func newGitHubClient(hc *http.Client, base *url.URL, opts ...github.ClientOptionsFunc) (*github.Client, error) {
	options := []github.ClientOptionsFunc{github.WithHTTPClient(hc)}
	if base.String() != DefaultBaseURL {
		b, u := base.String(), uploadURL(base).String()
		options = append(options, github.WithURLs(&b, &u))
	}
	c, err := github.NewClient(append(options, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("ghapp: %w", err)
	}
	return c, nil
}

// transports returns the client to copy, the transport to wrap and the
// timeout of each attempt for a user's *http.Client (none), or the
// defaults for nil.
func transports(hc *http.Client) (http.Client, http.RoundTripper, time.Duration) {
	if hc != nil {
		base := hc.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		return *hc, base, 0
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       idleConnTimeout,
		TLSHandshakeTimeout:   tlsHandshakeTimeout,
		ResponseHeaderTimeout: responseHeaderTimeout,
		ExpectContinueTimeout: time.Second,
	}
	return http.Client{}, tr, attemptTimeout
}
