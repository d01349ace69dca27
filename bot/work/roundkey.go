package work

import (
	"fmt"
	"strconv"
	"strings"
)

// RoundKind says what a round on Capsule's pull request answers.
type RoundKind string

// The kinds of round key.
const (
	// RoundReview answers a review, named by its id.
	RoundReview RoundKind = "review"
	// RoundComment answers a `/capsule` comment, named by its id.
	RoundComment RoundKind = "comment"
	// RoundRun answers a failed workflow run, named by its id.
	RoundRun RoundKind = "run"
	// RoundSuite answers a failed check suite, named by its id.
	RoundSuite RoundKind = "suite"
	// RoundRetry is a retry of the issue made on its pull request's
	// branch (which holds rounds or others' commits), named by the
	// retry's delivery.
	RoundRetry RoundKind = "retry"
)

// RoundKey names what a round answers, unique within its pull request.
// Its String, "<kind>:<id>", is what Request.Round, the store, the
// commits' Capsule-Round trailer and the round markers hold; the webhook
// makes it and the job reads it back with ParseRoundKey.
type RoundKey struct {
	Kind RoundKind
	// ID is a positive decimal id, or for RoundRetry the delivery's.
	ID string
}

// NewRoundKey is the key of the review, comment, workflow run or check
// suite kind id.
func NewRoundKey(kind RoundKind, id int64) RoundKey {
	return RoundKey{Kind: kind, ID: strconv.FormatInt(id, 10)}
}

// RetryKey is the key of the retry that delivery asks for.
func RetryKey(delivery string) RoundKey { return RoundKey{Kind: RoundRetry, ID: delivery} }

// String is the key as stored: "<kind>:<id>".
func (k RoundKey) String() string { return string(k.Kind) + ":" + k.ID }

// Number is the key's id as a number; 0 for a retry's.
func (k RoundKey) Number() int64 {
	n, _ := strconv.ParseInt(k.ID, 10, 64)
	return n
}

// CI reports whether the key is failing checks': a workflow run's or a
// check suite's.
func (k RoundKey) CI() bool { return k.Kind == RoundRun || k.Kind == RoundSuite }

// ParseRoundKey reads a key written by String: a known kind, and a
// positive decimal id (any non-empty one for a retry).
func ParseRoundKey(s string) (RoundKey, error) {
	kind, id, _ := strings.Cut(s, ":")
	k := RoundKey{Kind: RoundKind(kind), ID: id}
	switch k.Kind {
	case RoundRetry:
		if id != "" {
			return k, nil
		}
	case RoundReview, RoundComment, RoundRun, RoundSuite:
		if n, err := strconv.ParseInt(id, 10, 64); err == nil && n > 0 && strconv.FormatInt(n, 10) == id {
			return k, nil
		}
	}
	return RoundKey{}, fmt.Errorf("%q is not a round key", s)
}
