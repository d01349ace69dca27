package agent

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

// frame builds a frame by hand: a length (which may lie) and a body.
func frame(n uint32, body string) []byte {
	b := binary.BigEndian.AppendUint32(nil, n)
	return append(b, body...)
}

func TestReadFrame(t *testing.T) {
	var good bytes.Buffer
	if err := WriteFrame(&good, Response{ExitCode: 3, Stdout: []byte("hi")}, 1<<10); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		in    []byte
		limit int64
		want  error // nil, io.EOF or ErrFrame
	}{
		{"well formed", good.Bytes(), 1 << 10, nil},
		{"clean end", nil, 1 << 10, io.EOF},
		{"over the limit", good.Bytes(), int64(good.Len() - 5), ErrFrame},
		{"header of a 1.5 GB line without a frame", []byte(strings.Repeat("x", 64)), 1 << 20, ErrFrame},
		{"cut header", []byte{0, 0}, 1 << 10, ErrFrame},
		{"cut body", frame(10, `{"exit`), 1 << 10, ErrFrame},
		{"not JSON", frame(5, "hello"), 1 << 10, ErrFrame},
		{"a JSON string", frame(4, `"ok"`), 1 << 10, ErrFrame},
		{"unknown field", frame(20, `{"exit_code":0,"x":1}`), 1 << 10, ErrFrame},
		{"data after the object", frame(17, `{"exit_code":0}{}`), 1 << 10, ErrFrame},
		{"empty", frame(0, ""), 1 << 10, ErrFrame},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp Response
			err := ReadFrame(bytes.NewReader(tt.in), tt.limit, &resp)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("ReadFrame = %v, want %v", err, tt.want)
			}
			if tt.want == nil && (resp.ExitCode != 3 || string(resp.Stdout) != "hi") {
				t.Errorf("decoded %+v", resp)
			}
		})
	}
}

func TestCheckAnswer(t *testing.T) {
	req := Request{OutputLimit: 10}
	tests := []struct {
		name string
		req  Request
		resp Response
		ok   bool
	}{
		{"plain", req, Response{ExitCode: 1, Stdout: []byte("x"), StdoutBytes: 1}, true},
		{"capped output", req, Response{Stdout: make([]byte, 60), StdoutBytes: 1 << 30}, true},
		{"greeting", req, Response{Ready: true, Protocol: ProtocolVersion}, false},
		{"too much output", req, Response{Stderr: make([]byte, 200), StderrBytes: 200}, false},
		{"more kept than written", req, Response{Stdout: make([]byte, 70), StdoutBytes: 1}, false},
		{"workspace not asked for", req, Response{Workspace: []byte("tar")}, false},
		{"workspace over its limit", Request{Collect: true, CollectLimit: 2}, Response{Workspace: []byte("tar")}, false},
		{"workspace", Request{Collect: true, CollectLimit: 3}, Response{Workspace: []byte("tar")}, true},
		{"report not asked for", req, Response{Report: []byte("{}"), ReportBytes: 2}, false},
		{"report longer than its file", Request{Report: true}, Response{Report: []byte("{}"), ReportBytes: 1}, false},
		{"report over its limit", Request{Report: true}, Response{Report: make([]byte, MaxReport+1), ReportBytes: MaxReport + 1}, false},
		{"report", Request{Report: true}, Response{Report: []byte("{}"), ReportBytes: 1 << 40}, true},
	}
	for _, tt := range tests {
		err := CheckAnswer(tt.req, tt.resp)
		if (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrFrame) {
			t.Errorf("%s: CheckAnswer = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

func TestResponseLimitCoversTheLargestAnswer(t *testing.T) {
	const limit = 1 << 10
	out := NewHeadTail(limit)
	out.Write(bytes.Repeat([]byte{0xff}, 1<<20))
	archive := bytes.Repeat([]byte{0xff}, 5000)
	resp := Response{
		ExitCode: 137, Stdout: out.Bytes(), Stderr: out.Bytes(), StdoutBytes: out.Total(), StderrBytes: out.Total(),
		TimedOut: true, OOMKilled: true, PidsLimited: true, DiskFull: true, FilesFull: true,
		Workspace: archive, Error: strings.Repeat("e", 4096),
		Report: bytes.Repeat([]byte{0xff}, MaxReport), ReportBytes: 1 << 40,
	}
	req := Request{OutputLimit: limit, Collect: true, CollectLimit: int64(len(archive)), Report: true}
	if err := CheckAnswer(req, resp); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteFrame(&buf, resp, ResponseLimit(req)); err != nil {
		t.Fatalf("the largest answer does not fit its limit: %v", err)
	}
	var back Response
	if err := ReadFrame(&buf, ResponseLimit(req), &back); err != nil {
		t.Fatalf("the largest answer does not fit its limit: %v", err)
	}
}

func TestWriteFrameRefusesWhatTheReaderWould(t *testing.T) {
	var buf bytes.Buffer
	err := WriteFrame(&buf, Response{Stdout: make([]byte, 100)}, 50)
	if !errors.Is(err, ErrFrame) || buf.Len() != 0 {
		t.Errorf("WriteFrame over the limit = %v, wrote %d bytes", err, buf.Len())
	}
}
