package repocontext

// EstimateTokens estimates the tokens of s as its length in bytes divided
// by four, rounded up: cheap, deterministic, and close to what code and
// English prose take in common tokenizers. The estimate of a concatenation
// is never more than the sum of the estimates of its parts.
func EstimateTokens(s string) int {
	return (len(s) + 3) / 4
}
