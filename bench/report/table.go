package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// WriteTable writes s as a plain-text table: the totals, then one row per
// attempt index.
func WriteTable(w io.Writer, s Summary) error {
	var b strings.Builder
	for _, kv := range [][2]string{
		{"dataset", s.Dataset},
		{"model", s.Model},
		{"problems", fmt.Sprint(s.Total)},
		{"passed", fmt.Sprintf("%d (%s)", s.Passed, percent(s.PassRate))},
		{"debug tests passed", fmt.Sprint(s.DebugPassed)},
		{"run errors", fmt.Sprint(s.Errors)},
		{"model calls", fmt.Sprintf("%.2f per problem", s.APICallsMean)},
		{"tokens", fmt.Sprintf("%d prompt, %d completion", s.PromptTokens, s.CompletionTokens)},
		{"cost", cost(s.CostUSD)},
		{"wall time", time.Duration(s.WallSeconds * float64(time.Second)).Round(time.Second).String()},
	} {
		if kv[1] == "" {
			continue
		}
		fmt.Fprintf(&b, "%-20s%s\n", kv[0], kv[1])
	}

	writeEnvironment(&b, s)

	rows := [][]string{{"attempt", "solved", "relative success", "unsolved before", "normalized influence"}}
	for k, solved := range s.AttemptHistogram {
		rows = append(rows, []string{attemptName(k), fmt.Sprint(solved), percent(at(s.RelativeSuccessRatio, k)),
			fmt.Sprint(at(s.UnsolvedBefore, k)), percent(at(s.NormalizedInfluence, k))})
	}
	if s.UnknownAttempt > 0 {
		rows = append(rows, []string{"unknown", fmt.Sprint(s.UnknownAttempt)})
	}
	rows = append(rows, []string{"total", fmt.Sprint(s.Passed)})
	b.WriteString("\n")
	b.WriteString(columns(rows))

	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// writeEnvironment lists the problems the sandbox could not run, grouped
// by the kind of reason (the text before its colon), most frequent first.
func writeEnvironment(b *strings.Builder, s Summary) {
	if len(s.Environment) == 0 {
		return
	}
	fmt.Fprintf(b, "%-20s%d of %d (%s), counted as unsolved: their reference solution fails in the sandbox\n",
		"environment", len(s.Environment), s.Total, percent(ratio(len(s.Environment), s.Total)))
	byKind := map[string][]string{}
	var kinds []string
	for _, f := range s.Environment {
		kind, _, _ := strings.Cut(f.Reason, ":")
		if byKind[kind] == nil {
			kinds = append(kinds, kind)
		}
		byKind[kind] = append(byKind[kind], f.TaskID)
	}
	slices.SortStableFunc(kinds, func(x, y string) int { return len(byKind[y]) - len(byKind[x]) })
	for _, kind := range kinds {
		fmt.Fprintf(b, "%-20s%s (%d): %s\n", "", kind, len(byKind[kind]), strings.Join(byKind[kind], ", "))
	}
}

// attemptName labels attempt index k: 0 is the first generation, k > 0 the
// k-th fix.
func attemptName(k int) string {
	if k == 0 {
		return "0 (generation)"
	}
	return fmt.Sprintf("%d (fix %d)", k, k)
}

func percent(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }

// columns lays rows out in columns two spaces apart: the first column
// left-aligned, the others right-aligned.
func columns(rows [][]string) string {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len(cell))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		var line strings.Builder
		for i, cell := range row {
			if i == 0 {
				fmt.Fprintf(&line, "%-*s", widths[i], cell)
			} else {
				fmt.Fprintf(&line, "  %*s", widths[i], cell)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteString("\n")
	}
	return b.String()
}

// at returns s[i], or the zero value when i is out of range.
func at[T any](s []T, i int) T {
	var zero T
	if i < 0 || i >= len(s) {
		return zero
	}
	return s[i]
}

// cost writes the run's cost, or "" when it is unknown.
func cost(usd *float64) string {
	if usd == nil {
		return ""
	}
	return attemptlog.FormatCost(*usd)
}
