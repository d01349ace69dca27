// Package round writes what a round on Capsule's own pull request asks of
// the loop: the issue it fixes, then what a reviewer said (each comment
// with its file, line and the code it points at) or what the failing
// checks printed. Everything here is untrusted input, like issue text: it
// is fenced so that no comment can close a block early, CI output is
// redacted, and every part is bounded.
package round

import (
	"fmt"
	"strings"

	"github.com/capsulehq/capsule/bot/cilog"
	"github.com/capsulehq/capsule/internal/markdown"
)

// Bounds on what a round's task carries, so that a flood of comments or a
// huge log cannot crowd out the code in the model's context.
const (
	MaxComments     = 30
	MaxCommentBytes = 4 << 10
	MaxHunkLines    = 30
	MaxChecks       = 5
	MaxAnnotations  = 20 // of one check
	MaxLogBytes     = 8 << 10
)

// Issue is the issue the pull request fixes.
type Issue struct {
	Number      int
	Title, Body string
}

// Comment is a review comment on a line of the pull request's diff.
type Comment struct {
	Author string
	Path   string
	Line   int // 0 for a comment on the whole file
	// DiffHunk is the diff GitHub shows above the comment, ending at the
	// commented line.
	DiffHunk string
	Body     string
}

// Review is what a reviewer asked: the review's own text and its line
// comments, or a `/capsule ...` instruction as the summary alone.
type Review struct {
	Author   string
	Summary  string
	Comments []Comment
}

// Check is a check that failed on the pull request's head.
type Check struct {
	Name       string
	Conclusion string // failure, timed_out, ...
	// Summary is the check run's output (summary and text).
	Summary     string
	Annotations []Annotation
	// Log is the failing steps of the job's log for a GitHub Actions
	// check, as cilog.Excerpt gives them in MaxLogBytes; empty for other
	// CI.
	Log string
}

// Annotation is a check's note on a line.
type Annotation struct {
	Path    string
	Line    int
	Level   string // notice, warning or failure
	Title   string
	Message string
}

// Task is a round's task for the loop: repo.Task's title and body.
type Task struct {
	Title, Body string
}

// ReviewTask is round n's task from a review of the pull request that
// fixes issue.
func ReviewTask(issue Issue, n int, r Review) Task {
	var b strings.Builder
	writeIssue(&b, issue)
	fmt.Fprintf(&b, "## Round %d: a review of the pull request\n\n", n)
	b.WriteString("The pull request already holds a fix for the issue above, and the repository you see is its branch. " +
		"A reviewer asked for the changes below: make them, keep the fix, and keep the tests passing.\n\n")
	if s := strings.TrimSpace(r.Summary); s != "" {
		fmt.Fprintf(&b, "### What @%s wrote\n\n%s\n\n", r.Author, markdown.Fence("text", clip(s, MaxCommentBytes)))
	}
	comments := r.Comments
	if len(comments) > MaxComments {
		comments = comments[:MaxComments]
	}
	for i, c := range comments {
		fmt.Fprintf(&b, "### Comment %d, by @%s, on %s\n\n", i+1, c.Author, where(c.Path, c.Line))
		if h := lastLines(c.DiffHunk, MaxHunkLines); h != "" {
			fmt.Fprintf(&b, "The code it points at (the last line is the one commented on):\n\n%s\n\n", markdown.Fence("diff", h))
		}
		fmt.Fprintf(&b, "%s\n\n", markdown.Fence("text", clip(strings.TrimSpace(c.Body), MaxCommentBytes)))
	}
	if len(r.Comments) > MaxComments {
		fmt.Fprintf(&b, "(%d more comments are not shown.)\n\n", len(r.Comments)-MaxComments)
	}
	return Task{Title: issue.Title, Body: strings.TrimRight(b.String(), "\n") + "\n"}
}

// CITask is round n's task from the checks that failed on the pull
// request's head after Capsule's last commit.
func CITask(issue Issue, n int, checks []Check) Task {
	var b strings.Builder
	writeIssue(&b, issue)
	fmt.Fprintf(&b, "## Round %d: the pull request's CI failed\n\n", n)
	b.WriteString("The pull request already holds a fix for the issue above, and the repository you see is its branch. " +
		"The checks below failed on it. Make them pass by fixing the code; do not weaken or skip the checks.\n\n")
	shown := checks
	if len(shown) > MaxChecks {
		shown = shown[:MaxChecks]
	}
	for _, c := range shown {
		fmt.Fprintf(&b, "### Check %q: %s\n\n", cilog.Redact(c.Name), c.Conclusion)
		if s := strings.TrimSpace(c.Summary); s != "" {
			fmt.Fprintf(&b, "%s\n\n", markdown.Fence("text", clip(cilog.Redact(s), MaxCommentBytes)))
		}
		for _, a := range c.Annotations[:min(len(c.Annotations), MaxAnnotations)] {
			fmt.Fprintf(&b, "- %s, %s: %s\n", where(a.Path, a.Line), a.Level, oneLine(cilog.Redact(strings.TrimSpace(a.Title+" "+a.Message))))
		}
		if more := len(c.Annotations) - MaxAnnotations; more > 0 {
			fmt.Fprintf(&b, "- (%d more annotations are not shown.)\n", more)
		}
		if len(c.Annotations) > 0 {
			b.WriteString("\n")
		}
		if log := strings.TrimRight(c.Log, "\n"); log != "" {
			fmt.Fprintf(&b, "The failing steps of its log:\n\n%s\n\n", markdown.Fence("text", clip(cilog.Redact(log), MaxLogBytes)))
		}
	}
	if len(checks) > MaxChecks {
		fmt.Fprintf(&b, "(%d more failing checks are not shown.)\n\n", len(checks)-MaxChecks)
	}
	return Task{Title: issue.Title, Body: strings.TrimRight(b.String(), "\n") + "\n"}
}

func writeIssue(b *strings.Builder, issue Issue) {
	fmt.Fprintf(b, "## The issue (#%d)\n\n", issue.Number)
	if body := strings.TrimSpace(issue.Body); body != "" {
		b.WriteString(body + "\n\n")
	}
}

func where(path string, line int) string {
	if path == "" {
		return "the pull request"
	}
	if line <= 0 {
		return "`" + path + "`"
	}
	return fmt.Sprintf("`%s` line %d", path, line)
}

// clip cuts s to at most n bytes on a rune boundary, saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "\n[... cut ...]"
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func oneLine(s string) string { return clip(strings.Join(strings.Fields(s), " "), 500) }
