package repocontext

import (
	"strings"
	"testing"
)

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{strings.Repeat("x", 4000), 1000},
		{"héllo", 2}, // bytes, not runes
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestEstimateTokensSubadditive checks what the budget relies on: parts
// counted apart never undercount the whole.
func TestEstimateTokensSubadditive(t *testing.T) {
	parts := []string{"", "a", "ab", "abc", "abcd", "abcde", "## Files\n"}
	for _, a := range parts {
		for _, b := range parts {
			if EstimateTokens(a+b) > EstimateTokens(a)+EstimateTokens(b) {
				t.Errorf("EstimateTokens(%q+%q) exceeds the sum of the parts", a, b)
			}
		}
	}
}
