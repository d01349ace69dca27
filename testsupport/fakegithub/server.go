package fakegithub

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v88/github"
)

// Server is a fake GitHub REST API served over HTTP on the loopback
// interface. All its methods are safe for concurrent use.
type Server struct {
	t    testing.TB // nil outside a test (Start)
	cfg  config
	srv  *httptest.Server
	desc *description

	mu            sync.Mutex
	repos         map[string]*repoState // by lower-case "owner/name"
	installations map[int64]*installation
	tokens        map[string]*token
	minted        map[int64]int
	users         map[string]int64 // login → id
	nextID        int64
	requests      []Request
	violations    []Violation
	faults        []*fault
	down          *outage // see Down; nil while the fake is up
	stalls        []*stall
}

// Request is one request the fake received, recorded for assertions.
type Request struct {
	Method string
	// Path is the URL path without the WithPrefix prefix, unescaped.
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
	// Operation is the description's "METHOD /path/{template}" the request
	// matched, empty when it matched none (or was a codeload download).
	Operation string
}

// Violation is a request the real API would reject, or one the fake cannot
// answer, or (with WithResponseValidation) a response of the fake that does
// not match the description.
type Violation struct {
	Method    string
	Path      string
	Operation string // as in Request; empty when the path is unknown
	Message   string
}

// Error formats the violation as t.Errorf reports it.
func (v Violation) Error() string {
	if v.Operation != "" {
		return fmt.Sprintf("%s %s (%s): %s", v.Method, v.Path, v.Operation, v.Message)
	}
	return fmt.Sprintf("%s %s: %s", v.Method, v.Path, v.Message)
}

// New starts a fake GitHub API for the test t; it stops when the test ends.
// It loads GitHub's OpenAPI description (testdata.GitHubDescription, once
// per process).
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := start(t, opts)
	if err != nil {
		t.Fatalf("fakegithub: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake GitHub API outside a test, for `capsule demo`; Close
// stops it. A violation is recorded (see Violations) and goes to the
// WithViolationHandler handler when there is one; a misuse of the seeding
// methods (AddRepo of a repository that exists, ...) panics.
func Start(opts ...Option) (*Server, error) {
	return start(nil, opts)
}

func start(t testing.TB, opts []Option) (*Server, error) {
	cfg := config{botLogin: "capsule-app[bot]"}
	for _, o := range opts {
		o(&cfg)
	}
	desc, _, err := loadDescription(cfg.description)
	if err != nil {
		return nil, err
	}
	s := &Server{
		t:             t,
		cfg:           cfg,
		desc:          desc,
		repos:         map[string]*repoState{},
		installations: map[int64]*installation{},
		tokens:        map[string]*token{},
		minted:        map[int64]int{},
		users:         map[string]int64{},
		nextID:        1000,
	}
	s.srv = httptest.NewServer(s)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// fatalf fails the test, or panics outside a test, on a misuse of the
// fake's own methods.
func (s *Server) fatalf(format string, args ...any) {
	if s.t == nil {
		panic(fmt.Sprintf(format, args...))
	}
	s.t.Helper()
	s.t.Fatalf(format, args...)
}

// URL returns the API base URL, with a trailing slash, for go-github's
// BaseURL (or WithEnterpriseURLs when the fake has a prefix).
func (s *Server) URL() string {
	return s.srv.URL + s.cfg.prefix + "/"
}

// Client returns a go-github client for the fake that sends its requests
// through httpClient (nil for a plain one), for example one whose transport
// is a ghinstallation.Transport.
func (s *Server) Client(httpClient *http.Client) *github.Client {
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	u := s.URL()
	c, err := github.NewClient(github.WithHTTPClient(httpClient), github.WithURLs(&u, &u))
	if err != nil {
		panic("fakegithub: " + err.Error()) // our own URL always parses
	}
	return c
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	copy(out, s.requests)
	return out
}

// Violations returns the violations reported so far, in order.
func (s *Server) Violations() []Violation {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Violation, len(s.violations))
	copy(out, s.violations)
	return out
}

// report records v and fails the test (or calls the violation handler). It
// must be called without s.mu held.
func (s *Server) report(v Violation) {
	s.mu.Lock()
	s.violations = append(s.violations, v)
	s.mu.Unlock()
	if s.cfg.onViolation != nil {
		s.cfg.onViolation(v)
		return
	}
	if s.t != nil {
		s.t.Errorf("fakegithub: %v", v)
	}
}

// ServeHTTP answers one request: record it, route and validate it against
// the description, apply injected faults, authenticate, then run the
// endpoint's handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if s.serveDown(w, r, body) {
		return
	}
	if strings.HasPrefix(r.URL.Path, codeloadPrefix) {
		s.record(r, r.URL.Path, "", body)
		if rep, faulted := s.takeFault(r.Method, r.URL.Path); faulted {
			for k, vs := range rep.header {
				w.Header()[k] = vs
			}
			writeJSON(w, rep)
			return
		}
		s.serveCodeload(w, r)
		return
	}
	apiPath, escaped, ok := s.stripPrefix(r)
	if !ok {
		s.record(r, r.URL.Path, "", body)
		s.report(Violation{Method: r.Method, Path: r.URL.Path, Message: fmt.Sprintf("outside the API prefix %q", s.cfg.prefix)})
		writeJSON(w, errorReply(http.StatusNotFound, "Not Found"))
		return
	}

	entry, params := s.desc.find(escaped)
	if entry == nil || !entry.methods[r.Method] {
		s.record(r, apiPath, "", body)
		msg := "no such operation in GitHub's OpenAPI description"
		if entry != nil {
			msg = fmt.Sprintf("no such operation in GitHub's OpenAPI description: %s has only %s", entry.template, strings.Join(sortedKeys(entry.methods), ", "))
		}
		s.report(Violation{Method: r.Method, Path: apiPath, Message: msg})
		writeJSON(w, errorReply(http.StatusNotFound, "Not Found"))
		return
	}
	operation := r.Method + " " + entry.template
	s.record(r, apiPath, operation, body)
	route, err := entry.route(r.Method)
	if err != nil {
		s.report(Violation{Method: r.Method, Path: apiPath, Operation: operation, Message: err.Error()})
		writeJSON(w, errorReply(http.StatusInternalServerError, err.Error()))
		return
	}
	in, invalid := validateRequest(r, route, params, body)
	if invalid != nil {
		s.report(Violation{Method: r.Method, Path: apiPath, Operation: operation, Message: invalid.message})
	}
	s.waitStalls(r.Method, apiPath)
	rep, faulted := s.takeFault(r.Method, apiPath)
	switch {
	case faulted:
	case invalid != nil:
		rep = invalid.reply
	default:
		rep = s.dispatch(r, apiPath, operation, entry.template, params, body)
		if lost, ok := s.takeFaultOf(r.Method, apiPath, true); ok {
			rep = lost // it acted; its answer is lost
		}
	}
	s.respond(w, in, route, rep, apiPath, operation)
}

// stripPrefix returns the request path without the configured prefix, both
// unescaped and escaped.
func (s *Server) stripPrefix(r *http.Request) (plain, escaped string, ok bool) {
	plain, escaped = r.URL.Path, r.URL.EscapedPath()
	if s.cfg.prefix == "" {
		return plain, escaped, true
	}
	p, ok1 := strings.CutPrefix(plain, s.cfg.prefix+"/")
	e, ok2 := strings.CutPrefix(escaped, s.cfg.prefix+"/")
	if !ok1 || !ok2 {
		return "", "", false
	}
	return "/" + p, "/" + e, true
}

func (s *Server) record(r *http.Request, path, operation string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{
		Method:    r.Method,
		Path:      path,
		Query:     r.URL.Query(),
		Header:    r.Header.Clone(),
		Body:      bytes.Clone(body),
		Operation: operation,
	})
}

// dispatch authenticates the request and runs its endpoint's handler with
// the server's state locked.
func (s *Server) dispatch(r *http.Request, apiPath, operation, template string, params map[string]string, body []byte) reply {
	ep, ok := endpoints[operation]
	if !ok {
		s.report(Violation{Method: r.Method, Path: apiPath, Operation: operation, Message: "valid request, but fakegithub does not implement this operation"})
		return errorReply(http.StatusNotImplemented, "fakegithub does not implement "+operation)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &call{s: s, r: r, params: params, query: r.URL.Query(), body: body}
	if rep, ok := s.authenticate(c, ep.auth); !ok {
		return rep
	}
	if strings.HasPrefix(template, "/repos/{owner}/{repo}") {
		if rep, ok := s.repoAccess(c, ep.auth); !ok {
			return rep
		}
	}
	return ep.handle(c)
}

// apiBase is the API URL without a trailing slash, for the url fields of
// responses.
func (s *Server) apiBase() string { return s.srv.URL + s.cfg.prefix }

// webBase is the "github.com" of html_url fields.
func (s *Server) webBase() string { return s.srv.URL }
