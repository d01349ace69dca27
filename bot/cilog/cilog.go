// Package cilog turns a CI job's log into text fit for a model's prompt
// and a public comment: the failing steps only, with the runner's
// timestamps and colour codes removed, trimmed to a size, and with what
// looks like a credential redacted. The log is untrusted input like issue
// text: cilog only shortens and cleans it.
package cilog

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	timestamp = regexp.MustCompile(`^\x{FEFF}?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?`)
	ansi      = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)
)

// step is one step of a GitHub Actions job log: the lines from one
// top-level "##[group]Run …" to the next.
type step struct {
	title  string
	lines  []string
	failed bool // it printed ##[error]
}

// steps splits an Actions job log into its steps. Lines before the first
// "Run" group (the runner's set-up) form a step titled "Set up job".
func steps(log string) []step {
	out := []step{{title: "Set up job"}}
	for _, line := range strings.Split(strings.ReplaceAll(log, "\r\n", "\n"), "\n") {
		line = ansi.ReplaceAllString(timestamp.ReplaceAllString(line, ""), "")
		if cmd, ok := strings.CutPrefix(line, "##[group]Run "); ok {
			out = append(out, step{title: "Run " + strings.TrimSpace(cmd)})
			continue
		}
		cur := &out[len(out)-1]
		switch {
		case strings.HasPrefix(line, "##[group]"), strings.HasPrefix(line, "##[endgroup]"):
			continue
		case strings.HasPrefix(line, "##[error]"):
			cur.failed = true
			line = "Error: " + strings.TrimPrefix(line, "##[error]")
		}
		cur.lines = append(cur.lines, line)
	}
	return out
}

// Excerpt returns the failing steps of a GitHub Actions job log (those
// that printed "##[error]"; the last step when none did), each under a
// "### Run …" heading, redacted, in at most limit bytes: a step too long
// keeps its last lines, where test runners print their failures.
func Excerpt(log string, limit int) string {
	all := steps(log)
	var failing []step
	for _, s := range all {
		if s.failed {
			failing = append(failing, s)
		}
	}
	if len(failing) == 0 {
		failing = all[len(all)-1:]
	}
	// Each step shown gets at least minStepBytes; the first failures
	// matter most (a failing step usually stops the job).
	more := ""
	if most := max(1, limit/minStepBytes); len(failing) > most {
		more = fmt.Sprintf("[... %d more failing steps ...]\n", len(failing)-most)
		failing = failing[:most]
	}
	share := (limit - len(more)) / len(failing)
	var b strings.Builder
	for _, s := range failing {
		b.WriteString(tail(s, share))
	}
	b.WriteString(more)
	return b.String()
}

// minStepBytes is the least room a failing step gets in an excerpt.
const minStepBytes = 1024

// tail renders s under its heading in at most limit bytes, cutting lines
// from the front when it must and saying how many. It redacts only the
// lines it keeps, walking back from the end, so a long log costs little.
func tail(s step, limit int) string {
	head := "### " + oneLine(Redact(s.title), limit/4) + "\n"
	lines := withoutKeys(s.lines)
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	room := limit - len(head)
	var kept []string
	for i := len(lines) - 1; i >= 0; i-- {
		line := Redact(lines[i])
		note := 0
		if i > 0 {
			note = len(cutNote(i))
		}
		if len(line)+1+note > room {
			if len(kept) == 0 { // the last line alone is too long: keep its end
				room -= len(cutNote(len(lines) - 1))
				kept = append(kept, strings.ToValidUTF8(line[max(0, len(line)-room+1):], ""))
			}
			break
		}
		room -= len(line) + 1
		kept = append(kept, line)
	}
	var b strings.Builder
	b.WriteString(head)
	if cut := len(lines) - len(kept); cut > 0 {
		b.WriteString(cutNote(cut))
	}
	for i := len(kept) - 1; i >= 0; i-- {
		b.WriteString(kept[i])
		b.WriteByte('\n')
	}
	return b.String()
}

// withoutKeys replaces each private key block, which spans lines that
// Redact sees one at a time, with one "[redacted]" line.
func withoutKeys(lines []string) []string {
	var out []string
	inKey := false
	for _, l := range lines {
		switch {
		case !inKey && strings.Contains(l, "-----BEGIN") && strings.Contains(l, "PRIVATE KEY-----"):
			inKey = !strings.Contains(l, "-----END")
			out = append(out, "[redacted]")
		case inKey:
			inKey = !(strings.Contains(l, "-----END") && strings.Contains(l, "PRIVATE KEY-----"))
		default:
			out = append(out, l)
		}
	}
	return out
}

// oneLine cuts s to at most n bytes on a rune boundary.
func oneLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:max(0, n-3)], "") + "..."
}

func cutNote(lines int) string {
	return fmt.Sprintf("[... %d earlier lines cut ...]\n", lines)
}
