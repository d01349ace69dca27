package fakegithub

import (
	"fmt"
	"net/http"
	"path"
	"strings"
	"sync"
)

// Fault is an injected failure: requests matching Method and Path get
// Status, Header and a JSON body with Message instead of their real answer.
// They are still recorded and validated.
type Fault struct {
	// Method matches the request method; "" or "*" matches any.
	Method string
	// Path is a path.Match pattern over the API path (without the
	// WithPrefix prefix): "*" matches one segment, as in
	// "/repos/o/r/git/refs/*". A pattern ending in "/**" matches everything
	// under its prefix, as in "/repos/o/r/**". Archive downloads match by
	// their own path, "/_codeload/{owner}/{repo}/legacy.tar.gz/{sha}".
	Path string
	// Times is how many matching requests fail; 0 or less means all.
	Times int
	// Status is the HTTP status to answer.
	Status int
	// Header is added to the response, e.g. Retry-After, or
	// X-RateLimit-Remaining: 0 and X-RateLimit-Reset.
	Header http.Header
	// AfterWrite makes the request act first, as it would without the
	// fault, and only its answer fail: GitHub made the branch or opened
	// the pull request, and the client never heard of it.
	AfterWrite bool
	// Message is the body's "message"; empty chooses the one GitHub sends
	// with Status and Header: primary rate limit for X-RateLimit-Remaining:
	// 0, secondary rate limit (with its documentation_url, which go-github
	// turns into an AbuseRateLimitError) for 403 with Retry-After or 429.
	Message string
}

type fault struct {
	Fault
	left int // requests left to fail; negative for always
}

// FailNext makes the next n requests matching method and pathPattern (see
// Fault for the syntax) answer status with header.
func (s *Server) FailNext(method, pathPattern string, n int, status int, header http.Header) {
	if n <= 0 {
		s.fatalf("fakegithub: FailNext: n must be positive, not %d", n)
	}
	s.Inject(Fault{Method: method, Path: pathPattern, Times: n, Status: status, Header: header})
}

// FailAlways makes every request matching method and pathPattern (see Fault)
// answer status with header.
func (s *Server) FailAlways(method, pathPattern string, status int, header http.Header) {
	s.Inject(Fault{Method: method, Path: pathPattern, Status: status, Header: header})
}

// Inject adds a fault. Faults are tried in the order added; the first that
// matches a request answers it.
func (s *Server) Inject(f Fault) {
	if _, err := path.Match(strings.TrimSuffix(f.Path, "/**"), "/"); err != nil {
		s.fatalf("fakegithub: bad fault path pattern %q: %v", f.Path, err)
	}
	left := f.Times
	if left <= 0 {
		left = -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{Fault: f, left: left})
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

func (f *fault) matches(method, apiPath string) bool {
	if f.Method != "" && f.Method != "*" && !strings.EqualFold(f.Method, method) {
		return false
	}
	if prefix, ok := strings.CutSuffix(f.Path, "/**"); ok {
		return apiPath == prefix || strings.HasPrefix(apiPath, prefix+"/")
	}
	matched, _ := path.Match(f.Path, apiPath) // the pattern was checked in Inject
	return matched
}

// takeFault returns the reply of the first fault matching the request
// that is not AfterWrite and uses up one of its failures.
func (s *Server) takeFault(method, apiPath string) (reply, bool) {
	return s.takeFaultOf(method, apiPath, false)
}

// takeFaultOf is takeFault among the faults whose AfterWrite is after.
func (s *Server) takeFaultOf(method, apiPath string, after bool) (reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.left == 0 || f.AfterWrite != after || !f.matches(method, apiPath) {
			continue
		}
		if f.left > 0 {
			f.left--
			if f.left == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		rep := errorReply(f.Status, faultMessage(f.Fault))
		body := rep.body.(map[string]any)
		if secondaryRateLimit(f.Fault) {
			body["documentation_url"] = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
		}
		rep.header = f.Header.Clone()
		return rep, true
	}
	return reply{}, false
}

// secondaryRateLimit reports whether f looks like GitHub's secondary rate
// limit: 403 or 429 with Retry-After, or 429 without rate limit headers.
func secondaryRateLimit(f Fault) bool {
	if f.Header.Get("X-RateLimit-Remaining") == "0" {
		return false
	}
	return (f.Status == http.StatusForbidden && f.Header.Get("Retry-After") != "") || f.Status == http.StatusTooManyRequests
}

// faultMessage is the message GitHub sends with f's status and headers.
func faultMessage(f Fault) string {
	switch {
	case f.Message != "":
		return f.Message
	case (f.Status == http.StatusForbidden || f.Status == http.StatusTooManyRequests) && f.Header.Get("X-RateLimit-Remaining") == "0":
		return "API rate limit exceeded for installation. If you reach out to GitHub Support for help, please include the request ID."
	case secondaryRateLimit(f):
		return "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID."
	case f.Status >= 500:
		return "Server Error"
	default:
		return http.StatusText(f.Status)
	}
}

// outage is how the fake answers while it is down (see Down): with status,
// or, when status is 0, not at all.
type outage struct{ status int }

// Down makes every request, to the API and for archives, fail at the HTTP
// level until Up: answered with status (a 502 or 503 of GitHub's front
// end, with no JSON) when status is not 0, else not answered at all, its
// connection closed (as a host that went away). Requests are still
// recorded, but none acts. It is the fake's view of a GitHub outage, to
// show what a client does when GitHub cannot be reached.
func (s *Server) Down(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = &outage{status: status}
}

// Up ends the outage Down began.
func (s *Server) Up() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = nil
}

// serveDown answers r as the outage says, and reports false when there is
// none.
func (s *Server) serveDown(w http.ResponseWriter, r *http.Request, body []byte) bool {
	s.mu.Lock()
	down := s.down
	s.mu.Unlock()
	if down == nil {
		return false
	}
	s.record(r, r.URL.Path, "", body)
	if down.status != 0 {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(down.status)
		fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>\n", down.status, http.StatusText(down.status))
		return true
	}
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
		return true
	}
	panic(http.ErrAbortHandler) // closes the connection without an answer
}

// stall holds the requests matching its pattern until released.
type stall struct {
	pattern          fault // Method and Path only
	reached, release chan struct{}
	reachedOnce      sync.Once
}

// Stall holds every request matching method and pathPattern (see Fault
// for the syntax) until release is called, then lets it be answered as
// it would be; reached is closed when the first of them arrives. It
// shows what happens while a request is in flight (a job that has begun
// and not ended). Release may be called more than once.
func (s *Server) Stall(method, pathPattern string) (reached <-chan struct{}, release func()) {
	st := &stall{pattern: fault{Fault: Fault{Method: method, Path: pathPattern}}, reached: make(chan struct{}), release: make(chan struct{})}
	var once sync.Once
	s.mu.Lock()
	s.stalls = append(s.stalls, st)
	s.mu.Unlock()
	return st.reached, func() { once.Do(func() { close(st.release) }) }
}

// waitStalls holds the request while a stall that matches it is not
// released.
func (s *Server) waitStalls(method, apiPath string) {
	s.mu.Lock()
	var held []*stall
	for _, st := range s.stalls {
		if st.pattern.matches(method, apiPath) {
			held = append(held, st)
		}
	}
	s.mu.Unlock()
	for _, st := range held {
		st.reachedOnce.Do(func() { close(st.reached) })
		<-st.release
	}
}
