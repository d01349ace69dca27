package fakegithub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// reply is what a handler answers.
type reply struct {
	status int
	body   any    // a JSON value, or nil
	raw    []byte // a non-JSON body (its Content-Type goes in header)
	header http.Header
}

const docsURL = "https://docs.github.com/rest"

// errorReply is GitHub's usual error body.
func errorReply(status int, message string) reply {
	return reply{status: status, body: map[string]any{
		"message":           message,
		"documentation_url": docsURL,
		"status":            strconv.Itoa(status),
	}}
}

// validationFailed is GitHub's 422 with one entry in "errors".
func validationFailed(resource, field, code, message string) reply {
	e := map[string]any{"resource": resource, "code": code}
	if field != "" {
		e["field"] = field
	}
	if message != "" {
		e["message"] = message
	}
	return reply{status: http.StatusUnprocessableEntity, body: map[string]any{
		"message":           "Validation Failed",
		"errors":            []any{e},
		"documentation_url": docsURL,
		"status":            "422",
	}}
}

// wantsRaw reports whether the request asks for the raw media type, which
// blobs and file contents answer with the bytes themselves.
func wantsRaw(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "vnd.github.raw") || strings.Contains(accept, "vnd.github.v3.raw")
}

// rawReply answers bytes with the raw media type.
func rawReply(data []byte) reply {
	return reply{status: http.StatusOK, raw: append([]byte{}, data...), header: http.Header{"Content-Type": {"application/vnd.github.raw"}}}
}

// writeJSON writes a reply that needs no completion or validation.
func writeJSON(w http.ResponseWriter, rep reply) {
	data, _ := json.Marshal(rep.body) // replies are built from plain values
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(rep.status)
	_, _ = w.Write(data)
}

// respond completes rep with the fields the description requires, checks it
// when WithResponseValidation is on, and writes it.
func (s *Server) respond(w http.ResponseWriter, in *openapi3filter.RequestValidationInput, route *routers.Route, rep reply, apiPath, operation string) {
	h := w.Header()
	h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", "4999")
	h.Set("X-RateLimit-Used", "1")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	var data []byte
	switch {
	case rep.raw != nil:
		data = rep.raw
	case rep.body != nil:
		v, err := normalize(rep.body)
		if err != nil {
			rep = errorReply(http.StatusInternalServerError, err.Error())
			v = rep.body
		}
		v = completeResponse(route.Operation, rep.status, v)
		data, _ = json.Marshal(v) // normalized values always marshal
		h.Set("Content-Type", "application/json; charset=utf-8")
	}
	for k, vs := range rep.header {
		h[k] = vs
	}
	// Raw media types (application/vnd.github.raw) are described in prose
	// only, so there is no schema to check them against.
	if s.cfg.validateResponses && in != nil && rep.raw == nil {
		if err := validateResponse(in, rep.status, h, data); err != nil {
			s.report(Violation{Method: in.Request.Method, Path: apiPath, Operation: operation,
				Message: fmt.Sprintf("fake's own %d response does not match the description: %v", rep.status, err)})
		}
	}
	w.WriteHeader(rep.status)
	_, _ = w.Write(data)
}

// normalize turns a reply body into plain JSON values (maps, slices,
// json.Number), which completeResponse works on.
func normalize(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode response: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("decode response: %w", err)
	}
	return out, nil
}
