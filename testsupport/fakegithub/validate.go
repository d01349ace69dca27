package fakegithub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// invalidRequest is a request the description rejects, with the answer
// GitHub would give.
type invalidRequest struct {
	message string
	reply   reply
}

// validationOptions are the openapi3filter options for every check. The fake
// authenticates requests itself, so the description's security schemes (it
// declares none today) always pass; defaults are not written into bodies, so
// handlers see what the client sent.
func validationOptions() *openapi3filter.Options {
	o := &openapi3filter.Options{
		AuthenticationFunc:  func(context.Context, *openapi3filter.AuthenticationInput) error { return nil },
		SkipSettingDefaults: true,
		MultiError:          true,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{
			openapi3.EnableFormatValidation(),
		},
	}
	o.WithCustomSchemaErrorFunc(schemaErrorMessage)
	return o
}

// schemaErrorMessage keeps schema errors to one line: where and why, without
// kin-openapi's dump of the whole schema.
func schemaErrorMessage(err *openapi3.SchemaError) string {
	where := "/" + strings.Join(err.JSONPointer(), "/")
	if err.Origin != nil {
		return fmt.Sprintf("at %s: %v", where, err.Origin)
	}
	reason := err.Reason
	if reason == "" {
		reason = fmt.Sprintf("doesn't match schema %q", err.SchemaField)
	}
	return fmt.Sprintf("at %s: %s", where, reason)
}

// validateRequest checks r (whose body was read into body) against route.
// It returns the validation input, reused to check the response, and the
// rejection when the request is invalid.
func validateRequest(r *http.Request, route *routers.Route, params map[string]string, body []byte) (*openapi3filter.RequestValidationInput, *invalidRequest) {
	req := r.Clone(r.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	in := &openapi3filter.RequestValidationInput{
		Request:     req,
		PathParams:  params,
		QueryParams: r.URL.Query(),
		Route:       route,
		Options:     validationOptions(),
	}
	err := openapi3filter.ValidateRequest(r.Context(), in)
	if err == nil {
		return in, nil
	}
	return in, &invalidRequest{message: err.Error(), reply: rejection(err)}
}

// rejection is GitHub's answer to an invalid request: 404 for a malformed
// path parameter (GitHub routes on them), 400 for a body that is not JSON,
// 422 for anything else.
func rejection(err error) reply {
	var errs []error
	var me openapi3.MultiError
	if errors.As(err, &me) {
		errs = me
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var re *openapi3filter.RequestError
		if !errors.As(e, &re) {
			continue
		}
		if re.Parameter != nil && re.Parameter.In == openapi3.ParameterInPath {
			return errorReply(http.StatusNotFound, "Not Found")
		}
		if re.RequestBody != nil && re.Reason == "failed to decode request body" {
			return errorReply(http.StatusBadRequest, "Problems parsing JSON")
		}
	}
	return errorReply(http.StatusUnprocessableEntity, "Invalid request.\n\n"+err.Error())
}

// validateResponse checks one of the fake's responses against the
// description.
func validateResponse(in *openapi3filter.RequestValidationInput, status int, header http.Header, body []byte) error {
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                validationOptions(),
	})
}
