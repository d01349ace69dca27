package programmer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Kinds of EndpointError, for errors.Is.
var (
	// ErrUnauthorized: the endpoint rejected the API key (HTTP 401 or 403).
	ErrUnauthorized = errors.New("API key rejected")
	// ErrModelNotFound: the endpoint does not serve the model (HTTP 404).
	ErrModelNotFound = errors.New("model not found")
	// ErrUnreachable: no HTTP response arrived, after all retries.
	ErrUnreachable = errors.New("model endpoint unreachable")
	// ErrUnavailable: the endpoint still answered 408, 429 or 5xx after all
	// retries.
	ErrUnavailable = errors.New("model endpoint unavailable")
)

// Fault is whose a failed call's error is, as every caller of the model
// client reads it: the loop, the function mode and the App's jobs ask
// Classify rather than match the kinds themselves.
type Fault int

const (
	// NotEndpoint is an error that is not the endpoint's: the task's, a
	// check made before sending, the caller's cancelled context, or an
	// HTTP error of no known kind.
	NotEndpoint Fault = iota
	// Down is an endpoint that could not be reached, or kept failing,
	// after the client's retries (ErrUnreachable, ErrUnavailable): it may
	// be back later, so a job may wait for it.
	Down
	// Refused is an endpoint that rejected the API key or does not serve
	// the model (ErrUnauthorized, ErrModelNotFound): the operator's to fix.
	Refused
)

// Classify says whose fault err is (see Fault).
func Classify(err error) Fault {
	switch {
	case errors.Is(err, ErrUnreachable), errors.Is(err, ErrUnavailable):
		return Down
	case errors.Is(err, ErrUnauthorized), errors.Is(err, ErrModelNotFound):
		return Refused
	}
	return NotEndpoint
}

// EndpointError is a failed call to the model endpoint. errors.Is matches
// its Kind; errors.As reaches the underlying error, e.g. *openai.APIError.
type EndpointError struct {
	Kind     error  // one of the Err* kinds above, or nil for other HTTP errors
	BaseURL  string // the endpoint called
	Model    string // the model asked for
	Status   int    // HTTP status; 0 when no response arrived
	Attempts int    // requests made, counting retries
	Err      error  // the underlying error
}

func (e *EndpointError) Error() string {
	switch e.Kind {
	case ErrUnauthorized:
		return fmt.Sprintf("model endpoint %s rejected the API key (HTTP %d): %s", e.BaseURL, e.Status, detail(e.Err))
	case ErrModelNotFound:
		return fmt.Sprintf("model %q not found at %s (HTTP %d; check the model name and base URL): %s",
			e.Model, e.BaseURL, e.Status, detail(e.Err))
	case ErrUnreachable:
		return fmt.Sprintf("model endpoint %s unreachable after %d attempt(s): %s", e.BaseURL, e.Attempts, detail(e.Err))
	case ErrUnavailable:
		return fmt.Sprintf("model endpoint %s still failing after %d attempt(s) (HTTP %d): %s",
			e.BaseURL, e.Attempts, e.Status, detail(e.Err))
	}
	return fmt.Sprintf("model endpoint %s (model %q): HTTP %d: %s", e.BaseURL, e.Model, e.Status, detail(e.Err))
}

// Unwrap returns the kind and the underlying error.
func (e *EndpointError) Unwrap() []error {
	if e.Kind == nil {
		return []error{e.Err}
	}
	return []error{e.Kind, e.Err}
}

// classify turns an error from go-openai into an EndpointError where the
// endpoint is at fault, and wraps it with context otherwise.
func (c *Client) classify(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	e := &EndpointError{BaseURL: c.cfg.BaseURL, Model: c.cfg.Model, Attempts: 1, Err: err}
	if apiErr, ok := errors.AsType[*openai.APIError](err); ok {
		e.Status = apiErr.HTTPStatusCode
		if apiErr.Code == "model_not_found" {
			e.Kind = ErrModelNotFound
		}
	}
	if reqErr, ok := errors.AsType[*openai.RequestError](err); ok {
		e.Status = reqErr.HTTPStatusCode
	}
	if e.Status == 0 {
		if _, ok := errors.AsType[*url.Error](err); !ok {
			// A check go-openai makes before sending, or an undecodable answer.
			return fmt.Errorf("%s at %s: %w", op, c.cfg.BaseURL, err)
		}
		// No response: the transport gave up, after retrying if it could.
		e.Kind = ErrUnreachable
		if transientErr(err) {
			e.Attempts = 1 + c.cfg.MaxRetries
		}
		return e
	}
	switch {
	case e.Kind != nil: // set from the error code
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		e.Kind = ErrUnauthorized
	case e.Status == http.StatusNotFound:
		e.Kind = ErrModelNotFound
	case retryableStatus(e.Status):
		e.Kind = ErrUnavailable
		e.Attempts = 1 + c.cfg.MaxRetries
	}
	return e
}

// maxDetail caps the server text quoted in an error message.
const maxDetail = 300

// detail is the server's own explanation in err, or err's text.
func detail(err error) string {
	s := ""
	if apiErr, ok := errors.AsType[*openai.APIError](err); ok {
		s = apiErr.Message
	} else if reqErr, ok := errors.AsType[*openai.RequestError](err); ok && len(reqErr.Body) > 0 {
		s = string(reqErr.Body)
	} else if urlErr, ok := errors.AsType[*url.Error](err); ok {
		s = urlErr.Err.Error()
	} else if err != nil {
		s = err.Error()
	}
	if len(s) > maxDetail {
		s = strings.ToValidUTF8(s[:maxDetail], "") + "..."
	}
	return s
}
