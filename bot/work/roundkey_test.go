package work

import "testing"

func TestRoundKey(t *testing.T) {
	for _, tc := range []struct {
		key    RoundKey
		text   string
		number int64
		ci     bool
	}{
		{NewRoundKey(RoundReview, 5), "review:5", 5, false},
		{NewRoundKey(RoundComment, 90), "comment:90", 90, false},
		{NewRoundKey(RoundRun, 7001), "run:7001", 7001, true},
		{NewRoundKey(RoundSuite, 3), "suite:3", 3, true},
		{RetryKey("a1b2-c3"), "retry:a1b2-c3", 0, false},
	} {
		if got := tc.key.String(); got != tc.text {
			t.Errorf("%+v.String() = %q, want %q", tc.key, got, tc.text)
		}
		back, err := ParseRoundKey(tc.text)
		if err != nil || back != tc.key {
			t.Errorf("ParseRoundKey(%q) = %+v, %v; want %+v", tc.text, back, err, tc.key)
		}
		if back.Number() != tc.number || back.CI() != tc.ci {
			t.Errorf("%q: Number %d, CI %v; want %d, %v", tc.text, back.Number(), back.CI(), tc.number, tc.ci)
		}
	}
}

func TestParseRoundKeyRefuses(t *testing.T) {
	for _, s := range []string{
		"", "review", "review:", "run:", "retry:", "review:0", "review:-5", "review:+5", "review:05",
		"review:5x", "comment:abc", "run:99999999999999999999", "pull:5", "Review:5", ":5",
	} {
		if k, err := ParseRoundKey(s); err == nil {
			t.Errorf("ParseRoundKey(%q) = %+v, want an error", s, k)
		}
	}
}
