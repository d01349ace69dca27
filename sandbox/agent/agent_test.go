//go:build linux

package agent

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestStartUser(t *testing.T) {
	tests := []struct {
		name     string
		pid      int
		euid     int
		args     []string
		uid, gid int
		err      string
	}{
		{"the sandbox user by default", 1, 0, []string{"capsule", "agent"}, 10001, 10001, ""},
		{"the user asked for", 1, 0, []string{"capsule", "agent", "5:7"}, 5, 7, ""},
		{"root when asked for", 1, 0, []string{"capsule", "agent", "0:0"}, 0, 0, ""},
		{"not process 1", 2, 0, []string{"capsule", "agent"}, 0, 0, "process 1"},
		{"not root", 1, 10001, []string{"capsule", "agent"}, 0, 0, "root"},
		{"not root, asking for root", 1, 10001, []string{"capsule", "agent", "0:0"}, 0, 0, "root"},
		{"a bad user", 1, 0, []string{"capsule", "agent", "nobody"}, 0, 0, "bad user"},
		{"a negative user", 1, 0, []string{"capsule", "agent", "-1:-1"}, 0, 0, "bad user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uid, gid, err := startUser(tt.pid, tt.euid, tt.args)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("startUser = %v, want error %q", err, tt.err)
			}
			if uid != tt.uid || gid != tt.gid {
				t.Errorf("startUser = %d:%d, want %d:%d", uid, gid, tt.uid, tt.gid)
			}
		})
	}
}

// frames is a stream of request frames, written as the host would.
func frames(t *testing.T, reqs ...any) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, r := range reqs {
		if err := WriteFrame(&buf, r, MaxRequest); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// readResponses reads the agent's frames: the greeting, then the answers.
func readResponses(t *testing.T, out []byte) []Response {
	t.Helper()
	var resps []Response
	r := bytes.NewReader(out)
	for {
		var resp Response
		limit := int64(MaxGreeting)
		if len(resps) > 0 {
			limit = ResponseLimit(Request{})
		}
		err := ReadFrame(r, limit, &resp)
		if errors.Is(err, io.EOF) {
			return resps
		}
		if err != nil {
			t.Fatalf("the agent wrote a bad frame: %v", err)
		}
		resps = append(resps, resp)
	}
}

func TestServe(t *testing.T) {
	echo := func(req Request) Response {
		return Response{ExitCode: len(req.Argv), Stdout: []byte(strings.Join(req.Argv, " ")), StdoutBytes: 5}
	}
	tests := []struct {
		name    string
		in      []byte
		handle  func(Request) Response
		handled int    // requests handed to handle
		answers []int  // exit codes of the answers after the greeting
		err     string // "" for a clean end
		frame   bool   // the error wraps ErrFrame
	}{
		{name: "no request", in: nil, handle: echo},
		{name: "two requests", in: frames(t, Request{Argv: []string{"a"}}, Request{Argv: []string{"a", "b"}}), handle: echo, handled: 2, answers: []int{1, 2}},
		{name: "an oversize frame", in: frame(MaxRequest+1, "{}"), handle: echo, err: "read request", frame: true},
		{name: "the largest header", in: frame(1<<32-1, "{"), handle: echo, err: "read request", frame: true},
		{name: "a cut header", in: []byte{0, 0, 1}, handle: echo, err: "read request", frame: true},
		{name: "a cut body", in: frame(100, `{"argv":["a"]}`), handle: echo, err: "read request", frame: true},
		{name: "bad JSON", in: frame(9, `{"argv":[`), handle: echo, err: "read request", frame: true},
		{name: "not an object", in: frame(5, `["a"]`), handle: echo, err: "read request", frame: true},
		{name: "an unknown op", in: frame(13, `{"op":"kill"}`), handle: echo, err: "read request", frame: true},
		{name: "a field of the wrong type", in: frame(12, `{"argv":"a"}`), handle: echo, err: "read request", frame: true},
		{name: "two objects in a frame", in: frame(4, `{}{}`), handle: echo, err: "read request", frame: true},
		{
			name: "a bad frame after a good one", in: append(frames(t, Request{Argv: []string{"a"}}), frame(3, "{{{")...),
			handle: echo, handled: 1, answers: []int{1}, err: "read request", frame: true,
		},
		{
			name: "an answer over the request's limit", in: frames(t, Request{OutputLimit: 10}),
			handle: func(Request) Response {
				return Response{Stdout: bytes.Repeat([]byte("x"), responseSlack+1000), StdoutBytes: 1 << 20}
			},
			handled: 1, answers: []int{126},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handled := 0
			var out bytes.Buffer
			err := serve(bytes.NewReader(tt.in), &out, func(req Request) Response {
				handled++
				return tt.handle(req)
			})
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("serve = %v, want error %q", err, tt.err)
			}
			if errors.Is(err, ErrFrame) != tt.frame {
				t.Errorf("serve = %v, want ErrFrame %v", err, tt.frame)
			}
			if handled != tt.handled {
				t.Errorf("handled %d requests, want %d", handled, tt.handled)
			}
			resps := readResponses(t, out.Bytes())
			if len(resps) == 0 || !resps[0].Ready || resps[0].Protocol != ProtocolVersion {
				t.Fatalf("no greeting of protocol %d first: %+v", ProtocolVersion, resps)
			}
			var codes []int
			for _, r := range resps[1:] {
				codes = append(codes, r.ExitCode)
				if r.Ready || r.Protocol != 0 {
					t.Errorf("an answer that greets: %+v", r)
				}
			}
			if !slices.Equal(codes, tt.answers) {
				t.Errorf("answers %v, want %v", codes, tt.answers)
			}
			if len(tt.answers) == 1 && tt.answers[0] == 126 && !strings.Contains(resps[1].Error, "bad frame") {
				t.Errorf("error %q, want the frame's", resps[1].Error)
			}
		})
	}
}

// failingWriter fails every write after the first n.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("host gone")
	}
	w.n--
	return len(p), nil
}

func TestServeWriteFailures(t *testing.T) {
	tests := []struct {
		name   string
		writes int
		err    string
	}{
		{"greeting", 0, "greet host"},
		{"answer", 1, "write response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := serve(bytes.NewReader(frames(t, Request{})), &failingWriter{n: tt.writes}, func(Request) Response { return Response{} })
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("serve = %v, want %q", err, tt.err)
			}
		})
	}
}
