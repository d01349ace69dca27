package ghapp

import (
	"errors"
	"log/slog"
	"strings"

	"github.com/google/go-github/v88/github"
)

// NewTokenClient returns a client that authenticates with a fixed token
// (the Action's GITHUB_TOKEN, sent as "Authorization: Bearer"), retrying
// as p says. baseURL is normalised as Config.BaseURL is; nil logger means
// slog.Default(). It uses the default HTTP client's timeouts.
func NewTokenClient(token, baseURL string, p RetryPolicy, logger *slog.Logger) (*github.Client, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, errors.New("ghapp: the GitHub token is empty")
	}
	base, err := normalizeBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	hc, baseTr, timeout := transports(nil)
	hc.Transport = p.transport(baseTr, timeout, logger)
	return newGitHubClient(&hc, base, github.WithAuthToken(token))
}
