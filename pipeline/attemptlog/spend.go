package attemptlog

import (
	"fmt"
	"strconv"
	"strings"
)

// Line is the spend in one sentence for people, e.g. "Spent: 1,200
// prompt and 300 completion tokens by the programmer, 400 and 100 by the
// test designer; cost $0.0042 (budget per job: 20,000 tokens, $0.50)."
// The log's Stopped says which budget stopped the job, if one did.
func (s *Spend) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Spent: %s prompt and %s completion tokens by the programmer, %s and %s by the test designer",
		Commas(s.Programmer.Prompt), Commas(s.Programmer.Completion), Commas(s.Designer.Prompt), Commas(s.Designer.Completion))
	if s.Priced {
		b.WriteString("; cost " + FormatCost(s.Cost))
	} else {
		b.WriteString("; cost unknown (no prices configured)")
	}
	var limits []string
	if s.MaxTokens > 0 {
		limits = append(limits, Commas(s.MaxTokens)+" tokens")
	}
	if s.MaxCost > 0 {
		limits = append(limits, FormatCost(s.MaxCost))
	}
	if len(limits) > 0 {
		b.WriteString(" (budget per job: " + strings.Join(limits, ", ") + ")")
	}
	return b.String() + "."
}

// Spent is the log's Spend, or, for a log without one (a job with no
// budget and no prices), the tokens its attempts and the test designer's
// tries record, unpriced.
func (l *Log) Spent() Spend {
	if l.Spend != nil {
		return *l.Spend
	}
	p, c := l.Tokens()
	dp, dc := l.DesignTokens()
	return Spend{Programmer: Usage{Prompt: p - dp, Completion: c - dc}, Designer: Usage{Prompt: dp, Completion: dc}}
}

// FormatCost writes an amount of US dollars for people: four decimals
// below a dollar, where token prices live, and cents above.
func FormatCost(usd float64) string {
	if usd < 1 {
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

// Commas writes n with thousands separators.
func Commas(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
