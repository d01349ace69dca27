package fakegithub

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// installation is a GitHub App installation.
type installation struct {
	id      int64
	repos   map[string]bool // lower-case "owner/name"
	order   []string        // the repos as given, for listings
	account string
	created time.Time
	revoked bool
	grants  *grants // nil: what the App asks for
}

// token is an access token the fake accepts.
type token struct {
	inst    *installation   // nil for a static token
	repos   map[string]bool // a restriction asked for when minting, or nil
	expires time.Time
}

type actorKind int

const (
	actorApp actorKind = iota
	actorInstallation
	actorStatic
)

// actor is who a request authenticated as.
type actor struct {
	kind  actorKind
	login string
	inst  *installation
	tok   *token
}

// staticLogin is who WithToken tokens act as.
const staticLogin = "github-actions[bot]"

// AddInstallation installs the App on the repositories given as
// "owner/name" (replacing any installation with the same id, which
// reinstates a revoked one).
func (s *Server) AddInstallation(id int64, repos ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inst := &installation{id: id, repos: map[string]bool{}, created: time.Now().UTC().Truncate(time.Second)}
	for _, r := range repos {
		inst.repos[strings.ToLower(r)] = true
		inst.order = append(inst.order, r)
		if inst.account == "" {
			inst.account, _, _ = strings.Cut(r, "/")
		}
	}
	if inst.account == "" {
		inst.account = "capsulehq"
	}
	s.installations[id] = inst
}

// RevokeInstallation uninstalls the App from installation id: every token
// minted for it stops working (401) and minting new ones answers 404.
func (s *Server) RevokeInstallation(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inst := s.installations[id]; inst != nil {
		inst.revoked = true
	}
}

// TokensMinted returns how many access tokens installation id has been
// given.
func (s *Server) TokensMinted(installation int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.minted[installation]
}

// authenticate checks the request's credentials for an endpoint taking kind
// and sets c.actor.
func (s *Server) authenticate(c *call, kind authKind) (reply, bool) {
	header := c.r.Header.Get("Authorization")
	if header == "" {
		return errorReply(http.StatusUnauthorized, "Requires authentication"), false
	}
	scheme, cred, _ := strings.Cut(header, " ")
	scheme = strings.ToLower(scheme)
	if kind == authJWT {
		if scheme != "bearer" || strings.Count(cred, ".") != 2 {
			return errorReply(http.StatusUnauthorized, "A JSON web token could not be decoded"), false
		}
		if err := s.verifyJWT(cred, time.Now()); err != nil {
			return errorReply(http.StatusUnauthorized, err.Error()), false
		}
		c.actor = &actor{kind: actorApp, login: s.cfg.botLogin}
		return reply{}, true
	}
	if scheme != "token" && scheme != "bearer" {
		return errorReply(http.StatusUnauthorized, "Bad credentials"), false
	}
	for _, t := range s.cfg.staticTokens {
		if cred == t {
			c.actor = &actor{kind: actorStatic, login: staticLogin}
			return reply{}, true
		}
	}
	t := s.tokens[cred]
	if t == nil || t.inst.revoked || time.Now().After(t.expires) {
		return errorReply(http.StatusUnauthorized, "Bad credentials"), false
	}
	c.actor = &actor{kind: actorInstallation, login: s.cfg.botLogin, inst: t.inst, tok: t}
	return reply{}, true
}

// repoAccess resolves {owner}/{repo} into c.repo, answering 404 (as GitHub
// does for private repositories) when it does not exist or the installation
// token does not cover it.
func (s *Server) repoAccess(c *call, kind authKind) (reply, bool) {
	key := strings.ToLower(c.params["owner"] + "/" + c.params["repo"])
	st := s.repos[key]
	if st == nil {
		return notFound(), false
	}
	if a := c.actor; kind == authToken && a.kind == actorInstallation {
		if !a.inst.repos[key] || (a.tok.repos != nil && !a.tok.repos[key]) {
			return notFound(), false
		}
	}
	c.repo = st
	return reply{}, true
}

// verifyJWT checks an App JWT the way GitHub does: RS256 signed by the
// App's key, iss the App id, iat not in the future, exp in the future but at
// most ten minutes after now. Its errors are GitHub's messages.
func (s *Server) verifyJWT(jwt string, now time.Time) error {
	if s.cfg.appKey == nil {
		return errors.New("A JSON web token could not be decoded (fakegithub: no App registered with WithApp)")
	}
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return errors.New("A JSON web token could not be decoded")
	}
	var head struct {
		Alg string `json:"alg"`
	}
	if err := decodeSegment(parts[0], &head); err != nil || head.Alg != "RS256" {
		return errors.New("A JSON web token could not be decoded")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return errors.New("A JSON web token could not be decoded")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(s.cfg.appKey, crypto.SHA256, digest[:], sig); err != nil {
		return errors.New("A JSON web token could not be decoded")
	}
	var claims struct {
		Iss json.RawMessage `json:"iss"`
		Iat json.Number     `json:"iat"`
		Exp json.Number     `json:"exp"`
	}
	if err := decodeSegment(parts[1], &claims); err != nil {
		return errors.New("A JSON web token could not be decoded")
	}
	iss := strings.Trim(string(claims.Iss), `"`)
	if iss != strconv.FormatInt(s.cfg.appID, 10) {
		return fmt.Errorf("'Issuer' claim ('iss') must be the App id %d, not %s", s.cfg.appID, claims.Iss)
	}
	iat, err := claims.Iat.Int64()
	if err != nil {
		return errors.New("'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued")
	}
	exp, err := claims.Exp.Int64()
	if err != nil {
		return errors.New("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
	}
	const skew = 60 // seconds of clock drift GitHub tolerates
	switch {
	case iat > now.Unix()+skew:
		return errors.New("'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued")
	case exp <= now.Unix():
		return errors.New("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
	case exp > now.Unix()+10*60+skew:
		return errors.New("'Expiration time' claim ('exp') is too far in the future")
	}
	return nil
}

// decodeSegment decodes one base64url JSON part of a JWT.
func decodeSegment(part string, v any) error {
	data, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil {
		return fmt.Errorf("decode JWT segment: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode JWT segment: %w", err)
	}
	return nil
}

// newToken returns a fresh installation token value, "ghs_" and 36
// letters and digits like GitHub's.
func newToken() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 36)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return "ghs_" + string(b)
}
