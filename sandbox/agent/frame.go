package agent

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// ErrFrame marks a frame that is not well formed: too large, cut short,
// not a single JSON document of the expected shape. A reader that meets
// one must stop reading the stream, since it cannot know where the next
// frame starts.
var ErrFrame = errors.New("bad frame")

// frameHeader is the size of the length that precedes each frame.
const frameHeader = 4

// MaxRequest bounds a request frame: the files laid over the workspace
// must fit the workspace's quota anyway.
const MaxRequest = 1 << 30

// MaxGreeting bounds the agent's first frame.
const MaxGreeting = 4 << 10

// maxMarker bounds the line HeadTail puts where it dropped output.
const maxMarker = 64

// responseSlack covers a response's fields other than its byte fields.
const responseSlack = 64 << 10

// ResponseLimit is the largest response frame an agent may send for req:
// the output it keeps of each stream, the workspace archive it collects
// and the test report it asks for. Byte fields travel in base64.
func ResponseLimit(req Request) int64 {
	b64 := func(n int64) int64 { return (n + 2) / 3 * 4 }
	limit := 2*b64(int64(req.OutputLimit)+maxMarker) + b64(req.CollectLimit) + responseSlack
	if req.Report {
		limit += b64(MaxReport)
	}
	if len(req.ReportFiles) > 0 {
		limit += b64(reportArchiveLimit)
	}
	return limit
}

// CheckAnswer reports whether resp can be the agent's answer to req: no
// greeting, output within the request's limit, a workspace archive and a
// test report only when asked for and within their limits.
func CheckAnswer(req Request, resp Response) error {
	maxOut := max(req.OutputLimit, 0) + maxMarker
	switch {
	case resp.Ready || resp.Protocol != 0:
		return fmt.Errorf("%w: a greeting in place of an answer", ErrFrame)
	case len(resp.Stdout) > maxOut || len(resp.Stderr) > maxOut:
		return fmt.Errorf("%w: more output than the limit of %d bytes", ErrFrame, req.OutputLimit)
	case int64(len(resp.Stdout)) > resp.StdoutBytes+maxMarker || int64(len(resp.Stderr)) > resp.StderrBytes+maxMarker:
		return fmt.Errorf("%w: more output kept than written", ErrFrame)
	case !req.Collect && len(resp.Workspace) > 0, int64(len(resp.Workspace)) > req.CollectLimit:
		return fmt.Errorf("%w: a workspace archive that was not asked for or is too large", ErrFrame)
	case !req.Report && len(resp.Report) > 0, len(resp.Report) > MaxReport, int64(len(resp.Report)) > max(resp.ReportBytes, 0):
		return fmt.Errorf("%w: a test report that was not asked for, is too large or is longer than its file", ErrFrame)
	case len(req.ReportFiles) == 0 && len(resp.ReportFiles) > 0, len(resp.ReportFiles) > reportArchiveLimit:
		return fmt.Errorf("%w: report files that were not asked for or are too large", ErrFrame)
	}
	return nil
}

// WriteFrame writes v as one frame: its JSON encoding, preceded by the
// encoding's length as a 4-byte big-endian number. It writes nothing and
// returns an error wrapping ErrFrame when the encoding is longer than
// limit, the reader's bound.
func WriteFrame(w io.Writer, v any, limit int64) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if int64(len(body)) > min(limit, math.MaxUint32) {
		return fmt.Errorf("%w: %d bytes, more than the %d allowed", ErrFrame, len(body), limit)
	}
	buf := make([]byte, frameHeader, frameHeader+len(body))
	binary.BigEndian.PutUint32(buf, uint32(len(body)))
	_, err = w.Write(append(buf, body...))
	return err
}

// ReadFrame reads one frame of at most limit bytes from r into v. It reads
// no more than the frame's header when the frame is too large, and refuses
// frames that are cut short, hold anything but one JSON object, or name
// fields v does not have; each such error wraps ErrFrame. A stream that
// ends cleanly before a frame starts gives io.EOF.
func ReadFrame(r io.Reader, limit int64, v any) error {
	var hdr [frameHeader]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		return fmt.Errorf("%w: header: %w", ErrFrame, err)
	}
	n := int64(binary.BigEndian.Uint32(hdr[:]))
	if n > limit {
		return fmt.Errorf("%w: %d bytes, more than the %d allowed", ErrFrame, n, limit)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return fmt.Errorf("%w: body of %d bytes: %w", ErrFrame, n, err)
	}
	if len(body) == 0 || body[0] != '{' {
		return fmt.Errorf("%w: not a JSON object", ErrFrame)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", ErrFrame, err)
	}
	if dec.InputOffset() != int64(len(body)) {
		return fmt.Errorf("%w: data after the JSON object", ErrFrame)
	}
	return nil
}
