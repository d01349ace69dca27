package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/capsulehq/capsule/pipeline/attemptlog"
)

// bigLog has n attempts, each with output and patch of about the given
// sizes in runes of filler; the last passes when solved.
func bigLog(n, output, patch int, filler string, solved bool) *attemptlog.Log {
	l := &attemptlog.Log{
		TaskID: "issue-12", Model: "m", AttemptIndex: -1, TestCommand: "make test",
		Stopped: fmt.Sprintf("No attempt passed within %d fix attempts.", n-1),
	}
	line := strings.Repeat(filler, 79) + "\n"
	text := func(runes int, head string) string {
		s := head + strings.Repeat(line, runes/80+1)
		return string([]rune(s)[:runes])
	}
	for i := range n {
		a := attemptlog.Attempt{
			Index: i, Mode: attemptlog.Fix,
			Changes:  []attemptlog.Change{{Path: "a.py", Status: "modified", Added: patch / 80, Removed: 1}},
			Run:      &attemptlog.Run{Command: []string{"sh", "-c", "make test"}, Image: "img", ExitCode: 1, Reason: "exit status 1"},
			Feedback: fmt.Sprintf("attempt %d: %s", i, strings.Repeat(filler, 200)), FeedbackKind: "assertion",
			PromptTokens: 1000, CompletionTokens: 100,
		}
		if i == 0 {
			a.Mode = attemptlog.Generate
		}
		if output > 0 {
			a.Run.Output = text(output, fmt.Sprintf("output of attempt %d\n", i))
		}
		if patch > 0 {
			a.Patch = text(patch, "+++ b/a.py\n")
		}
		l.Attempts = append(l.Attempts, a)
	}
	if solved && n > 0 {
		last := &l.Attempts[n-1]
		last.Run.Passed, last.Run.ExitCode, last.Run.Reason, last.Feedback, last.FeedbackKind = true, 0, "", "", ""
		l.Solved, l.AttemptIndex, l.Stopped = true, n-1, ""
	}
	return l
}

func hugeLog(n, output, patch int, solved bool) *attemptlog.Log {
	return bigLog(n, output, patch, "x", solved)
}

func TestPullRequestTrimming(t *testing.T) {
	cases := []struct {
		name string
		log  func(solved bool) *attemptlog.Log
	}{
		{"small", func(s bool) *attemptlog.Log { return bigLog(2, 300, 300, "x", s) }},
		{"outputs", func(s bool) *attemptlog.Log { return bigLog(6, 30000, 0, "x", s) }},
		{"patches", func(s bool) *attemptlog.Log { return bigLog(6, 500, 40000, "x", s) }},
		{"table", func(s bool) *attemptlog.Log { return bigLog(200, 200, 200, "x", s) }},
		{"huge table", func(s bool) *attemptlog.Log { return bigLog(1200, 0, 0, "x", s) }},
		{"é", func(s bool) *attemptlog.Log { return bigLog(6, 30000, 20000, "é", s) }},
		{"emoji", func(s bool) *attemptlog.Log { return bigLog(6, 30000, 20000, "😀", s) }},
		{"mixed", func(s bool) *attemptlog.Log { return bigLog(8, 9001, 7001, "a€😀", s) }},
	}
	for _, c := range cases {
		for _, limit := range []int{MaxBody, 5000} {
			for _, solved := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%d/solved=%v", c.name, limit, solved), func(t *testing.T) {
					log := c.log(solved)
					_, full := PullRequest(issue, log, "1.0", 1<<30)
					_, body := PullRequest(issue, log, "1.0", limit)
					checkBody(t, log, body, limit)
					trimmed := utf8.RuneCountInString(full) > limit
					if hasNote(body) != trimmed {
						t.Errorf("note present: %v; something trimmed: %v", hasNote(body), trimmed)
					}
					if !trimmed && body != full {
						t.Errorf("a body that fits was changed")
					}
					if trimmed {
						checkNewestLast(t, log, body)
					}
				})
			}
		}
	}
}

// TestTrimmingOrder sweeps limits and checks at each that older attempts
// lose at least as much as newer ones.
func TestTrimmingOrder(t *testing.T) {
	for _, log := range []*attemptlog.Log{bigLog(6, 30000, 3000, "x", false), bigLog(30, 3000, 2000, "é", true)} {
		_, full := PullRequest(issue, log, "1.0", 1<<30)
		n := utf8.RuneCountInString(full)
		for limit := 2000; limit < n+1000; limit += n / 40 {
			_, body := PullRequest(issue, log, "1.0", limit)
			checkBody(t, log, body, limit)
			checkNewestLast(t, log, body)
		}
	}
}

func TestTrimmingSpecifics(t *testing.T) {
	log := bigLog(6, 30000, 0, "x", false)
	_, body := PullRequest(issue, log, "1.0", 5000)
	if !strings.Contains(body, "<summary>Attempt 5 (fix)") {
		t.Errorf("the newest attempt lost its details:\n%s", body)
	}
	if strings.Contains(body, "<summary>Attempt 0 (generate)") {
		t.Errorf("the oldest attempt kept its details:\n%s", body)
	}
	if !strings.Contains(body, "trimmed to fit the 5,000-character limit; the full log is in the job's artifact or log.") {
		t.Errorf("no note:\n%s", body)
	}
	_, body = PullRequest(issue, bigLog(6, 30000, 40000, "x", false), "1.0", 0)
	if !strings.Contains(body, "trimmed to fit GitHub's 65,536-character limit") {
		t.Errorf("no note naming GitHub's limit")
	}
	if !strings.Contains(body, "Output of attempts 0–4") {
		t.Errorf("the note does not name the attempts whose output it left out:\n%s", noteOf(body))
	}
}

// TestTinyLimit checks that the limit holds when even the summary does not
// fit, by cutting the body.
func TestTinyLimit(t *testing.T) {
	for _, limit := range []int{1, 100, 400, 800} {
		_, body := PullRequest(issue, bigLog(3, 100, 100, "é", false), "1.0", limit)
		if n := utf8.RuneCountInString(body); n > limit || !utf8.ValidString(body) {
			t.Errorf("limit %d: %d runes, valid UTF-8 %v", limit, n, utf8.ValidString(body))
		}
	}
}

func TestInvalidUTF8(t *testing.T) {
	log := bigLog(2, 100, 0, "x", false)
	log.Attempts[1].Run.Output = "bad \xff\xfe bytes " + strings.Repeat("é", 5000)
	_, body := PullRequest(issue, log, "", 0)
	if !utf8.ValidString(body) {
		t.Error("body is not valid UTF-8")
	}
}

func checkBody(t *testing.T, log *attemptlog.Log, body string, limit int) {
	t.Helper()
	if n := utf8.RuneCountInString(body); n > limit {
		t.Errorf("body of %d characters over the limit of %d", n, limit)
	}
	if !utf8.ValidString(body) {
		t.Errorf("body is not valid UTF-8")
	}
	closes := fmt.Sprintf("Closes #%d", issue.Number)
	if strings.Contains(body, closes) != log.Solved {
		t.Errorf("%q in body: %v; solved: %v", closes, strings.Contains(body, closes), log.Solved)
	}
	if !log.Solved && (strings.Contains(body, "The tests pass") || !strings.Contains(body, "The tests do not pass.")) {
		t.Errorf("a failing body does not say so")
	}
	checkMarkdown(t, body)
}

func hasNote(body string) bool {
	return strings.Contains(body, "to fit GitHub's") || strings.Contains(body, "-character limit;")
}

func noteOf(body string) string {
	if i := strings.Index(body, "> [!NOTE]\n"); i >= 0 {
		rest := body[i:]
		return rest[:strings.Index(rest, "\n\n")]
	}
	return ""
}

// levels says how much of each attempt the body left out: 0 nothing
// (beyond a shortened output), 1 the output, 2 the code, 3 the feedback,
// 4 the details, 5 the table row.
func levels(log *attemptlog.Log, body string) []int {
	rows := map[string]bool{}
	_, logPart, _ := strings.Cut(body, "### Attempt log")
	for _, m := range rowRE.FindAllStringSubmatch(logPart, -1) {
		rows[m[1]] = true
	}
	blocks := map[string]string{}
	for _, part := range strings.Split(body, "<details><summary>Attempt ")[1:] {
		index, _, _ := strings.Cut(part, " ")
		block, _, _ := strings.Cut(part, "</details>")
		blocks[index] = block
	}
	out := make([]int, len(log.Attempts))
	for i, a := range log.Attempts {
		index := fmt.Sprint(a.Index)
		block, ok := blocks[index]
		switch {
		case !rows[index]:
			out[i] = 5
		case !ok:
			out[i] = 4
		case strings.Contains(block, "Feedback to the model left out"):
			out[i] = 3
		case strings.Contains(block, "Patch left out"):
			out[i] = 2
		case strings.Contains(block, "Test output left out"):
			out[i] = 1
		}
	}
	return out
}

var rowRE = regexp.MustCompile(`(?m)^\| (\d+) \| `)

// checkNewestLast checks that no attempt lost less than a newer one.
func checkNewestLast(t *testing.T, log *attemptlog.Log, body string) {
	t.Helper()
	if strings.Contains(body, "The attempt log is left out") {
		return
	}
	lv := levels(log, body)
	for i := 1; i < len(lv); i++ {
		if lv[i] > lv[i-1] {
			t.Fatalf("attempt %d lost more (level %d) than attempt %d (level %d); levels %v", i, lv[i], i-1, lv[i-1], lv)
		}
	}
}

// checkMarkdown fails t when md is not valid enough Markdown.
func checkMarkdown(t *testing.T, md string) {
	t.Helper()
	if err := markdownError(md); err != nil {
		t.Error(err)
	}
}

// markdownError checks that every code fence opened is closed and that
// every <details> outside fences is closed, in order.
func markdownError(md string) error {
	fence, depth := "", 0
	for n, line := range strings.Split(md, "\n") {
		ticks := len(line) - len(strings.TrimLeft(line, "`"))
		if fence != "" {
			if ticks >= len(fence) && strings.TrimSpace(line[ticks:]) == "" {
				fence = ""
			}
			continue
		}
		if ticks >= 3 {
			fence = line[:ticks]
			continue
		}
		depth += strings.Count(line, "<details>") + strings.Count(line, "<details ")
		depth -= strings.Count(line, "</details>")
		if depth < 0 {
			return fmt.Errorf("line %d closes a <details> that is not open", n+1)
		}
	}
	if fence != "" {
		return fmt.Errorf("a %s fence is not closed", fence)
	}
	if depth != 0 {
		return fmt.Errorf("%d <details> not closed", depth)
	}
	return nil
}

func TestMarkdownChecker(t *testing.T) {
	for md, ok := range map[string]bool{
		"```go\nx\n```\n":                   true,
		"````\n```\n````\n":                 true,
		"```\nx\n":                          false,
		"<details>\n```\n</details>\n```\n": false,
		"<details><summary>a</summary>\n\n<details>\n</details>\n</details>\n": true,
		"</details>\n<details>\n": false,
	} {
		if err := markdownError(md); (err == nil) != ok {
			t.Errorf("markdownError(%q) = %v", md, err)
		}
	}
}
