package programmer

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want Fault
	}{
		{"nil", nil, NotEndpoint},
		{"unreachable", &EndpointError{Kind: ErrUnreachable}, Down},
		{"unavailable, wrapped", fmt.Errorf("attempt 2: %w", &EndpointError{Kind: ErrUnavailable, Status: 503}), Down},
		{"key rejected", &EndpointError{Kind: ErrUnauthorized, Status: 401}, Refused},
		{"model not found", &EndpointError{Kind: ErrModelNotFound, Status: 404}, Refused},
		{"other HTTP error", &EndpointError{Status: 400, Err: errors.New("bad request")}, NotEndpoint},
		{"cancelled", fmt.Errorf("complete: %w", context.Canceled), NotEndpoint},
		{"the task's", errors.New("no code block in the answer"), NotEndpoint},
	} {
		if got := Classify(tc.err); got != tc.want {
			t.Errorf("%s: Classify = %d, want %d", tc.name, got, tc.want)
		}
	}
}
