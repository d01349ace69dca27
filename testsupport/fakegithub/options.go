package fakegithub

import (
	"crypto/rsa"
	"strings"
)

// Option configures a Server made by New.
type Option func(*config)

type config struct {
	prefix            string
	appID             int64
	appKey            *rsa.PublicKey
	botLogin          string
	staticTokens      []string
	onViolation       func(Violation)
	validateResponses bool
	description       string
	appGrants         *grants // nil: capsuleGrants
}

// WithPrefix serves the API under prefix, as GitHub Enterprise Server does
// under "/api/v3". URL then ends in prefix + "/", which is what go-github's
// WithEnterpriseURLs expects.
func WithPrefix(prefix string) Option {
	return func(c *config) { c.prefix = "/" + strings.Trim(prefix, "/") }
}

// WithApp registers the GitHub App whose JWTs the /app endpoints accept:
// RS256-signed by the private half of key, with iss = appID (as a string, as
// ghinstallation sends it, or a number).
func WithApp(appID int64, key *rsa.PublicKey) Option {
	return func(c *config) { c.appID, c.appKey = appID, key }
}

// WithBotLogin sets the login that installation tokens act as, in comments,
// pull requests and commits. The default is "capsule-app[bot]".
func WithBotLogin(login string) Option {
	return func(c *config) { c.botLogin = login }
}

// WithToken registers a static token (like the GITHUB_TOKEN of an Actions
// run) that may use every repository and acts as "github-actions[bot]".
func WithToken(token string) Option {
	return func(c *config) { c.staticTokens = append(c.staticTokens, token) }
}

// WithViolationHandler sends violations (requests the real API would reject,
// unimplemented endpoints) to f instead of failing the test with t.Errorf.
// Violations records them either way.
func WithViolationHandler(f func(Violation)) Option {
	return func(c *config) { c.onViolation = f }
}

// WithResponseValidation also checks each of the fake's own responses
// against the description's response schema and reports mismatches as
// violations. The fake's own tests use it.
func WithResponseValidation() Option {
	return func(c *config) { c.validateResponses = true }
}

// WithDescription uses the OpenAPI description in file (JSON, gzipped if the
// name ends in .gz) instead of the full one in testsupport/testdata/openapi.
func WithDescription(file string) Option {
	return func(c *config) { c.description = file }
}
