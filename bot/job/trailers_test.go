package job

import "testing"

func TestTrailers(t *testing.T) {
	msg := withTrailers("Fix #12: add\n\nMade by Capsule.\n", 12, "review:7")
	if want := "Fix #12: add\n\nMade by Capsule.\n\nCapsule-Issue: 12\nCapsule-Round: review:7\n"; msg != want {
		t.Errorf("withTrailers = %q, want %q", msg, want)
	}
	for _, tc := range []struct {
		message, key, want string
	}{
		{msg, TrailerIssue, "12"},
		{msg, TrailerRound, "review:7"},
		{withTrailers("Fix #3", 3, ""), TrailerRound, ""},
		{"Fix\r\n\r\ncapsule-issue: 4\r\n", TrailerIssue, "4"},
		{"A human's commit\n\nCapsule-Issue: 12 is what I fixed\n\nSigned-off-by: Bob", TrailerIssue, ""},
		{"Capsule-Issue: 5", TrailerIssue, "5"},
		{"", TrailerIssue, ""},
		{withTrailers("x", 1, "a\n\nCapsule-Round: b"), TrailerRound, "a Capsule-Round: b"},
	} {
		if got := trailer(tc.message, tc.key); got != tc.want {
			t.Errorf("trailer(%q, %s) = %q, want %q", tc.message, tc.key, got, tc.want)
		}
	}
}
